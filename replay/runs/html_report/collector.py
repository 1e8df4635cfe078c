"""Turn the replay pipeline's runs and findings, in the order they come, into `RunCard`s.

A run's findings arrive around it: lifecycle findings while its events are read, check
findings just after the transcript. So each card is held until the next run (or the
end) arrives, and findings are placed by location: a finding at or after the next
run's first event belongs to that run. Only the held run, the findings since it and a
bounded index of earlier runs (for parent and resume links) are kept, so memory stays
flat however long the recording is.
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from replay.interrupts.descriptor_reader import binding_of, kind_of
from replay.runs.checks import MAX_INDEXED_RUNS
from replay.runs.html_report.model import (
    FindingView,
    InterruptView,
    MessageView,
    PauseLink,
    ResumeState,
    ResumeView,
    RuleCount,
    RunCard,
    Summary,
    ToolCallView,
)
from replay.runs.html_report.schema_outline import outline
from replay.runs.transcript import Outcome, RunTranscript
from replay.wire import bounded_json
from replay.wire.problems import Problem, Severity

TRANSLATED_RULE = "translated"
"""The notice `--native` attaches where it turned legacy events into an interrupt outcome."""
MAX_LOOSE_FINDINGS = 1_000
"""Findings outside any run kept for the summary; the counts still include the rest."""
MAX_PAUSE_LINKS = 200
"""Interrupts listed in the summary; each card still shows all of its own."""

Describe = Callable[[Mapping[str, Any]], tuple[str, str]]
"""A descriptor's kind label and what answers it, in a few words (the CLI's wording)."""


def plain_describe(descriptor: Mapping[str, Any]) -> tuple[str, str]:
    """The kind as the binding names it, and no answer hint."""
    return kind_of(descriptor).value, ""


def pretty_json(value: Any) -> str:
    """Indented JSON for reading (keys in recorded order, non-ASCII kept)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _arguments(raw: str) -> str:
    """Tool arguments indented when they are a JSON object or array, else as streamed."""
    try:
        value = bounded_json.loads(raw)
    except ValueError:
        return raw
    return pretty_json(value) if isinstance(value, dict | list) else raw


@dataclass(slots=True)
class _Known:
    """A run remembered for links: its card's anchor and, when paused, its interrupts."""

    anchor: str
    interrupts: dict[str, str] = field(default_factory=dict)
    """Interrupt id → anchor (the first one, when a batch repeats an id)."""
    answers: dict[str, list[str]] = field(default_factory=dict)
    """Interrupt anchor → anchors of the resume entries that answered it so far."""
    count: int = 0
    """Interrupts in the batch (ids may repeat, so not `len(interrupts)`)."""
    continued: bool = False
    """A continuation without a recorded request resumed it."""


@dataclass(slots=True)
class _Tally:
    """How often a rule fired so far, and the first of its findings shown on the page."""

    rule: str
    severity: Severity
    count: int = 0
    first: str = ""


class ReportCollector:
    """Feed it runs and findings in pipeline order; it hands back finished cards."""

    def __init__(self, *, describe: Describe = plain_describe) -> None:
        self._describe = describe
        self._held: RunTranscript | None = None
        self._findings: list[Problem] = []
        self._known: OrderedDict[str, _Known] = OrderedDict()
        self._paused_on_thread: OrderedDict[str, _Known] = OrderedDict()
        """Each thread's last paused run, for a later run that names no parent."""
        self._finding_count = 0
        self._counts: Counter[Severity] = Counter()
        self._rules: dict[str, _Tally] = {}
        self._loose: list[FindingView] = []
        self._pauses: list[PauseLink] = []
        self._runs = 0
        self._paused = 0
        self._interrupts = 0
        self._answered = 0
        self._answered_twice = 0
        self._continued = 0

    def problem(self, problem: Problem) -> None:
        """A finding; it is placed once the run after it is known."""
        self._findings.append(problem)

    def run(self, transcript: RunTranscript) -> list[RunCard]:
        """A finished run; returns the previous run's card, now complete."""
        out: list[RunCard] = []
        held, self._held = self._held, transcript
        start = transcript.start
        mine: list[Problem] = []
        rest: list[Problem] = []
        for problem in self._findings:
            where = problem.location
            later = (
                where is not None
                and start is not None
                and where.source == start.source
                and where.index >= start.index
            )
            if held is not None and not later and _belongs(problem, held):
                mine.append(problem)
            elif where is not None and start is not None and where.source == start.source:
                rest.append(problem)
            else:
                self._add_loose(problem)
        self._findings = rest
        if held is not None:
            out.append(self._card(held, mine))
        return out

    def finish(self) -> tuple[list[RunCard], Summary]:
        """End of the timeline: the last card, and the totals for the summary."""
        out: list[RunCard] = []
        held, self._held = self._held, None
        mine = [p for p in self._findings if held is not None and _belongs(p, held)]
        for problem in self._findings:
            if held is None or not _belongs(problem, held):
                self._add_loose(problem)
        self._findings = []
        if held is not None:
            out.append(self._card(held, mine))
        rules = sorted(self._rules.values(), key=lambda tally: (-tally.count, tally.rule))
        summary = Summary(
            runs=self._runs,
            paused=self._paused,
            interrupts=self._interrupts,
            unanswered=self._interrupts - self._answered - self._continued,
            answered_twice=self._answered_twice,
            continued=self._continued,
            counts={severity: self._counts[severity] for severity in Severity},
            rules=tuple(RuleCount(t.rule, t.severity, t.count, t.first) for t in rules),
            loose=tuple(self._loose),
            pauses=tuple(self._pauses),
        )
        return out, summary

    # -- findings ------------------------------------------------------------------------

    def _view(self, problem: Problem, *, shown: bool = True) -> FindingView:
        self._finding_count += 1
        anchor = f"f{self._finding_count}"
        self._counts[problem.severity] += 1
        tally = self._rules.get(problem.rule)
        if tally is None:
            tally = self._rules[problem.rule] = _Tally(problem.rule, problem.severity)
        tally.count += 1
        if shown and not tally.first:
            tally.first = anchor
        where = str(problem.location) if problem.location is not None else ""
        return FindingView(anchor, problem.rule, problem.severity, problem.message, where)

    def _add_loose(self, problem: Problem) -> None:
        shown = len(self._loose) < MAX_LOOSE_FINDINGS
        view = self._view(problem, shown=shown)
        if shown:
            self._loose.append(view)

    # -- runs ----------------------------------------------------------------------------

    def _remember(self, run_id: str, known: _Known) -> None:
        self._known[run_id] = known
        self._known.move_to_end(run_id)
        if len(self._known) > MAX_INDEXED_RUNS:
            self._known.popitem(last=False)

    def _card(self, transcript: RunTranscript, problems: list[Problem]) -> RunCard:
        anchor = f"r{transcript.index}"
        # One run's findings all come from its own stream: reading order is byte order.
        problems.sort(key=lambda p: p.location.offset if p.location is not None else 0)
        findings = tuple(self._view(problem) for problem in problems)
        translated = any(view.rule == TRANSLATED_RULE for view in findings)
        self._runs += 1
        parent_id = transcript.parent_run_id or ""
        parent = self._known.get(parent_id) if parent_id else None
        resume = self._resume(anchor, transcript, parent)
        continues = ""
        on_thread = False
        if parent is not None and parent.count and transcript.request is None:
            continues = parent.anchor
            if not parent.continued:
                parent.continued = True
                self._continued += parent.count - len(parent.answers)
        elif not parent_id and not transcript.resume and transcript.thread_id:
            # A later run of the thread that names no parent: a legacy follow-up (its
            # answers are in its messages), or a new turn that left the pause behind.
            # `agui resume` counts it as the pause's answer (a doubt must not run the
            # tools twice), and so does the page.
            paused = self._paused_on_thread.pop(transcript.thread_id, None)
            if paused is not None and not paused.answers and not paused.continued:
                continues, on_thread = paused.anchor, True
                paused.continued = True
                self._continued += paused.count
        known = _Known(anchor)
        interrupts: list[InterruptView] = []
        if transcript.outcome is Outcome.INTERRUPT:
            self._paused += 1
            for position, descriptor in enumerate(transcript.interrupts):
                view = self._interrupt(f"{anchor}-i{position}", descriptor, translated)
                interrupts.append(view)
                known.interrupts.setdefault(view.id, view.anchor)
                if len(self._pauses) < MAX_PAUSE_LINKS:
                    self._pauses.append(PauseLink(view.anchor, view.id, transcript.run_id or ""))
            self._interrupts += len(interrupts)
            known.count = len(interrupts)
            if transcript.thread_id:
                self._paused_on_thread[transcript.thread_id] = known
                self._paused_on_thread.move_to_end(transcript.thread_id)
                if len(self._paused_on_thread) > MAX_INDEXED_RUNS:
                    self._paused_on_thread.popitem(last=False)
        if transcript.run_id is not None:
            self._remember(transcript.run_id, known)
        return RunCard(
            anchor=anchor,
            index=transcript.index,
            source=transcript.source,
            run_id=transcript.run_id or "",
            thread_id=transcript.thread_id or "",
            parent_run_id=parent_id,
            parent_anchor=parent.anchor if parent is not None else "",
            outcome=transcript.outcome.value,
            finish_reason=transcript.finish_reason or "",
            error=_error(transcript),
            messages=tuple(MessageView(m.id, m.role, m.text) for m in transcript.messages),
            tool_calls=tuple(
                ToolCallView(c.id, c.name, _arguments(c.arguments), c.result)
                for c in transcript.tool_calls
            ),
            interrupts=tuple(interrupts),
            resume=resume,
            continues=continues,
            findings=findings,
            legacy_events=tuple(_legacy_line(event.data) for event in transcript.legacy_events),
            translated=translated,
            event_count=transcript.event_count,
            continues_on_thread=on_thread,
        )

    def _interrupt(
        self, anchor: str, descriptor: Mapping[str, Any], translated: bool
    ) -> InterruptView:
        metadata = descriptor.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        binding = binding_of(descriptor) or {}
        kind, answered_by = self._describe(descriptor)
        schema = descriptor.get("responseSchema")
        return InterruptView(
            anchor=anchor,
            id=_text(descriptor.get("id")),
            kind=kind,
            reason=_text(descriptor.get("reason")),
            message=_text(descriptor.get("message")),
            tool_call_id=_text(descriptor.get("toolCallId")),
            tool_name=_text(binding.get("toolName")) or _text(metadata.get("toolName")),
            expires_at=_text(descriptor.get("expiresAt")),
            response_schema="\n".join(outline(schema)) if schema is not None else "",
            answered_by=answered_by,
            descriptor=pretty_json(descriptor),
            translated=translated,
        )

    def _resume(
        self, anchor: str, transcript: RunTranscript, parent: _Known | None
    ) -> tuple[ResumeView, ...]:
        views: list[ResumeView] = []
        for position, entry in enumerate(transcript.resume):
            interrupt_id = _text(entry.get("interruptId"))
            target = parent.interrupts.get(interrupt_id, "") if parent is not None else ""
            earlier: tuple[str, ...] = ()
            own = f"{anchor}-a{position}"
            if parent is None:
                state = ResumeState.PARENT_NOT_RECORDED
            elif not target:
                state = ResumeState.UNKNOWN_INTERRUPT
            else:
                answers = parent.answers.setdefault(target, [])
                earlier = tuple(answers)
                answers.append(own)
                if earlier:
                    state = ResumeState.ANSWERS_AGAIN
                    if len(earlier) == 1:
                        self._answered_twice += 1
                else:
                    state = ResumeState.ANSWERS
                    self._answered += 1
                    if parent.continued:  # counted as continued until now
                        self._continued -= 1
            views.append(
                ResumeView(
                    anchor=own,
                    interrupt_id=interrupt_id,
                    status=_text(entry.get("status")),
                    payload=pretty_json(entry["payload"]) if "payload" in entry else "",
                    state=state,
                    target=target,
                    earlier=earlier,
                )
            )
        return tuple(views)


def _belongs(problem: Problem, transcript: RunTranscript) -> bool:
    """Whether a finding was made in the recording (exchange) the run came from."""
    where = problem.location
    return where is not None and where.source == transcript.source


def _error(transcript: RunTranscript) -> str:
    if transcript.outcome is not Outcome.ERROR or transcript.terminal is None:
        return ""
    data = transcript.terminal.data
    code = _text(data.get("code"))
    message = _text(data.get("message"))
    return f"{message} [{code}]" if code else message


def _legacy_line(data: Mapping[str, Any]) -> str:
    value = data.get("value")
    body = value if isinstance(value, dict) else data
    name = _text(data.get("name")) or _text(data.get("type"))
    return (
        f"{name} for {_text(body.get('toolCallId')) or '?'}"
        f" ({_text(body.get('toolName')) or '?'}): view it translated with --native"
    )
