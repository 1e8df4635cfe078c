"""The paused run a continuation resumes, and how it is read from a recording.

A `PausedRun` holds what the continuation body needs (ids, interrupts, history, tools,
forwarded props); `read_runs`, `choose_run` and `paused_run_from` find it in a recording.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.interrupts.descriptor_reader import binding_of
from replay.runs.transcript import Outcome, RunTranscript, TranscriptBuilder
from replay.wire.errors import InvalidRequest
from replay.wire.events import RecordedEvent, decode_events
from replay.wire.problems import Location, Problem
from replay.wire.recording import Exchange


@dataclass(frozen=True, slots=True)
class PausedRun:
    """What a continuation needs to know about the run that paused."""

    thread_id: str
    run_id: str
    """The interrupted *request's* run id: the continuation's `parentRunId`."""
    interrupts: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, Any], ...]
    tools: tuple[Any, ...] = ()
    forwarded_props: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where the run came from, for messages: `run.sse: run run-1`."""
    tool_call_metadata: dict[str, Any] = field(default_factory=dict)
    """TOOL_CALL_START metadata of calls whose result streamed before the snapshot.

    The client keeps it on the tool-call part and re-sends it as
    `metadata.tanstack.toolCallMetadata` on the assistant message.
    """


@dataclass(frozen=True, slots=True)
class RecordingRuns:
    """Every run of a recording, with the per-run extras the client would have seen."""

    runs: tuple[RunTranscript, ...]
    problems: tuple[Problem, ...]
    tool_call_metadata: dict[Location, dict[str, Any]]
    """Per interrupt terminal: START metadata of calls with a result before the snapshot."""


def read_runs(exchanges: Iterable[Exchange]) -> RecordingRuns:
    """Fold a recording into runs, remembering what `toolCallMetadata` needs."""
    builder = TranscriptBuilder()
    runs: list[RunTranscript] = []
    problems: list[Problem] = []
    starts: dict[str, Any] = {}
    results: set[str] = set()
    at_snapshot: dict[str, Any] = {}
    by_terminal: dict[Location, dict[str, Any]] = {}

    def collect(items: Iterable[RunTranscript | Problem]) -> None:
        for item in items:
            if isinstance(item, Problem):
                problems.append(item)
            else:
                runs.append(item)

    for exchange in exchanges:
        collect(builder.begin_exchange(exchange))
        for item in decode_events(exchange.source, exchange.messages):
            if isinstance(item, RecordedEvent):
                data, kind = item.data, item.type
                call_id = data.get("toolCallId")
                if kind == "TOOL_CALL_START" and isinstance(call_id, str):
                    if isinstance(data.get("metadata"), dict):
                        starts[call_id] = data["metadata"]
                elif kind == "TOOL_CALL_RESULT" and isinstance(call_id, str):
                    results.add(call_id)
                elif kind == "MESSAGES_SNAPSHOT":
                    at_snapshot = {i: starts[i] for i in results if i in starts}
                elif kind == "RUN_FINISHED":
                    by_terminal[item.location] = at_snapshot
                    at_snapshot = {}
            collect(builder.add(item))
    collect(builder.finish())
    return RecordingRuns(tuple(runs), tuple(problems), by_terminal)


def _interrupted_run_id(run: RunTranscript) -> str | None:
    for descriptor in run.interrupts:
        binding = binding_of(descriptor)
        value = binding.get("interruptedRunId") if binding is not None else None
        if isinstance(value, str) and value:
            return value
    return run.run_id


def continuation_of(runs: Sequence[RunTranscript], paused: RunTranscript) -> RunTranscript | None:
    """The later run of the timeline that answered `paused`, if any.

    A run whose request (or `RUN_STARTED`) names `paused` as its parent answered it. A
    later run on the same thread whose request was not recorded (a bare SSE file) is
    taken to have answered it too: answering twice runs the tools twice, so a doubt
    counts as answered and `--force` overrides it. A batch the server refused (a
    `RUN_ERROR` with `interruptErrors`, sent before anything ran, §5.3) answered nothing.
    """
    ids = {paused.run_id, _interrupted_run_id(paused)} - {None}
    later = False
    for run in runs:
        if run is paused:
            later = True
            continue
        if not later or _refused_batch(run):
            continue
        if run.parent_run_id is not None:
            if run.parent_run_id in ids:
                return run
        elif run.thread_id is not None and run.thread_id == paused.thread_id:
            return run
    return None


def _refused_batch(run: RunTranscript) -> bool:
    if run.outcome is not Outcome.ERROR or run.terminal is None:
        return False
    metadata = run.terminal.data.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    errors = tanstack.get("interruptErrors") if isinstance(tanstack, dict) else None
    return isinstance(errors, list) and bool(errors)


def _answered(run: RunTranscript, by: RunTranscript) -> str:
    where = str(by.start) if by.start is not None else by.source
    how = "" if by.parent_run_id is not None else " (a later run on its thread)"
    return f"run {run.run_id} was already resumed by run {by.run_id} at {where}{how}"


def choose_run(
    runs: Sequence[RunTranscript], run_id: str | None, *, force: bool = False
) -> RunTranscript:
    """The interrupted run to resume: the one named, else the newest paused run that no
    later run of the timeline answered. A run already answered is refused unless
    `force`: the server would execute its tools a second time."""
    paused = [r for r in runs if r.outcome is Outcome.INTERRUPT and r.interrupts]
    if run_id is not None:
        for run in runs:
            if run_id in (run.run_id, _interrupted_run_id(run)):
                if run not in paused:
                    raise InvalidRequest(
                        f"--run-id {run_id}: that run ended with {run.outcome.value}, "
                        "not an interrupt; nothing to resume"
                    )
                answered_by = continuation_of(runs, run)
                if answered_by is not None and not force:
                    raise InvalidRequest(
                        f"--run-id {run_id}: {_answered(run, answered_by)}; answering it again "
                        "runs its tools again (--force sends it anyway)"
                    )
                return run
        known = ", ".join(str(r.run_id) for r in runs) or "none"
        raise InvalidRequest(f"--run-id {run_id}: no such run in the recording (runs: {known})")
    if not paused:
        outcomes = ", ".join(f"{r.run_id}: {r.outcome.value}" for r in runs) or "no runs"
        # A legacy server pauses with approval events inside a finished run: say how to
        # get the interrupts, not only that there are none.
        hint = (
            "; it holds legacy approval events: translate it first "
            "(agui translate RECORDING --tools tools.json -o native.sse)"
            if any(r.legacy_events for r in runs)
            else ""
        )
        raise InvalidRequest(f"the recording has no paused run to resume ({outcomes}){hint}")
    newest: tuple[RunTranscript, RunTranscript] | None = None
    for run in reversed(paused):
        answered_by = continuation_of(runs, run)
        if answered_by is None:
            return run
        newest = newest or (run, answered_by)
    if force or newest is None:
        return paused[-1]
    run, answered_by = newest
    raise InvalidRequest(
        f"nothing left to resume: {_answered(run, answered_by)}; answering it again runs "
        f"its tools again (--run-id {run.run_id} --force sends it anyway)"
    )


def paused_run_from(
    run: RunTranscript,
    *,
    request: Mapping[str, Any] | None = None,
    tool_call_metadata: Mapping[str, Any] | None = None,
) -> PausedRun:
    """A `PausedRun` from a transcript; `request` overrides the recorded request body."""
    body: Mapping[str, Any] = request if request is not None else (run.request or {})
    run_id = _interrupted_run_id(run)
    if request is not None and isinstance(request.get("runId"), str):
        run_id = run_id or request["runId"]
    thread_id = run.thread_id or body.get("threadId")
    if not isinstance(thread_id, str) or not thread_id:
        raise InvalidRequest(
            f"{run.source}: the paused run names no threadId; pass --request with its request body"
        )
    if not run_id:
        raise InvalidRequest(
            f"{run.source}: the paused run has no run id; pass --request with its request body"
        )
    if run.snapshot is not None:
        messages = tuple(copy.deepcopy(dict(m)) for m in run.snapshot)
    else:
        messages = _messages_without_snapshot(run, body)
    tools = body.get("tools")
    forwarded = body.get("forwardedProps")
    return PausedRun(
        thread_id=thread_id,
        run_id=run_id,
        interrupts=tuple(copy.deepcopy(dict(d)) for d in run.interrupts),
        messages=messages,
        tools=tuple(copy.deepcopy(tools)) if isinstance(tools, list) else (),
        forwarded_props=copy.deepcopy(forwarded) if isinstance(forwarded, dict) else {},
        source=f"{run.source}: run {run_id}",
        tool_call_metadata=dict(tool_call_metadata or {}),
    )


def _messages_without_snapshot(
    run: RunTranscript, body: Mapping[str, Any]
) -> tuple[dict[str, Any], ...]:
    """No MESSAGES_SNAPSHOT: the request history plus the streamed assistant turn."""
    history = body.get("messages")
    messages = (
        [copy.deepcopy(m) for m in history if isinstance(m, dict)]
        if isinstance(history, list)
        else []
    )
    for text in run.messages:
        calls = [c for c in run.tool_calls if c.parent_message_id == text.id]
        message: dict[str, Any] = {"id": text.id, "role": text.role, "content": text.text}
        if calls:
            message["toolCalls"] = [_wire_call(c.id, c.name, c.arguments) for c in calls]
        messages.append(message)
    orphans = [c for c in run.tool_calls if c.parent_message_id not in {t.id for t in run.messages}]
    if orphans:
        messages.append(
            {
                "id": f"assistant-{run.run_id}",
                "role": "assistant",
                "toolCalls": [_wire_call(c.id, c.name, c.arguments) for c in orphans],
            }
        )
    return tuple(messages)


def _wire_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
