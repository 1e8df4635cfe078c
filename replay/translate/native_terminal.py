"""The native terminal of one paused legacy run: the events a legacy pause becomes.

A legacy run pauses with a `RUN_FINISHED` (`finishReason: "tool_calls"`) and trailing
`approval-requested` / `tool-input-available` events; the native one with a
`MESSAGES_SNAPSHOT` and a `RUN_FINISHED` whose outcome lists the interrupts, exactly as
`@tanstack/ai` 0.58.0 emits them (protocol.md §6.4). This module builds those events,
the interrupt descriptors among them, and the notices saying what was invented or lost.
"""

from __future__ import annotations

from typing import Any

from replay.interrupts.descriptors import (
    ToolDefinition,
    approval_descriptor,
    client_tool_descriptor,
)
from replay.translate.notices import INVENTED, LOST, TRANSLATED, Notify
from replay.translate.run_record import RunRecord, ToolCall, text
from replay.translate.snapshot import history_tool_calls, snapshot_messages
from replay.wire.canonical import as_javascript_reads, compact_json
from replay.wire.events import Decoded, RawEvent
from replay.wire.legacy import LegacyRequest
from replay.wire.problems import Location
from replay.wire.retired_shapes import null_fields, without_nulls

# RUN_FINISHED keys the AG-UI spec defines (ai:utilities/spec-event-keys.ts); anything
# else moves under `metadata.tanstack`, as TanStack's wire normaliser does.
_FINISH_SPEC_KEYS = ("type", "runId", "threadId", "timestamp", "result", "outcome", "usage")
_SHARED_KEYS = frozenset({"type", "timestamp", "rawEvent", "metadata"})


class TerminalBuilder:
    """Builds the native terminal of each paused run for one translator (its tools file,
    its request body, its notices)."""

    def __init__(
        self,
        *,
        tools: dict[str, ToolDefinition] | None,
        request: dict[str, Any] | None,
        notify: Notify,
    ) -> None:
        self.tools = tools
        self.request = request
        self._notify = notify
        self._history_calls = history_tool_calls(request)

    def build(
        self,
        run: RunRecord,
        anchor: RawEvent,
        finish: RawEvent | None,
        batch: list[tuple[LegacyRequest, RawEvent]],
    ) -> list[Decoded]:
        """The notices, then the events, that replace a legacy pause anchored at `anchor`:
        `RUN_STARTED` when the run never started, `MESSAGES_SNAPSHOT`, `RUN_FINISHED`."""
        request = self.request or {}
        location = anchor.location
        out: list[Decoded] = []
        # Read as JavaScript reads the legacy finish: a field of `1e400` is Infinity, which
        # the native event would write as `null`, and a retired `null` a second
        # translation removes; so it is left out now, as a missing one is (idempotence).
        finish_data = as_javascript_reads(finish.data) if finish is not None else {}
        thread_id = text(finish_data.get("threadId")) or run.thread_id
        thread_from = "the run's RUN_STARTED"
        if thread_id is None and text(request.get("threadId")):
            thread_id, thread_from = str(request["threadId"]), "the request"
        if thread_id is None:
            thread_id, thread_from = "agui-translated-thread", "nothing (minted)"
        if finish is not None and not text(finish_data.get("threadId")):
            out.append(
                self._notify(
                    INVENTED,
                    f"RUN_FINISHED had no threadId; took {thread_id!r} from {thread_from}",
                    location,
                )
            )
        run_id = text(finish_data.get("runId")) or run.run_id or text(request.get("runId"))
        if run_id is None:
            run_id = f"agui-translated-run-{location.offset}"
            out.append(self._notify(INVENTED, f"no run id known; minted {run_id!r}", location))
        interrupted = text(request.get("runId")) or run_id
        timestamp = finish_data.get(
            "timestamp", as_javascript_reads(batch[0][1].data.get("timestamp"))
        )

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
                self._notify(
                    INVENTED,
                    "synthesised RUN_STARTED: the legacy stream sent the pause without a run",
                    location,
                )
            )
        snapshot: dict[str, Any] = {"type": "MESSAGES_SNAPSHOT"}
        if timestamp is not None:
            snapshot["timestamp"] = timestamp
        messages, source = snapshot_messages(run, self.request, self._history_calls)
        out.append(self._notify(INVENTED, f"synthesised MESSAGES_SNAPSHOT from {source}", location))
        snapshot["messages"] = messages
        events.append(snapshot)
        events.append(finish_event(finish_data, run_id, thread_id, timestamp, descriptors))
        ids = ", ".join(str(d["id"]) for d in descriptors)
        what = "legacy RUN_FINISHED" if finish is not None else "legacy pause events"
        out.append(
            self._notify(
                TRANSLATED,
                f"{what} → MESSAGES_SNAPSHOT + RUN_FINISHED interrupt ({ids})",
                location,
            )
        )
        for event in events:
            # The request's messages come as the client sent them: a media part's retired
            # `metadata: null` is left out, as the native server's inbound boundary leaves
            # it out, or a second translation would remove it (idempotence).
            if null_fields(event):
                event = without_nulls(event)
            out.append(RawEvent(location, event, compact_json(event), anchor.kind))
        return out

    def _descriptors(
        self,
        batch: list[tuple[LegacyRequest, RawEvent]],
        run: RunRecord,
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
                        self._notify(
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
                    self._notify(
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
                self._notify(
                    TRANSLATED,
                    f"{legacy.name}{shape} for {legacy.tool_name} ({legacy.tool_call_id})"
                    f" → interrupt {descriptor['id']}",
                    raw.location,
                )
            )
            if legacy.dropped:
                dropped = ", ".join(legacy.dropped)
                out.append(
                    self._notify(LOST, f"no native counterpart, dropped: {dropped}", raw.location)
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
        self, call: ToolCall, run_id: str, out: list[Decoded], location: Location
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
                self._notify(
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
            self._notify(
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
                self._notify(
                    LOST,
                    f"tool {name!r} is not in the tools file: its interrupt has no"
                    " tanstack:interruptBinding or responseSchema",
                    location,
                )
            )
        return tool


def finish_event(
    finish: dict[str, Any],
    run_id: str,
    thread_id: str,
    timestamp: Any,
    descriptors: list[dict[str, Any]],
) -> dict[str, Any]:
    """The native `RUN_FINISHED`: an interrupt outcome, and every field the legacy finish
    had that AG-UI does not define moved under `metadata.tanstack`."""
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
