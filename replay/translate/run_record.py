"""What one run of a legacy stream said so far: its messages and tool calls.

The translator keeps one `RunRecord` per run, fed by `track` with every event it passes
through, because a legacy pause names only its tool calls: the snapshot and the
interrupt descriptors of the native terminal are assembled from what the run said
before it paused. Nothing here emits events or notices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replay.wire import bounded_json
from replay.wire.canonical import as_javascript_reads, wire_json
from replay.wire.problems import Location


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    parent: str | None
    args: list[str] = field(default_factory=list)
    final: list[Any] | None = None
    """The `TOOL_CALL_END` `input`, boxed in a list (`[input]`) when the end event had
    one: TanStack then keeps `JSON.stringify(input)` as the call's arguments (what the
    model streamed only when it sent none). Written out only for a snapshot."""
    done: bool = False
    """A TOOL_CALL_RESULT was seen: the call is complete, not pending."""

    def arguments(self) -> str:
        """The call's `function.arguments`, as 0.58.0's snapshot carries them."""
        if self.final is None:
            return "".join(self.args)
        (end_input,) = self.final
        # ai:activities/chat/tools/tool-calls.ts `completeToolCall`: a non-object input
        # (null, a number) becomes `{}`.
        return wire_json(
            as_javascript_reads(end_input if isinstance(end_input, dict | list) else {})
        )

    def parsed_args(self) -> Any:
        text = self.arguments() or "{}"
        try:
            value = bounded_json.loads(text)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(slots=True)
class Message:
    id: str
    role: str
    text: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    created: int | None = None
    """The `timestamp` (ms) of the event that began the message: 0.58.0 reads its clock
    there for the snapshot's `metadata.tanstack.createdAt`."""


@dataclass(slots=True)
class RunRecord:
    """What one run said so far: enough to assemble its snapshot and descriptors."""

    started: bool = False
    finished: bool = False
    run_id: str | None = None
    thread_id: str | None = None
    messages: list[Message] = field(default_factory=list)
    by_id: dict[str, Message] = field(default_factory=dict)
    calls: dict[str, ToolCall] = field(default_factory=dict)
    location: Location | None = None
    """Where the last event of the run was."""
    round_mark: tuple[int, int] | None = None
    """(messages, calls) when a repeated `RUN_STARTED` last opened this run's next model
    round: a further repeat before it says anything but tool results is one too."""

    def quiet_since_round(self) -> bool:
        """Whether a repeated `RUN_STARTED` opened this run's round and the round has said
        nothing since but tool results (a further repeat is dropped like the first)."""
        mark = self.round_mark
        return (
            mark is not None
            and not self.finished
            and len(self.calls) == mark[1]
            and all(message.role == "tool" for message in self.messages[mark[0] :])
        )

    def continued(self, between: RunRecord) -> RunRecord:
        """This run, open again for its next model round, with what was said between the
        rounds (`between`: the tool results of this round's server tools) folded in."""
        for message in between.messages:
            if message.role == "tool" and message.tool_call_id in self.calls:
                self.calls[message.tool_call_id].done = True
            self.messages.append(message)
        for call_id, call in between.calls.items():
            self.calls.setdefault(call_id, call)
        self.finished = False
        self.location = between.location or self.location
        return self

    def assistant(self, message_id: str | None, timestamp: Any = None) -> Message:
        if message_id is not None and message_id in self.by_id:
            return self.by_id[message_id]
        if message_id is None:
            for message in reversed(self.messages):
                if message.role == "assistant":
                    return message
            message_id = f"snapshot_{self.run_id or 'run'}_{len(self.messages)}"
        message = Message(message_id, "assistant", created=_epoch_ms(timestamp))
        self.messages.append(message)
        self.by_id[message_id] = message
        return message


def track(data: dict[str, Any], event_type: Any, run: RunRecord) -> None:
    """Fold one passed-through event into `run`: message text, tool calls and results."""
    if event_type == "TEXT_MESSAGE_START" or event_type == "TEXT_MESSAGE_CHUNK":
        message_id = text(data.get("messageId"))
        if message_id is not None and data.get("role", "assistant") == "assistant":
            message = run.assistant(message_id, data.get("timestamp"))
            if event_type == "TEXT_MESSAGE_CHUNK" and isinstance(data.get("delta"), str):
                message.text.append(data["delta"])
    elif event_type == "TEXT_MESSAGE_CONTENT":
        target = run.by_id.get(str(data.get("messageId")))
        if target is not None and isinstance(data.get("delta"), str):
            target.text.append(data["delta"])
    elif event_type == "TOOL_CALL_START":
        call_id = text(data.get("toolCallId"))
        name = text(data.get("toolCallName")) or text(data.get("toolName"))
        if call_id is not None and name is not None and call_id not in run.calls:
            parent = text(data.get("parentMessageId"))
            call = ToolCall(call_id, name, parent)
            run.calls[call_id] = call
            run.assistant(parent, data.get("timestamp")).tool_calls.append(call)
    elif event_type == "TOOL_CALL_ARGS":
        pending = run.calls.get(str(data.get("toolCallId")))
        if pending is not None and isinstance(data.get("delta"), str):
            pending.args.append(data["delta"])
    elif event_type == "TOOL_CALL_END":
        ended = run.calls.get(str(data.get("toolCallId")))
        if ended is not None:
            end_input = _end_input(data)
            if end_input is not _ABSENT:
                ended.final = [end_input]
    elif event_type == "TOOL_CALL_RESULT":
        call_id = text(data.get("toolCallId"))
        if call_id is not None:
            if call_id in run.calls:
                run.calls[call_id].done = True
            message_id = text(data.get("messageId")) or f"tool-{call_id}"
            message = Message(message_id, "tool", tool_call_id=call_id)
            if isinstance(data.get("content"), str):
                message.text.append(data["content"])
            run.messages.append(message)


_ABSENT = object()
_LAST_MS = 253402300799999
"""9999-12-31T23:59:59.999Z: later dates have no four-digit ISO year."""


def _epoch_ms(value: Any) -> int | None:
    """A `timestamp` as whole milliseconds since the epoch, as a JavaScript `Date` keeps
    it; None when it is no number or outside years 1970 to 9999."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 <= value <= _LAST_MS:  # also refuses NaN
        return None
    return int(value)


def _end_input(data: dict[str, Any]) -> Any:
    """A `TOOL_CALL_END`'s `input`: top level (0.42.0 wrote raw chunks) or where 0.58.0's
    wire normaliser moves it (`metadata.tanstack.input`); `_ABSENT` when it has none."""
    if "input" in data:
        return data["input"]
    metadata = data.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    if isinstance(tanstack, dict) and "input" in tanstack:
        return tanstack["input"]
    return _ABSENT


def text(value: Any) -> str | None:
    """A non-empty string field, or None: legacy streams send ids as `""` or omit them."""
    return value if isinstance(value, str) and value else None
