"""What the HTML report shows, as plain frozen values: one `RunCard` per run, its findings,
interrupts and resume entries, and the `Summary` and answer `Links` known only at the end.

The page is drawn from these values alone, so what a reader sees can be unit-tested
without a browser, and every recorded string reaches the renderer as data to escape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from replay.wire.problems import Severity


class ResumeState(StrEnum):
    """How a resume entry relates to the interrupts recorded before it."""

    ANSWERS = "answers"
    """It names an interrupt of its parent run, answered here for the first time."""
    ANSWERS_AGAIN = "answers-again"
    """Its interrupt was already answered (in this continuation or an earlier one)."""
    UNKNOWN_INTERRUPT = "unknown-interrupt"
    """The parent run is recorded but paused on no interrupt with this id."""
    PARENT_NOT_RECORDED = "parent-not-recorded"
    """The run it resumes is not in the recording (or was forgotten in a huge one)."""


@dataclass(frozen=True, slots=True)
class FindingView:
    """One finding where it was found: `anchor` is its element id on the page."""

    anchor: str
    rule: str
    severity: Severity
    message: str
    where: str
    """`file:line: event N`, as the text report prints it ('' when it has no place)."""


@dataclass(frozen=True, slots=True)
class MessageView:
    """A streamed text message, whole (the page folds it)."""

    id: str
    role: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallView:
    """A tool call with its arguments (indented when they are JSON) and its result."""

    id: str
    name: str
    arguments: str
    result: str | None


@dataclass(frozen=True, slots=True)
class InterruptView:
    """One interrupt of a paused run, kept whole; `anchor` is what resume entries link to."""

    anchor: str
    id: str
    kind: str
    reason: str
    message: str
    tool_call_id: str
    tool_name: str
    expires_at: str
    response_schema: str
    """The `responseSchema` as a readable outline ('' when the descriptor has none)."""
    answered_by: str
    """What resume entry answers it, in a few words."""
    descriptor: str
    """The whole descriptor as indented JSON, for what the fields above leave out."""
    translated: bool
    """Built by `--native` from legacy approval events, not recorded as such."""


@dataclass(frozen=True, slots=True)
class ResumeView:
    """One resume entry of a continuation's request, and the interrupt it answers."""

    anchor: str
    interrupt_id: str
    status: str
    payload: str
    """The payload as indented JSON ('' when the entry has none)."""
    state: ResumeState
    target: str
    """Anchor of the interrupt it answers ('' when unknown or not recorded)."""
    earlier: tuple[str, ...]
    """Anchors of the resume entries that answered the same interrupt before this one."""


@dataclass(frozen=True, slots=True)
class RunCard:
    """One run as the page shows it."""

    anchor: str
    index: int
    source: str
    run_id: str
    thread_id: str
    parent_run_id: str
    parent_anchor: str
    """Anchor of the parent's card when the parent is in the recording ('' otherwise)."""
    outcome: str
    finish_reason: str
    error: str
    """The `RUN_ERROR` message (with its code), '' for other outcomes."""
    messages: tuple[MessageView, ...]
    tool_calls: tuple[ToolCallView, ...]
    interrupts: tuple[InterruptView, ...]
    resume: tuple[ResumeView, ...]
    continues: str
    """Anchor of the paused parent this run continues without a recorded request: the
    run shows the pause was answered, though not with what ('' otherwise)."""
    findings: tuple[FindingView, ...]
    legacy_events: tuple[str, ...]
    """Legacy approval events left untranslated (without `--native`), one line each."""
    translated: bool
    event_count: int
    continues_on_thread: bool = False
    """`continues` names the last paused run of this run's thread, which this run follows
    without naming a parent or carrying resume entries (a legacy client answers in its
    messages): taken as its answer, as `agui resume` takes it."""


@dataclass(frozen=True, slots=True)
class RuleCount:
    """How often one rule fired, and where first (the summary links there)."""

    rule: str
    severity: Severity
    count: int
    first: str
    """Anchor of its first finding on the page ('' when none of them is shown)."""


@dataclass(frozen=True, slots=True)
class PauseLink:
    """An interrupt listed in the summary, so a reader gets from there to its answer."""

    anchor: str
    interrupt_id: str
    run_id: str


@dataclass(frozen=True, slots=True)
class Summary:
    """Totals for the top of the page, and the findings that belong to no run."""

    runs: int
    paused: int
    interrupts: int
    unanswered: int
    """Interrupts with no resume entry and no continuation in the recording."""
    answered_twice: int
    continued: int
    """Interrupts whose run was continued, but whose resume entries are not recorded."""
    counts: Mapping[Severity, int]
    rules: tuple[RuleCount, ...]
    """Findings per rule, most frequent first."""
    loose: tuple[FindingView, ...]
    """Findings outside any run (empty recordings, unreadable sources)."""
    pauses: tuple[PauseLink, ...]
    """The first interrupts of the timeline (at most `MAX_PAUSE_LINKS`), in order."""
