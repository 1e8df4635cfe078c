"""Interrupt and resume checks over finished runs, streaming, with a compact run index.

`Checker` sees each `RunTranscript` once, as the transcript builder hands it over. It
checks the run's interrupt descriptors (ids, reasons, tool-call ids, `expiresAt`, the
TanStack binding's reader rules) and, for a continuation, validates its `resume` batch
against the interrupted run exactly as the TanStack server would (`replay.interrupts.batch`). To
do that without holding every transcript it keeps one small `RunEntry` per run: ids,
outcome, its own tool-call ids and, for a paused run, its descriptors as compressed
JSON. The index is bounded (least recently used runs are evicted) so memory stays flat
however long the recording is.

Kept whole (about 410 lines): `Checker` is one streaming state machine, and its
per-source, per-exchange and per-run bookkeeping and the run index it judges
continuations by change together.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from replay.interrupts.batch import validate_batch
from replay.interrupts.binding import binding_problems, is_int, non_empty
from replay.interrupts.descriptor_reader import BINDING_KEY, parse_expires_at
from replay.interrupts.interrupt_errors import InterruptError
from replay.runs.rules import RULES_BY_ID, finding
from replay.runs.run_entry import RunEntry, message_tool_calls, own_tool_calls
from replay.runs.run_index import RunIndex
from replay.runs.terminal_blocks import TerminalBlock, TerminalText
from replay.runs.transcript import Outcome, RunTranscript
from replay.wire.events import EndOfStream, RecordedEvent
from replay.wire.problems import Location, Problem

MAX_INDEXED_RUNS = 20_000
"""Runs remembered for ancestor look-ups; older ones are forgotten (their continuations
then get a `resume-parent-not-recorded` notice instead of a batch check)."""
MAX_ANCESTRY = 256
"""Longest parentRunId chain followed; guards against cycles in hostile recordings."""


_NO_TOOL_CALLS: tuple[str, ...] = ()


def _shared(value: str | None) -> str | None:
    return None if value is None else sys.intern(value)


def _timestamp(event: RecordedEvent | None) -> datetime | None:
    value = event.data.get("timestamp") if event is not None else None
    if not is_int(value) or value <= 0:
        return None  # absent, or a placeholder (`--normalize` writes 0)
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


class Checker:
    """Feed it the pipeline as it runs; it returns interrupt, resume and emptiness findings.

    `now` is used only when a continuation carries no timestamp to judge `expiresAt` by;
    otherwise the recorded time of the continuation is the moment the server decided.
    """

    def __init__(
        self,
        *,
        now: Callable[[], datetime] | None = None,
        max_runs: int = MAX_INDEXED_RUNS,
        index: RunIndex[RunEntry] | None = None,
    ) -> None:
        """`index`: where runs are remembered (a helper process passes one that notes
        what is looked up; `replay.large.settle`)."""
        self._now = now or (lambda: datetime.now(UTC))
        self._max_runs = max_runs
        self._index: RunIndex[RunEntry] = RunIndex() if index is None else index
        self._block = TerminalBlock()
        """Where paused runs' terminal texts go (sealed and replaced when full)."""
        self._source: str | None = None
        self._source_exchanges = 0
        self._exchange: str | None = None
        self._items = 0
        self._events = 0

    # -- emptiness ---------------------------------------------------------------------

    def begin_source(self, name: str) -> list[Problem]:
        """A recording argument starts; the previous one (and its last exchange) ends."""
        out = self.end_source()
        self._source = name
        self._source_exchanges = 0
        return out

    def end_source(self) -> list[Problem]:
        """The current recording argument is done: was there anything in it at all?"""
        out = self._end_exchange()
        if self._source is not None and self._source_exchanges == 0:
            out.append(
                finding(
                    "no-run",
                    "the recording has no event-stream response, so no run",
                    Location(self._source),
                )
            )
        self._source = None
        return out

    def begin_exchange(self, source: str) -> list[Problem]:
        """A response stream starts (a file, stdin, or one HAR entry)."""
        out = self._end_exchange()
        self._exchange = source
        self._source_exchanges += 1
        self._items = 0
        self._events = 0
        return out

    def observe(self, item: object) -> None:
        """Count what the decoder produced for the current exchange.

        Only whether anything, and any event, was read matters: once an event has been
        observed in an exchange, callers may stop calling this for the rest of it.
        """
        self._items += 1
        if not isinstance(item, EndOfStream | Problem):  # an event, or several
            self._events += 1

    def _end_exchange(self) -> list[Problem]:
        source, self._exchange = self._exchange, None
        if source is None or self._events:
            return []
        if not self._items:
            return [finding("empty-recording", "the recording holds no events", Location(source))]
        return [finding("no-run", "no event could be read, so there is no run", Location(source))]

    def finish(self) -> list[Problem]:
        """End of the whole timeline."""
        return self.end_source()

    # -- runs --------------------------------------------------------------------------

    def run(self, transcript: RunTranscript) -> list[Problem]:
        """Check one finished run and remember what its continuations will need."""
        own = own_tool_calls(transcript)
        problems = self._interrupt_problems(transcript, own)
        if transcript.request is not None:  # only a continuation's request has `resume`
            problems.extend(self._resume_problems(transcript))
        self._remember(transcript, own)
        return problems

    def knows_any(self, run_ids: Iterable[str]) -> bool:
        """Whether any of these runs is remembered."""
        index = self._index
        return any(run_id in index for run_id in run_ids)

    def adopt(self, entries: Iterable[tuple[str, RunEntry]]) -> None:
        """Remember runs checked elsewhere (`replay.large.settle.Settled`), in order."""
        index = self._index
        index.store_all(entries)
        if len(index) > self._max_runs:
            index.evict_to(self._max_runs)

    def entry(self, run_id: str) -> RunEntry | None:
        """The remembered summary of a run, if it is still indexed."""
        entry = self._index.get(run_id)
        if entry is not None:
            self._index.move_to_end(run_id)
        return entry

    def _remember(self, transcript: RunTranscript, ids: set[str]) -> None:
        kept: TerminalText | None = None
        if transcript.outcome is Outcome.INTERRUPT and transcript.terminal is not None:
            block = self._block
            kept = (block, *block.add(transcript.terminal.text.encode("utf-8", "surrogatepass")))
            if block.full:
                self.seal()
        run_id = transcript.run_id
        keys: Iterable[str | None]
        if transcript.request is None:  # a recording file's runs: no request body
            keys = () if run_id is None else (run_id,)
        else:
            keys = {run_id, _request_text(transcript, "runId")} - {None}
        # Thread and parent ids are shared (interned): a thread's runs name the same
        # thread, and a continuation names its parent. Keys are not: each is one run's
        # own, and 20,000 more interned strings would double the interpreter's table of
        # them (about 1 MB) for nothing.
        thread = _shared(transcript.thread_id)
        parent = _shared(transcript.parent_run_id)
        tool_calls = tuple(ids) if ids else _NO_TOOL_CALLS
        index = self._index
        for key in keys:
            assert key is not None
            index.store(key, RunEntry(key, thread, parent, transcript.outcome, tool_calls, kept))
        if len(index) > self._max_runs:
            index.evict_to(self._max_runs)

    def seal(self) -> None:
        """Compress the paused runs' terminals gathered so far (before sending them)."""
        self._block.seal()
        self._block = TerminalBlock()

    def _known_tool_calls(self, transcript: RunTranscript, own: set[str]) -> set[str]:
        known = set(own)
        messages = (transcript.request or {}).get("messages")
        if isinstance(messages, list):
            known |= message_tool_calls(messages)
        parent = transcript.parent_run_id
        seen: set[str] = set()
        while parent is not None and parent not in seen and len(seen) < MAX_ANCESTRY:
            seen.add(parent)
            entry = self._index.get(parent)
            if entry is None:
                break
            known.update(entry.tool_call_ids)
            parent = entry.parent_run_id
        return known

    def _interrupt_problems(self, transcript: RunTranscript, own: set[str]) -> list[Problem]:
        terminal = transcript.terminal
        if terminal is None:
            return []
        data = terminal.data
        if data.get("type") != "RUN_FINISHED":
            return []
        outcome = data.get("outcome")
        if isinstance(outcome, dict):
            if outcome.get("type") == "interrupt":
                raw = outcome.get("interrupts")
                if not isinstance(raw, list) or not raw:
                    return [
                        finding(
                            "empty-interrupts",
                            f"run {transcript.run_id or '?'} pauses with an interrupt outcome"
                            " but lists no interrupts",
                            terminal.location,
                        )
                    ]
                return self._descriptor_problems(transcript, own, raw, terminal.location)
            carried = outcome.get("interrupts") or data.get("interrupts")
        else:
            carried = data.get("interrupts")
        if not carried:
            return []
        kind = outcome.get("type") if isinstance(outcome, dict) else None
        said = f"a {kind!r} outcome" if kind else "no outcome (success)"
        return [
            finding(
                "success-with-interrupts",
                f"run {transcript.run_id or '?'} finishes with {said} but carries interrupts;"
                ' use `outcome: {"type": "interrupt", ...}` to pause',
                terminal.location,
            )
        ]

    def _descriptor_problems(
        self, transcript: RunTranscript, own: set[str], raw: list[Any], where: Location
    ) -> list[Problem]:
        problems: list[Problem] = []
        seen: set[str] = set()
        known: set[str] | None = None
        for position, descriptor in enumerate(raw):
            if not isinstance(descriptor, dict):
                problems.append(
                    finding("interrupt-missing-id", f"interrupt {position} is not an object", where)
                )
                continue
            # Findings name the descriptor by its id, else by its position; most
            # descriptors have none, so the label is worded only for a finding.
            interrupt_id = descriptor.get("id")
            if not isinstance(interrupt_id, str) or not interrupt_id:
                named = False
                problems.append(
                    finding(
                        "interrupt-missing-id", f"interrupt {position} has no string `id`", where
                    )
                )
            else:
                named = True
                if interrupt_id in seen:
                    problems.append(
                        finding(
                            "duplicate-interrupt-id",
                            f"interrupt {interrupt_id!r} appears twice in one batch; answers"
                            " could not tell them apart",
                            where,
                        )
                    )
                seen.add(interrupt_id)
            reason = descriptor.get("reason")
            if not isinstance(reason, str) or not reason:
                label = _label(position, interrupt_id, named)
                problems.append(
                    finding("interrupt-missing-reason", f"{label} has no string `reason`", where)
                )
            call_id = descriptor.get("toolCallId")
            if call_id is not None:
                if known is None:
                    known = self._known_tool_calls(transcript, own)
                if call_id not in known:
                    label = _label(position, interrupt_id, named)
                    problems.append(
                        finding(
                            "unknown-interrupt-tool-call",
                            f"{label} names toolCallId {call_id!r}, which no tool call of this"
                            " run or its ancestors has",
                            where,
                        )
                    )
            if "expiresAt" in descriptor:
                expires_at = descriptor["expiresAt"]
                if not isinstance(expires_at, str) or parse_expires_at(expires_at) is None:
                    label = _label(position, interrupt_id, named)
                    problems.append(
                        finding(
                            "invalid-expires-at",
                            f"{label} has expiresAt {expires_at!r}, which is not a date",
                            where,
                        )
                    )
            metadata = descriptor.get("metadata")
            if isinstance(metadata, dict) and BINDING_KEY in metadata:
                binding = metadata[BINDING_KEY]
                reasons = binding_problems(descriptor, binding)
                if reasons:
                    label = _label(position, interrupt_id, named)
                    for reason in reasons:
                        problems.append(
                            finding("invalid-binding", f"{label}: binding {reason}", where)
                        )
                bound_run = binding.get("interruptedRunId") if isinstance(binding, dict) else None
                if non_empty(bound_run):
                    run_ids = {transcript.run_id, _request_text(transcript, "runId")} - {None}
                    if run_ids and bound_run not in run_ids:
                        label = _label(position, interrupt_id, named)
                        problems.append(
                            finding(
                                "binding-run-mismatch",
                                f"{label}: binding interruptedRunId {bound_run!r} is not this"
                                f" run ({' / '.join(sorted(str(r) for r in run_ids))})",
                                where,
                            )
                        )
        return problems

    def _resume_problems(self, transcript: RunTranscript) -> list[Problem]:
        request = transcript.request
        if request is None:
            return []
        raw_resume = request.get("resume")
        if not isinstance(raw_resume, list) or not raw_resume:
            return []
        where = transcript.start
        run = transcript.run_id or "?"
        problems: list[Problem] = []
        for position, entry in enumerate(raw_resume):
            if not isinstance(entry, dict) or not isinstance(entry.get("interruptId"), str):
                problems.append(
                    finding(
                        "resume-unknown-interrupt",
                        f"run {run}: resume entry {position} has no string `interruptId`",
                        where,
                    )
                )
        parent_id = request.get("parentRunId")
        if not non_empty(parent_id):
            problems.append(
                finding(
                    "resume-without-parent",
                    f"run {run} sends `resume` without `parentRunId`; TanStack answers with a"
                    ' RUN_ERROR "stale"',
                    where,
                )
            )
            return problems
        parent = self.entry(parent_id)
        if parent is None:
            problems.append(
                finding(
                    "resume-parent-not-recorded",
                    f"run {run} resumes run {parent_id}, which is not in the recording; add it"
                    " before this one to check the batch",
                    where,
                )
            )
            return problems
        thread = transcript.thread_id or _request_text(transcript, "threadId")
        if thread is not None and parent.thread_id is not None and thread != parent.thread_id:
            problems.append(
                finding(
                    "resume-thread-mismatch",
                    f"run {run} (thread {thread}) resumes run {parent_id} of thread"
                    f" {parent.thread_id}",
                    where,
                )
            )
            return problems
        if parent.outcome is not Outcome.INTERRUPT:
            problems.append(
                finding(
                    "resume-parent-not-interrupted",
                    f"run {run} resumes run {parent_id}, which ended with"
                    f" {parent.outcome.value}, not an interrupt",
                    where,
                )
            )
            return problems
        moment = _timestamp(transcript.terminal) or self._now()
        errors = validate_batch(
            parent.descriptors(),
            transcript.resume,
            thread_id=thread or parent.thread_id or "",
            interrupted_run_id=parent_id,
            now=moment,
        )
        problems.extend(_resume_finding(run, parent_id, error, where) for error in errors)
        return problems


def _label(position: int, interrupt_id: Any, named: bool) -> str:
    """How findings name a descriptor: by its id when it has one, else by position."""
    return f"interrupt {interrupt_id!r}" if named else f"interrupt {position}"


def _request_text(transcript: RunTranscript, key: str) -> str | None:
    value = (transcript.request or {}).get(key)
    return value if isinstance(value, str) else None


def resume_rule(code: str) -> str:
    """The rule id for a server error code (`conflict` → `resume-conflict`)."""
    rule_id = f"resume-{code}"
    return rule_id if rule_id in RULES_BY_ID else "resume-stale"


def _resume_finding(
    run: str, parent_id: str, error: InterruptError, where: Location | None
) -> Problem:
    path = "".join(f"[{part!r}]" if isinstance(part, str) else f"[{part}]" for part in error.path)
    at = f" at payload{path}" if path else ""
    return finding(
        resume_rule(error.code),
        f"run {run} resuming {parent_id}: {error.message}{at}",
        where,
    )
