"""The `--native` bridge: a native client on one side, a legacy server on the other.

Down: the legacy stream is decoded as it arrives and run through `agui translate`'s
translator (`replay.translate.translation.Translator`), so the legacy `RUN_FINISHED` and its
`approval-requested` / `tool-input-available` events reach the client as the native
interrupt terminal, with every run id, thread id and binding bound to the client's own
request (`replay.serve.run_ids`). The `data: [DONE]` marker of old servers is dropped: the
native client would read it as a second terminal.

Up: a native continuation (`parentRunId` + `resume`) becomes the follow-up a legacy
server understands — the same conversation with the decisions written into it, the way
`@tanstack/ai-client` 0.22.1 wrote them (protocol.md §6.2): the assistant message gets
UIMessage `parts`, an answered approval is its tool-call part in `approval-responded`
state with the decision, a client tool's output is a `complete` tool-call part, a
`tool-result` part and a `tool` message. Everything needed travels in the request (the
interrupt ids are `approval_<toolCallId>` / `client_tool_<toolCallId>`, the tool calls
are in the history), so a restarted proxy bridges a pause it never saw. What a legacy
server cannot hear — a cancellation, edited arguments, a custom payload, a generic
interrupt — is refused with one `RUN_ERROR`, never dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any, Final

from replay.interrupts.descriptors import tool_map
from replay.proxy.answered_calls import answered_calls, as_native
from replay.proxy.tanstack_metadata import in_metadata
from replay.serve.run_ids import RunIds, rewrite_event
from replay.translate.translation import Translator
from replay.wire import bounded_json
from replay.wire.canonical import as_javascript_reads, compact_json, unencodable_at, wire_json
from replay.wire.events import EndOfStream, RawEvent, parse_messages
from replay.wire.sse import SseDecoder, SseMessage, encode_event

APPROVAL_PREFIX: Final = "approval_"
CLIENT_TOOL_PREFIX: Final = "client_tool_"
UNSUPPORTED: Final = "legacy-unsupported"
"""`RUN_ERROR.code` for an answer a legacy server cannot express (the client's own word)."""
PENDING_EXECUTION: Final = "pendingExecution"


class Unbridgeable(ValueError):
    """The continuation says something a legacy server cannot hear; the message says what."""


def is_continuation(body: dict[str, Any] | None) -> bool:
    return isinstance(body, dict) and bool(body.get("resume"))


def legacy_follow_up(body: dict[str, Any]) -> dict[str, Any]:
    """The legacy follow-up for a native continuation; `Unbridgeable` when there is none."""
    _check_writable(body)
    messages = [m for m in _list(body.get("messages")) if isinstance(m, dict)]
    calls = _tool_calls(messages)
    approvals: dict[str, tuple[str, bool]] = {}
    outputs: dict[str, Any] = {}
    for entry in _list(body.get("resume")):
        interrupt_id, call_id, kind = _target(entry, calls)
        status = entry.get("status")
        if status == "cancelled":
            raise Unbridgeable(
                f"interrupt {interrupt_id!r} was cancelled; a legacy server has no"
                " cancellation: approve or reject it instead"
            )
        if status != "resolved":
            raise Unbridgeable(f"interrupt {interrupt_id!r} has status {status!r}")
        payload = entry.get("payload")
        if kind == "approval":
            if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
                raise Unbridgeable(f"interrupt {interrupt_id!r}: the answer needs `approved`")
            extra = sorted(set(payload) - {"approved"})
            if extra:
                raise Unbridgeable(
                    f"interrupt {interrupt_id!r}: a legacy server cannot take"
                    f" {', '.join(extra)} with an approval; answer with approved only"
                )
            approvals[call_id] = (interrupt_id, payload["approved"])
        else:
            outputs[call_id] = payload
    out = {k: copy.deepcopy(v) for k, v in body.items() if k not in ("parentRunId", "resume")}
    out["messages"] = _history(messages, approvals, outputs)
    return out


def _check_writable(body: dict[str, Any]) -> None:
    """`Unbridgeable` for a body the follow-up could not be written from: Python's reader
    takes `NaN`, `Infinity` and numbers no double holds, which JSON cannot carry (and a
    JavaScript client never sends), and the copy and the encoder recurse once per level."""
    if bounded_json.deeper_than(body, bounded_json.MAX_DEPTH):
        raise Unbridgeable(f"the body is nested deeper than {bounded_json.MAX_DEPTH} levels")
    where = unencodable_at(body)
    if where is not None:
        raise Unbridgeable(
            f"`{where}` is NaN, Infinity or a number no double holds, which JSON cannot"
            " carry to a legacy server; send a finite number"
        )


def _list(value: Any) -> list[Any]:
    """A body's list field, or nothing: the body is the client's and may hold anything."""
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    """A string field, or None: a list or object there must not be looked up by value."""
    return value if isinstance(value, str) else None


def _tool_calls(messages: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every assistant tool call of the history, by id.

    Only `toolCalls`: a native client sends no UIMessage `parts`, and a message that
    already has parts keeps them as they are (`_history`), so a call named only in parts
    could not carry its decision to the legacy server; its answer is refused instead.
    """
    found: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in _list(message.get("toolCalls")):
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                found[call["id"]] = call
    return found


def _target(entry: Any, calls: dict[str, dict[str, Any]]) -> tuple[str, str, str]:
    """(interrupt id, tool call id, "approval" | "client-tool") for one resume entry."""
    interrupt_id = entry.get("interruptId") if isinstance(entry, dict) else None
    if not isinstance(interrupt_id, str):
        raise Unbridgeable("a resume entry has no interruptId")
    for prefix, kind in ((APPROVAL_PREFIX, "approval"), (CLIENT_TOOL_PREFIX, "client-tool")):
        call_id = interrupt_id.removeprefix(prefix)
        if interrupt_id.startswith(prefix) and call_id in calls:
            return interrupt_id, call_id, kind
    raise Unbridgeable(
        f"interrupt {interrupt_id!r} is not a tool approval or client tool of this"
        " conversation; a legacy server has no other interrupts"
    )


def _history(
    messages: list[dict[str, Any]],
    approvals: dict[str, tuple[str, bool]],
    outputs: dict[str, Any],
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for original in messages:
        message = copy.deepcopy(original)
        role = message.get("role")
        if role == "tool":
            call_id = _text(message.get("toolCallId"))
            # The native client's placeholder for an approved call ("pendingExecution")
            # would read as the tool's result; the decision goes into the parts instead.
            if call_id in approvals or _is_placeholder(message):
                continue
            out.append(message)
            continue
        if "parts" not in message:
            message["parts"] = _parts(message, approvals, outputs)
        out.append(message)
    return out


def _is_placeholder(message: dict[str, Any]) -> bool:
    try:
        content = bounded_json.loads(message.get("content") or "")
    except (TypeError, ValueError):
        return False
    return isinstance(content, dict) and content.get(PENDING_EXECUTION) is True


def _parts(
    message: dict[str, Any], approvals: dict[str, tuple[str, bool]], outputs: dict[str, Any]
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    content = message.get("content")
    if isinstance(content, str) and content:
        parts.append({"type": "text", "content": content})
    results: list[dict[str, Any]] = []
    for call in _list(message.get("toolCalls")):
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        arguments = function.get("arguments") if isinstance(function, dict) else None
        part: dict[str, Any] = {
            "type": "tool-call",
            "id": call.get("id"),
            "name": function.get("name") if isinstance(function, dict) else None,
            "arguments": arguments,
            "state": "input-complete",
            "input": _parsed(arguments),
        }
        call_id = _text(call.get("id"))
        if call_id in approvals:
            interrupt_id, approved = approvals[call_id]
            part["state"] = "approval-responded"
            part["approval"] = {"id": interrupt_id, "needsApproval": True, "approved": approved}
        elif call_id in outputs:
            part["state"] = "complete"
            part["output"] = outputs[call_id]
            results.append(
                {
                    "type": "tool-result",
                    "toolCallId": call_id,
                    "content": wire_json(outputs[call_id]),
                    "state": "complete",
                }
            )
        parts.append(part)
    return parts + results


def _parsed(arguments: Any) -> Any:
    """The part's `input`: the arguments as the client's `JSON.parse` reads them (a
    `1e400` there is Infinity, which the follow-up carries as JSON.stringify writes it,
    null), or the text itself when it is no JSON."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return as_javascript_reads(bounded_json.loads(arguments))
    except ValueError:
        return arguments


class NativeStream:
    """Legacy SSE bytes in, native SSE bytes out, bound to the client's request ids."""

    def __init__(self, request: dict[str, Any] | None, tools: Any = None) -> None:
        self._decoder = SseDecoder()
        self._translator = Translator(tools=tool_map(tools), request=request)
        self._answered = answered_calls(request)
        run_id = request.get("runId") if isinstance(request, dict) else None
        thread_id = request.get("threadId") if isinstance(request, dict) else None
        self._ids = (
            RunIds(run_id, thread_id, None)
            if isinstance(run_id, str) and isinstance(thread_id, str)
            else None
        )

    def feed(self, chunk: bytes) -> bytes:
        return self._emit(self._decoder.feed(chunk), final=False)

    def close(self) -> bytes:
        return self._emit(self._decoder.close(), final=True)

    def _emit(self, messages: list[SseMessage], *, final: bool) -> bytes:
        out: list[bytes] = []
        for item in parse_messages("upstream", messages):
            out.extend(self._encode(self._translator.feed(item)))
        if final:
            out.extend(self._encode(self._translator.finish()))
        return b"".join(out)

    def _encode(self, items: Iterable[Any]) -> Iterator[bytes]:
        for item in items:
            if isinstance(item, EndOfStream) or not isinstance(item, RawEvent):
                continue  # `[DONE]` and the translator's notices stay on this side
            data = as_native(item.data, self._answered) if self._answered else item.data
            if data is None:
                continue  # a legacy continuation's replay of an answered call
            data = in_metadata(data)
            rewritten = rewrite_event(data, self._ids) if self._ids is not None else None
            if rewritten is None and data is not item.data:
                rewritten = data
            # (compact_json: the upstream's `1e400` is Infinity to JavaScript, written null)
            text = item.text if rewritten is None else compact_json(rewritten)
            yield encode_event(text).encode("utf-8")
