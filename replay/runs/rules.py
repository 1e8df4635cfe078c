"""The catalog of every finding `agui replay` can report: rule id, severity, one-line title.

The catalog is data stated once: the checks build their `Problem`s from it, the SARIF
report lists it as the tool's rules, and the README table is generated from it. The
decode and lifecycle ids are produced by `events.py` and `transcript.py`; a test keeps
their severities in step with this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from replay.wire.problems import Location, Problem, Severity


class RuleGroup(StrEnum):
    """Which stage of the pipeline reports a rule."""

    DECODE = "decode"
    LIFECYCLE = "lifecycle"
    INTERRUPT = "interrupt"
    RESUME = "resume"
    TRANSLATION = "translation"


@dataclass(frozen=True, slots=True)
class Rule:
    """One stable rule id with its default severity and what it means."""

    id: str
    severity: Severity
    group: RuleGroup
    title: str


_E, _W, _N = Severity.ERROR, Severity.WARNING, Severity.NOTICE
_D, _L, _I, _R = RuleGroup.DECODE, RuleGroup.LIFECYCLE, RuleGroup.INTERRUPT, RuleGroup.RESUME
_T = RuleGroup.TRANSLATION

RULES: tuple[Rule, ...] = (
    # Decoding: SSE framing, JSON, and validation against ag_ui.core's event union.
    Rule("unterminated-frame", _W, _D, "The stream ends inside an event (no blank line after it)."),
    Rule("bare-json", _N, _D, "Events are bare JSON lines (NDJSON), accepted as TanStack does."),
    Rule("multiline-data", _W, _D, "Event data spans several `data:` lines."),
    Rule("event-too-large", _E, _D, "Event data is over 16 MB: skipped, not parsed."),
    Rule("invalid-json", _E, _D, "Event data is not valid JSON."),
    Rule("not-an-object", _E, _D, "Event data is JSON but not an object."),
    Rule("unknown-event", _E, _D, "The event has no `type` or an unknown one."),
    Rule("invalid-event", _E, _D, "A field of the event is missing or has the wrong type."),
    Rule(
        "legacy-approval-event",
        _E,
        _D,
        "Legacy CUSTOM approval-requested / tool-input-available event: translate it.",
    ),
    # Lifecycle: how events fold into runs.
    Rule("empty-recording", _E, _L, "A recording holds no events at all."),
    Rule("no-run", _E, _L, "A recording has frames but no readable event, so no run."),
    Rule("missing-run-started", _E, _L, "Events arrive before the run's RUN_STARTED."),
    Rule("run-not-finished", _E, _L, "A new RUN_STARTED arrives while a run is still open."),
    Rule("missing-terminal", _E, _L, "A run ends without RUN_FINISHED or RUN_ERROR."),
    Rule("duplicate-terminal", _E, _L, "A run has a second terminal event."),
    Rule("duplicate-id", _E, _L, "A message or tool call id is started twice."),
    Rule("unknown-message-id", _E, _L, "A text event names a message that was never started."),
    Rule("unknown-tool-call-id", _E, _L, "A tool event names a tool call that was never started."),
    Rule("event-after-end", _E, _L, "A message or tool call event arrives after its END."),
    Rule("unclosed-message", _W, _L, "A text message has no END before the terminal."),
    Rule("unclosed-tool-call", _W, _L, "A tool call has no END before the terminal."),
    # Interrupts: the descriptors of an interrupt outcome.
    Rule("empty-interrupts", _E, _I, "An interrupt outcome lists no interrupts."),
    Rule("interrupt-missing-id", _E, _I, "An interrupt has no string `id`."),
    Rule("interrupt-missing-reason", _E, _I, "An interrupt has no string `reason`."),
    Rule("duplicate-interrupt-id", _E, _I, "Two interrupts of one run share an id."),
    Rule(
        "unknown-interrupt-tool-call",
        _E,
        _I,
        "An interrupt's toolCallId names no tool call of its run or its ancestors.",
    ),
    Rule("success-with-interrupts", _E, _I, "A success outcome carries interrupts."),
    Rule("invalid-expires-at", _E, _I, "An interrupt's `expiresAt` is not a date."),
    Rule(
        "invalid-binding",
        _E,
        _I,
        "The tanstack:interruptBinding breaks the reader rules; clients drop it.",
    ),
    Rule(
        "binding-run-mismatch",
        _W,
        _I,
        "The binding's interruptedRunId is not the run that paused.",
    ),
    # Resumes: a continuation and the batch it answers.
    Rule("resume-without-parent", _E, _R, "A request with `resume` has no `parentRunId`."),
    Rule(
        "resume-parent-not-recorded",
        _N,
        _R,
        "The interrupted run is not in the recording, so the batch is not checked.",
    ),
    Rule("resume-thread-mismatch", _E, _R, "`parentRunId` names a run of another thread."),
    Rule("resume-parent-not-interrupted", _E, _R, "`parentRunId` names a run that did not pause."),
    Rule(
        "resume-unknown-interrupt",
        _E,
        _R,
        "A pending interrupt is unanswered, or an entry names an unknown one.",
    ),
    Rule("resume-conflict", _E, _R, "An interrupt is answered more than once."),
    Rule(
        "resume-invalid-payload",
        _E,
        _R,
        "Bad status, a payload on a cancellation, or a payload its schema rejects.",
    ),
    Rule("resume-invalid-edited-args", _E, _R, "Approved `editedArgs` break the input schema."),
    Rule("resume-invalid-tool-output", _E, _R, "A client tool's result breaks its output schema."),
    Rule(
        "resume-invalid-response-schema",
        _E,
        _R,
        "The descriptor's responseSchema no longer matches its binding hash.",
    ),
    Rule("resume-expired", _E, _R, "The interrupt had expired when the continuation was sent."),
    Rule(
        "resume-stale",
        _E,
        _R,
        "Stale correlation, or a generic continuation that does not match its descriptor.",
    ),
    Rule(
        "resume-incomplete-batch",
        _E,
        _R,
        "The resume entries do not answer the complete interrupt batch.",
    ),
    Rule(
        "resume-item-validation-failed",
        _N,
        _R,
        "Summary: the server rejects the batch because an item failed.",
    ),
    # Translation (`--native`): what the legacy-to-native view changed.
    Rule("translated", _N, _T, "A legacy event was translated to its native counterpart."),
    Rule("invented", _N, _T, "A value the legacy stream lacks was synthesised."),
    Rule("lost", _N, _T, "A legacy field has no native counterpart and was dropped."),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def rule(rule_id: str) -> Rule:
    """The catalog entry for a rule id (KeyError for an id that is not in the catalog)."""
    return RULES_BY_ID[rule_id]


def finding(rule_id: str, message: str, location: Location | None = None) -> Problem:
    """A `Problem` for a catalog rule, with the catalog's severity."""
    return Problem(rule_id, RULES_BY_ID[rule_id].severity, message, location)


def effective_severity(problem: Problem, *, strict: bool) -> Severity:
    """Warnings count as errors under `--strict`; notices never fail a check."""
    if strict and problem.severity is Severity.WARNING:
        return Severity.ERROR
    return problem.severity


def is_failure(problem: Problem, *, strict: bool) -> bool:
    """Whether a finding makes `agui replay` exit 1."""
    return effective_severity(problem, strict=strict) is Severity.ERROR
