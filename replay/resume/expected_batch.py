"""The tool-call part of the batch a TanStack server expects, rebuilt from the history.

The server keeps no state between runs: it rebuilds the pending batch from the
submitted `messages` (protocol.md §5.1). An `approval_<id>` or `client_tool_<id>` answer
whose tool call is not in that history is refused as `unknown-interrupt`, and a call
left pending in the history without an answer makes the batch incomplete. A hand-built
resume (no recording) can get either wrong, so these are checked before anything is sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replay.interrupts.descriptor_reader import InterruptKind, kind_of
from replay.resume.continuation import descriptor_id, tool_call_id_of
from replay.wire import bounded_json

TOOL_ID_PREFIXES = ("approval_", "client_tool_")
"""How TanStack names tool-call interrupts: the prefix, then the tool call id."""


@dataclass(frozen=True, slots=True)
class HistoryCall:
    """An assistant tool call of the history and whether a tool message completed it."""

    id: str
    name: str
    completed: bool


def history_calls(messages: Sequence[Mapping[str, Any]]) -> dict[str, HistoryCall]:
    """Every assistant tool call of the history the server could wait on, in order, by id.

    As `getPendingToolCallsFromMessages` (`@tanstack/ai` 0.58.0): a `role:"tool"`
    message completes its call unless its content is the client's synthetic approval
    marker (`pendingExecution: true`, §4.5), and provider-executed calls
    (`metadata.providerExecuted`) are never pending nor answerable. Only `toolCalls`
    count: `chatParamsFromRequest` drops UIMessage `parts` before the server reads the
    history, so a call named only there is unknown to it (unlike `agui replay`'s check of
    a 0.42.0 follow-up, `replay.runs.history_tool_calls`, whose server reads parts).
    """
    hosted = _provider_executed(messages)
    names: dict[str, str] = {}
    for message in messages:
        calls = message.get("toolCalls") if message.get("role") == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            if (
                isinstance(call, dict)
                and isinstance(call.get("id"), str)
                and call["id"] not in hosted
            ):
                function = call.get("function")
                name = function.get("name") if isinstance(function, dict) else None
                names.setdefault(call["id"], name if isinstance(name, str) else "?")
    completed = {
        str(m.get("toolCallId"))
        for m in messages
        if m.get("role") == "tool" and not _pending_execution(m)
    }
    return {i: HistoryCall(i, name, i in completed) for i, name in names.items()}


def _provider_executed(messages: Sequence[Mapping[str, Any]]) -> set[str]:
    found: set[str] = set()
    for message in messages:
        calls = message.get("toolCalls") if message.get("role") == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            metadata = call.get("metadata") if isinstance(call, dict) else None
            if isinstance(metadata, dict) and metadata.get("providerExecuted") is True:
                found.add(str(call.get("id")))
    return found


def _pending_execution(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    if not isinstance(content, str) or "pendingExecution" not in content:
        return False
    try:
        parsed = bounded_json.loads(content)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("pendingExecution") is True


def tool_call_of(descriptor: Mapping[str, Any]) -> str | None:
    """The tool call a tool-call interrupt answers: from its binding, else from its id."""
    kind = kind_of(descriptor)
    if kind is InterruptKind.GENERIC:
        return None
    if kind in (InterruptKind.TOOL_APPROVAL, InterruptKind.CLIENT_TOOL):
        found = tool_call_id_of(descriptor)
        if found is not None:
            return found
    identifier = descriptor_id(descriptor)
    for prefix in TOOL_ID_PREFIXES:
        if identifier.startswith(prefix) and len(identifier) > len(prefix):
            return identifier[len(prefix) :]
    return None


def history_refusals(
    descriptors: Sequence[Mapping[str, Any]],
    answered: Sequence[str],
    messages: Sequence[Mapping[str, Any]],
) -> list[str]:
    """Why the server would refuse this batch for the history it is sent with; [] if not.

    `answered` are the interrupt ids the batch answers. Checked: every answered
    tool-call interrupt names a call of the history, and (when no generic item is
    answered, so no client tool may wait) every call still pending in the history is
    answered.
    """
    calls = history_calls(messages)
    by_id = {descriptor_id(d): d for d in descriptors}
    lines: list[str] = []
    named: set[str] = set()
    generic_answered = False
    for interrupt_id in answered:
        descriptor = by_id.get(interrupt_id, {"id": interrupt_id})
        if kind_of(descriptor) is InterruptKind.GENERIC:
            generic_answered = True
        call_id = tool_call_of(descriptor)
        if call_id is None:
            continue
        named.add(call_id)
        if call_id in _provider_executed(messages):
            lines.append(
                f"{interrupt_id}: the tool call `{call_id}` ran at the model provider "
                "(providerExecuted); the server never waits on it and would refuse the answer "
                "as unknown-interrupt — drop it"
            )
        elif call_id not in calls:
            lines.append(
                f"{interrupt_id}: the history has no assistant tool call `{call_id}`; the "
                "server rebuilds the batch from the submitted history and would refuse it as "
                "unknown-interrupt — pass --messages FILE.json with the conversation up to the "
                "paused turn (`agui replay --export messages RECORDING` writes it)"
            )
    if not generic_answered:
        for call in calls.values():
            if not call.completed and call.id not in named:
                lines.append(
                    f"the history has a pending tool call `{call.id}` ({call.name}) that no "
                    f"answer names; the server expects approval_{call.id} or "
                    f"client_tool_{call.id} in the batch and would refuse it as incomplete — "
                    "answer it, or leave that turn out of --messages"
                )
    return lines
