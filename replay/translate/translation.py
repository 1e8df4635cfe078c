"""Translate legacy approval streams into the native interrupt terminal, event by event.

A raw-object stage: it runs between the JSON step and validation (legacy shapes are
not valid AG-UI 1.0), holds at most one run's worth of state, and passes everything it
does not translate through as the very same object. `translate_stream` does the same on
bytes, copying every untouched byte verbatim (`replay.translate.stream_rewriter`), for
`agui translate`.

Per legacy run (protocol.md §6.4): the legacy `RUN_FINISHED` and its trailing
`approval-requested` / `tool-input-available` events become a `MESSAGES_SNAPSHOT` and a
`RUN_FINISHED` with `outcome: {type: "interrupt"}`, exactly as `@tanstack/ai` 0.58.0
emits them (with `RUN_STARTED` first when the stream never started a run). AG-UI's own
retired shapes (`THINKING_*`, whole optional fields sent as `null`) are modernised too
(`replay.wire.retired_shapes`).

Kept whole for now (about 720 lines): one state machine per legacy run. It is the next
to split (the per-run rewriting from the stage plumbing) once the fixes in flight on
it have landed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from replay.interrupts.descriptors import (
    ToolDefinition,
    approval_descriptor,
    client_tool_descriptor,
    tool_map,
)
from replay.translate.stream_rewriter import rewrite_stream
from replay.wire.events import Decoded, EndOfStream, RawEvent
from replay.wire.legacy import (
    RETIRED_EVENT_TYPES,
    LegacyRequest,
    is_legacy_finish,
    read_legacy,
)
from replay.wire.problems import Location, Problem, Severity
from replay.wire.retired_shapes import ReasoningRenamer, null_fields, without_nulls
from replay.wire.stream_position import Position

TRANSLATED = "translated"
"""A legacy or retired shape was rewritten into its native form."""
INVENTED = "invented"
"""agui had to make something up: a minted id, a synthesised snapshot or terminal."""
LOST = "lost"
"""Something the legacy stream said has no native counterpart and was dropped."""
NOTICE_RULES = (TRANSLATED, INVENTED, LOST)

# RUN_FINISHED keys the AG-UI spec defines (ai:utilities/spec-event-keys.ts); anything
# else moves under `metadata.tanstack`, as TanStack's wire normaliser does.
_FINISH_SPEC_KEYS = ("type", "runId", "threadId", "timestamp", "result", "outcome", "usage")
_SHARED_KEYS = frozenset({"type", "timestamp", "rawEvent", "metadata"})

# Fields a legacy UIMessage may carry that the AG-UI wire message form keeps.
_WIRE_MESSAGE_KEYS = (
    "id",
    "role",
    "content",
    "name",
    "toolCalls",
    "toolCallId",
    "error",
    "encryptedValue",
    "activityType",
)


def compact_json(value: Any) -> str:
    """JSON as TanStack writes it on the wire: compact, non-ASCII raw, key order kept.

    A lone surrogate (a `\\ud800` escape in the recording) has no UTF-8 form, and the
    output must be UTF-8: it stays escaped, as it was recorded.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Surrogates occur only inside JSON strings, where `\uXXXX` is their escape.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@dataclass(slots=True)
class _ToolCall:
    id: str
    name: str
    parent: str | None
    args: list[str] = field(default_factory=list)
    done: bool = False
    """A TOOL_CALL_RESULT was seen: the call is complete, not pending."""

    def parsed_args(self) -> Any:
        text = "".join(self.args) or "{}"
        try:
            value = json.loads(text)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(slots=True)
class _Message:
    id: str
    role: str
    text: list[str] = field(default_factory=list)
    tool_calls: list[_ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None


@dataclass(slots=True)
class _Run:
    """What one run said so far: enough to assemble its snapshot and descriptors."""

    started: bool = False
    finished: bool = False
    run_id: str | None = None
    thread_id: str | None = None
    messages: list[_Message] = field(default_factory=list)
    by_id: dict[str, _Message] = field(default_factory=dict)
    calls: dict[str, _ToolCall] = field(default_factory=dict)
    location: Location | None = None
    """Where the last event of the run was."""

    def assistant(self, message_id: str | None) -> _Message:
        if message_id is not None and message_id in self.by_id:
            return self.by_id[message_id]
        if message_id is None:
            for message in reversed(self.messages):
                if message.role == "assistant":
                    return message
            message_id = f"snapshot_{self.run_id or 'run'}_{len(self.messages)}"
        message = _Message(message_id, "assistant")
        self.messages.append(message)
        self.by_id[message_id] = message
        return message


class Translator:
    """The translation state machine; `feed` one decoded item, then `finish`."""

    def __init__(
        self,
        *,
        tools: dict[str, ToolDefinition] | None = None,
        request: dict[str, Any] | None = None,
    ) -> None:
        self.tools = tools
        self.request = request if isinstance(request, dict) else None
        self.changed = False
        """Whether anything was translated, invented or lost (`--check`)."""
        self._run = _Run()
        self._held: RawEvent | None = None
        self._batch: list[tuple[LegacyRequest, RawEvent]] = []
        self._after_terminal = False
        self._reasoning = ReasoningRenamer()
        self._history_calls = _history_tool_calls(self.request)

    # -- driving -----------------------------------------------------------------

    def feed(self, item: Decoded) -> list[Decoded]:
        if isinstance(item, Problem):
            return [item]
        if isinstance(item, EndOfStream):
            out = self._flush(force=True)
            if self._after_terminal:
                out.append(
                    self._notice(
                        TRANSLATED,
                        "dropped the `[DONE]` end marker after the translated pause: the"
                        " current client turns it into a second RUN_FINISHED",
                        item.location,
                    )
                )
                return out
            out.append(item)
            return out
        legacy = read_legacy(item.data)
        if legacy is not None:
            return self._take_legacy(legacy, item)
        starts = item.data.get("type") == "RUN_STARTED"
        out = self._flush(force=starts or self._held is not None or not self._open)
        out.extend(self._take_event(item))
        return out

    def finish(self) -> list[Decoded]:
        return self._flush(force=True)

    @property
    def reasoning(self) -> tuple[str | None, str | None]:
        """The open reasoning and reasoning-message ids (`THINKING_*` renaming): the only
        state a translator carries from one run to the next besides `changed`."""
        return self._reasoning.reasoning, self._reasoning.message

    @reasoning.setter
    def reasoning(self, value: tuple[str | None, str | None]) -> None:
        self._reasoning.reasoning, self._reasoning.message = value

    @property
    def _open(self) -> bool:
        return self._run.started and not self._run.finished and self._held is None

    # -- legacy events -------------------------------------------------------------

    def _take_legacy(self, legacy: LegacyRequest, raw: RawEvent) -> list[Decoded]:
        self._batch.append((legacy, raw))
        return []

    def _flush(self, *, force: bool) -> list[Decoded]:
        """Release the held finish: as it came, or as the native terminal of its batch."""
        if not force or (self._held is None and not self._batch):
            return []
        held, batch = self._held, self._batch
        self._held, self._batch = None, []
        if not batch:
            assert held is not None
            self._after_terminal = False
            out = self._modernise(held)
            self._run = _Run()
            return out
        anchor = held if held is not None else batch[0][1]
        if held is None and self._run.started:
            # The run never finished: the terminal goes after its last event.
            anchor = RawEvent(self._run.location or anchor.location, anchor.data, anchor.text)
        run = self._run
        out = self._terminal(anchor, held, batch)
        # Left as reading the output back would leave it (idempotence): the run, or the
        # one its synthesised RUN_STARTED began, finished by the native terminal.
        if not run.started:
            finish = out[-1]
            assert isinstance(finish, RawEvent)
            run = _Run(
                started=True,
                run_id=finish.data["runId"],
                thread_id=finish.data["threadId"],
                location=finish.location,
            )
        run.finished = True
        self._run = run
        self._after_terminal = True
        return out

    def _terminal(
        self, anchor: RawEvent, finish: RawEvent | None, batch: list[tuple[LegacyRequest, RawEvent]]
    ) -> list[Decoded]:
        run, request = self._run, self.request or {}
        location = anchor.location
        out: list[Decoded] = []
        finish_data = finish.data if finish is not None else {}
        thread_id = _text(finish_data.get("threadId")) or run.thread_id
        thread_from = "the run's RUN_STARTED"
        if thread_id is None and _text(request.get("threadId")):
            thread_id, thread_from = str(request["threadId"]), "the request"
        if thread_id is None:
            thread_id, thread_from = "agui-translated-thread", "nothing (minted)"
        if finish is not None and not _text(finish_data.get("threadId")):
            out.append(
                self._notice(
                    INVENTED,
                    f"RUN_FINISHED had no threadId; took {thread_id!r} from {thread_from}",
                    location,
                )
            )
        run_id = _text(finish_data.get("runId")) or run.run_id or _text(request.get("runId"))
        if run_id is None:
            run_id = f"agui-translated-run-{location.offset}"
            out.append(self._notice(INVENTED, f"no run id known; minted {run_id!r}", location))
        interrupted = _text(request.get("runId")) or run_id
        timestamp = finish_data.get("timestamp", batch[0][1].data.get("timestamp"))

        descriptors = self._descriptors(batch, run, interrupted, out)
        events: list[dict[str, Any]] = []
        if not run.started:
            started: dict[str, Any] = {
                "type": "RUN_STARTED",
                "runId": run_id,
                "threadId": thread_id,
            }
            if timestamp is not None:
                started["timestamp"] = timestamp
            events.append(started)
            out.append(
                self._notice(
                    INVENTED,
                    "synthesised RUN_STARTED: the legacy stream sent the pause without a run",
                    location,
                )
            )
        snapshot: dict[str, Any] = {"type": "MESSAGES_SNAPSHOT"}
        if timestamp is not None:
            snapshot["timestamp"] = timestamp
        snapshot["messages"] = self._snapshot_messages(run, out, location)
        events.append(snapshot)
        events.append(self._finish_event(finish_data, run_id, thread_id, timestamp, descriptors))
        ids = ", ".join(str(d["id"]) for d in descriptors)
        what = "legacy RUN_FINISHED" if finish is not None else "legacy pause events"
        out.append(
            self._notice(
                TRANSLATED,
                f"{what} → MESSAGES_SNAPSHOT + RUN_FINISHED interrupt ({ids})",
                location,
            )
        )
        for event in events:
            out.append(RawEvent(location, event, compact_json(event), anchor.kind))
        return out

    def _descriptors(
        self,
        batch: list[tuple[LegacyRequest, RawEvent]],
        run: _Run,
        run_id: str,
        out: list[Decoded],
    ) -> list[dict[str, Any]]:
        order = {call_id: index for index, call_id in enumerate(run.calls)}
        approvals: list[tuple[int, int, dict[str, Any]]] = []
        clients: list[tuple[int, int, dict[str, Any]]] = []
        seen: set[str] = set()
        for position, (legacy, raw) in enumerate(batch):
            rank = order.get(legacy.tool_call_id, len(order))
            tool = self._tool(legacy.tool_name, out, raw.location)
            if legacy.is_approval:
                interrupt_id = legacy.approval_id or f"approval_{legacy.tool_call_id}"
                if legacy.approval_id is None:
                    out.append(
                        self._notice(
                            INVENTED,
                            f"approval-requested had no approval id; used {interrupt_id!r}",
                            raw.location,
                        )
                    )
                descriptor = approval_descriptor(
                    interrupt_id=interrupt_id,
                    tool_call_id=legacy.tool_call_id,
                    tool_name=legacy.tool_name,
                    args=legacy.input,
                    run_id=run_id,
                    tool=tool,
                )
            else:
                descriptor = client_tool_descriptor(
                    tool_call_id=legacy.tool_call_id,
                    tool_name=legacy.tool_name,
                    args=legacy.input,
                    run_id=run_id,
                    tool=tool,
                )
            if descriptor["id"] in seen:
                out.append(
                    self._notice(
                        LOST,
                        f"{legacy.name} repeats interrupt {descriptor['id']!r}; kept the first",
                        raw.location,
                    )
                )
                continue
            seen.add(descriptor["id"])
            (approvals if legacy.is_approval else clients).append((rank, position, descriptor))
            shape = f" ({legacy.shape} shape)" if legacy.shape != "custom-value" else ""
            out.append(
                self._notice(
                    TRANSLATED,
                    f"{legacy.name}{shape} for {legacy.tool_name} ({legacy.tool_call_id})"
                    f" → interrupt {descriptor['id']}",
                    raw.location,
                )
            )
            if legacy.dropped:
                dropped = ", ".join(legacy.dropped)
                out.append(
                    self._notice(LOST, f"no native counterpart, dropped: {dropped}", raw.location)
                )
        announced = {legacy.tool_call_id for legacy, _ in batch}
        location = batch[-1][1].location
        for rank, call in enumerate(run.calls.values()):
            if call.done or call.id in announced:
                continue
            extra = self._unannounced(call, run_id, out, location)
            if extra is not None:
                target = approvals if extra["reason"] == "tool_call" else clients
                target.append((rank, len(batch) + rank, extra))
        approvals.sort(key=lambda entry: entry[:2])
        clients.sort(key=lambda entry: entry[:2])
        return [entry[2] for entry in approvals + clients]

    def _unannounced(
        self, call: _ToolCall, run_id: str, out: list[Decoded], location: Location
    ) -> dict[str, Any] | None:
        """A call of the paused turn that no legacy event named (0.42.0's mixed turns)."""
        tool = self.tools.get(call.name) if self.tools is not None else None
        args = call.parsed_args()
        if tool is not None and tool.needs_approval:
            descriptor = approval_descriptor(
                interrupt_id=f"approval_{call.id}",
                tool_call_id=call.id,
                tool_name=call.name,
                args=args,
                run_id=run_id,
                tool=tool,
            )
        elif tool is not None and tool.client is False:
            out.append(
                self._notice(
                    LOST,
                    f"tool call {call.id} ({call.name}) has no result and no legacy event;"
                    " the tools file says it is a server tool, so no interrupt was added",
                    location,
                )
            )
            return None
        else:
            descriptor = client_tool_descriptor(
                tool_call_id=call.id, tool_name=call.name, args=args, run_id=run_id, tool=tool
            )
        out.append(
            self._notice(
                INVENTED,
                f"tool call {call.id} ({call.name}) of the paused turn had no legacy event"
                f" (0.42.0 announced only approvals in a mixed turn); added {descriptor['id']}"
                " as the native server would",
                location,
            )
        )
        return descriptor

    def _tool(self, name: str, out: list[Decoded], location: Location) -> ToolDefinition | None:
        if self.tools is None:
            return None
        tool = self.tools.get(name)
        if tool is None:
            out.append(
                self._notice(
                    LOST,
                    f"tool {name!r} is not in the tools file: its interrupt has no"
                    " tanstack:interruptBinding or responseSchema",
                    location,
                )
            )
        return tool

    def _finish_event(
        self,
        finish: dict[str, Any],
        run_id: str,
        thread_id: str,
        timestamp: Any,
        descriptors: list[dict[str, Any]],
    ) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "RUN_FINISHED", "runId": run_id, "threadId": thread_id}
        if timestamp is not None:
            event["timestamp"] = timestamp
        for key in ("result", "usage"):
            if finish.get(key) is not None:
                event[key] = finish[key]
        event["outcome"] = {"type": "interrupt", "interrupts": descriptors}
        if finish.get("rawEvent") is not None:
            event["rawEvent"] = finish["rawEvent"]
        metadata = finish.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
        tanstack = metadata.get("tanstack")
        tanstack = dict(tanstack) if isinstance(tanstack, dict) else {}
        for key, value in finish.items():
            if key not in _FINISH_SPEC_KEYS and key not in _SHARED_KEYS and value is not None:
                tanstack.setdefault(key, value)
        tanstack.setdefault("finishReason", "tool_calls")
        metadata["tanstack"] = tanstack
        event["metadata"] = metadata
        return event

    def _snapshot_messages(
        self, run: _Run, out: list[Decoded], location: Location
    ) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        request_messages = self.request.get("messages") if self.request else None
        converted = 0
        if isinstance(request_messages, list):
            for index, message in enumerate(request_messages):
                if isinstance(message, dict):
                    messages.append(_wire_message(message, run.run_id, index))
                    converted += 1
        for message in run.messages:
            if message.role == "tool":
                messages.append(
                    {
                        "id": message.id,
                        "role": "tool",
                        "toolCallId": message.tool_call_id,
                        "content": "".join(message.text),
                    }
                )
                continue
            calls = [c for c in message.tool_calls if c.id not in self._history_calls]
            text = "".join(message.text)
            if not text and not calls:
                continue
            wire: dict[str, Any] = {"id": message.id, "role": "assistant"}
            if text:
                wire["content"] = text
            if calls:
                wire["toolCalls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": "".join(call.args)},
                    }
                    for call in calls
                ]
            messages.append(wire)
        source = (
            f"{converted} request message(s) and the run's events"
            if self.request is not None
            else "the run's events only (no request known, so no input messages)"
        )
        out.append(self._notice(INVENTED, f"synthesised MESSAGES_SNAPSHOT from {source}", location))
        return messages

    # -- ordinary events -----------------------------------------------------------------

    def _take_event(self, raw: RawEvent) -> list[Decoded]:
        self._after_terminal = False
        data = raw.data
        event_type = data.get("type")
        run = self._run
        if event_type == "RUN_STARTED":
            run = self._run = _Run(
                started=True, run_id=_text(data.get("runId")), thread_id=_text(data.get("threadId"))
            )
            if self.request is not None:
                run.thread_id = run.thread_id or _text(self.request.get("threadId"))
        run.location = raw.location
        if event_type == "RUN_FINISHED" and is_legacy_finish(data):
            run.run_id = run.run_id or _text(data.get("runId"))
            self._held = raw
            return []
        if event_type in ("RUN_FINISHED", "RUN_ERROR"):
            run.finished = True
        self._track(data, event_type, run)
        return self._modernise(raw)

    def _track(self, data: dict[str, Any], event_type: Any, run: _Run) -> None:
        if event_type == "TEXT_MESSAGE_START" or event_type == "TEXT_MESSAGE_CHUNK":
            message_id = _text(data.get("messageId"))
            if message_id is not None and data.get("role", "assistant") == "assistant":
                message = run.assistant(message_id)
                if event_type == "TEXT_MESSAGE_CHUNK" and isinstance(data.get("delta"), str):
                    message.text.append(data["delta"])
        elif event_type == "TEXT_MESSAGE_CONTENT":
            target = run.by_id.get(str(data.get("messageId")))
            if target is not None and isinstance(data.get("delta"), str):
                target.text.append(data["delta"])
        elif event_type == "TOOL_CALL_START":
            call_id = _text(data.get("toolCallId"))
            name = _text(data.get("toolCallName")) or _text(data.get("toolName"))
            if call_id is not None and name is not None and call_id not in run.calls:
                parent = _text(data.get("parentMessageId"))
                call = _ToolCall(call_id, name, parent)
                run.calls[call_id] = call
                run.assistant(parent).tool_calls.append(call)
        elif event_type == "TOOL_CALL_ARGS":
            pending = run.calls.get(str(data.get("toolCallId")))
            if pending is not None and isinstance(data.get("delta"), str):
                pending.args.append(data["delta"])
        elif event_type == "TOOL_CALL_RESULT":
            call_id = _text(data.get("toolCallId"))
            if call_id is not None:
                if call_id in run.calls:
                    run.calls[call_id].done = True
                message_id = _text(data.get("messageId")) or f"tool-{call_id}"
                message = _Message(message_id, "tool", tool_call_id=call_id)
                if isinstance(data.get("content"), str):
                    message.text.append(data["content"])
                run.messages.append(message)

    # -- AG-UI retired shapes ---------------------------------------------------------------

    def _modernise(self, raw: RawEvent) -> list[Decoded]:
        """Pass an event through, or rewrite AG-UI 0.x shapes (THINKING_*, optional nulls)."""
        data = raw.data
        notices: list[Decoded] = []
        new = data
        event_type = data.get("type")
        if isinstance(event_type, str) and event_type in RETIRED_EVENT_TYPES:
            new = self._reasoning_event(raw, event_type, notices)
        removed = null_fields(new)
        if removed:
            new = without_nulls(new)
            fields = ", ".join(f"`{name}: null`" for name in removed)
            notices.append(
                self._notice(TRANSLATED, f"removed retired optional {fields}", raw.location)
            )
        # After any other repair too: a second pass must find nothing left to repair.
        if event_type == "RUN_FINISHED" and not _text(new.get("threadId")):
            thread_id = self._run.thread_id or (
                _text(self.request.get("threadId")) if self.request else None
            )
            if thread_id is not None:
                new = _insert_after(new, "runId", "threadId", thread_id)
                notices.append(
                    self._notice(
                        INVENTED,
                        f"RUN_FINISHED had no threadId (TanStack's Python package);"
                        f" added {thread_id!r} from the run",
                        raw.location,
                    )
                )
        if new is data:
            return [raw]
        notices.append(RawEvent(raw.location, new, compact_json(new), raw.kind))
        return notices

    def _reasoning_event(
        self, raw: RawEvent, old_type: str, notices: list[Decoded]
    ) -> dict[str, Any]:
        data = raw.data
        new_type = RETIRED_EVENT_TYPES[old_type]
        index = raw.location.index if raw.location.index >= 0 else raw.location.offset
        new, minted = self._reasoning.rename(data, old_type, index)
        notices.append(self._notice(TRANSLATED, f"{old_type} → {new_type}", raw.location))
        if minted is not None:
            notices.append(
                self._notice(
                    INVENTED, f"{new_type} needs a messageId; minted {minted!r}", raw.location
                )
            )
        if old_type == "THINKING_START" and "title" in data:
            notices.append(
                self._notice(
                    LOST, "THINKING_START.title has no REASONING_START counterpart", raw.location
                )
            )
        return new

    def _notice(self, rule: str, message: str, location: Location) -> Problem:
        self.changed = True
        return Problem(rule, Severity.NOTICE, message, location)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _insert_after(data: dict[str, Any], after: str, key: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, item in data.items():
        if name == key:
            continue
        out[name] = item
        if name == after:
            out[key] = value
    if key not in out:
        out[key] = value
    return out


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _history_tool_calls(request: dict[str, Any] | None) -> frozenset[str]:
    """Tool-call ids already in the request history (a continuation re-announces them)."""
    if request is None:
        return frozenset()
    ids: set[str] = set()
    for message in _dicts(request.get("messages")):
        for call in _dicts(message.get("toolCalls")):
            if isinstance(call.get("id"), str):
                ids.add(call["id"])
        for part in _dicts(message.get("parts")):
            if part.get("type") == "tool-call" and isinstance(part.get("id"), str):
                ids.add(part["id"])
    return frozenset(ids)


def _wire_message(message: dict[str, Any], run_id: str | None, index: int) -> dict[str, Any]:
    """A request message in AG-UI wire form (legacy UIMessages carry `parts`/`createdAt`)."""
    wire: dict[str, Any] = {}
    if not isinstance(message.get("id"), str):
        wire["id"] = f"snapshot_{run_id or 'run'}_{index}"
    metadata = message.get("metadata")
    created = message.get("createdAt")
    for key in _WIRE_MESSAGE_KEYS:
        if key == "role" and isinstance(created, str) and not isinstance(metadata, dict):
            # 0.33.2's wire form carries the creation time here (protocol.md §4.1).
            wire["metadata"] = {"tanstack": {"createdAt": created}}
        elif key == "role" and isinstance(metadata, dict):
            wire["metadata"] = metadata
        if key in message and message[key] is not None:
            wire[key] = message[key]
    parts = _dicts(message.get("parts"))
    if "content" not in wire and message.get("role") != "assistant":
        texts = [p["content"] for p in parts if p.get("type") == "text" and "content" in p]
        if texts:
            wire["content"] = "".join(str(text) for text in texts)
    if "toolCalls" not in wire and message.get("role") == "assistant":
        calls = [
            {
                "id": p["id"],
                "type": "function",
                "function": {"name": p.get("name", ""), "arguments": p.get("arguments", "{}")},
            }
            for p in parts
            if p.get("type") == "tool-call" and isinstance(p.get("id"), str)
        ]
        if calls:
            wire["toolCalls"] = calls
    return wire


def translate_items(
    items: Iterable[RawEvent | EndOfStream | Problem],
    *,
    tools: list[dict[str, Any]] | None = None,
    request: dict[str, Any] | None = None,
) -> Iterator[RawEvent | EndOfStream | Problem]:
    """The raw-object stage for `replay.wire.events.decode_events(transform=...)`.

    Yields native events in place of legacy ones (a synthesised event carries the
    location of the legacy event it replaces and its compact JSON as `text`), passes
    everything else through as the same object, and reports each change as a
    `Problem` notice with rule `translated`, `invented` or `lost`.
    """
    translator = Translator(tools=tool_map(tools), request=request)
    for item in items:
        yield from translator.feed(item)
    yield from translator.finish()


def translate_stream(
    chunks: Iterable[bytes],
    *,
    source: str,
    tools: list[dict[str, Any]] | None = None,
    request: dict[str, Any] | None = None,
    translator: Translator | None = None,
    start: Position | None = None,
) -> Iterator[bytes | Problem]:
    """Translate a recording given as byte chunks; yields output bytes and notices.

    Every byte of a message the translator passes through — and every byte between
    messages (comments, stray blank lines) — is copied verbatim, so a native stream
    comes out byte-identical. Memory holds the bytes of at most one run's pending events.
    """
    state = translator or Translator(tools=tool_map(tools), request=request)
    yield from rewrite_stream(chunks, source=source, stage=state, start=start or Position())
