"""The values the `--html` page is drawn from, built from real recordings by the real
replay-check job (`replay.jobs.replay_check`), and the page's escaping."""

from __future__ import annotations

import ast
import io
import json
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.jobs.replay_check import check_recordings
from replay.runs.html_report import PageWriter, ReportCollector
from replay.runs.html_report.collector import MAX_PAUSE_LINKS
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
from replay.runs.reports import sort_findings
from replay.runs.transcript import RunTranscript
from replay.wire.events import RecordedEvent
from replay.wire.problems import Location, Problem, Severity
from replay.wire.recording import Exchange
from tests.html_hostile import HOSTILE_IMG, HOSTILE_SCRIPT, hostile_recording

ROOT = Path(__file__).resolve().parents[3]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native"
LEGACY = ROOT / "tests" / "fixtures" / "recordings" / "legacy"
EXAMPLES = ROOT / "examples"


class Collected:
    """A `CheckView` that keeps the job's runs and findings, in the order it hands them."""

    per_event = True  # as `agui replay --html`: every run's transcript is built

    def __init__(self) -> None:
        self.items: list[RunTranscript | Problem] = []

    def source(self, exchange: Exchange) -> None:
        pass

    def event(self, event: RecordedEvent) -> None:
        pass

    def line(self, item: Any) -> None:
        pass

    def run(self, run: RunTranscript) -> None:
        self.items.append(run)

    def problem(self, problem: Problem) -> None:
        self.items.append(problem)


def pipeline(names: list[Path], *, native: bool = False) -> list[RunTranscript | Problem]:
    """Runs and findings in the order the replay-check job (`agui replay`) produces them."""
    view = Collected()
    check_recordings([str(name) for name in names], view, native=native)
    return view.items


def collect(
    names: list[Path], *, native: bool = False
) -> tuple[list[RunCard], Summary, list[Problem]]:
    collector = ReportCollector()
    cards: list[RunCard] = []
    fed: list[Problem] = []
    for item in pipeline(names, native=native):
        if isinstance(item, RunTranscript):
            cards.extend(collector.run(item))
        else:
            fed.append(item)
            collector.problem(item)
    last, summary = collector.finish()
    return [*cards, *last], summary, fed


def case(name: str, *runs: str, folder: Path = NATIVE) -> list[Path]:
    return [folder / f"{name}.{run}.sse" for run in runs or ("run1", "run2")]


def test_two_approvals_and_their_continuation_are_linked_both_ways() -> None:
    cards, summary, _ = collect(case("two-approvals.approve-both"))
    paused, continuation = cards
    assert paused.outcome == "interrupt"
    assert [(i.id, i.kind, i.tool_name, i.tool_call_id) for i in paused.interrupts] == [
        ("approval_call_transfer_1", "tool-approval", "transfer", "call_transfer_1"),
        ("approval_call_delete_1", "tool-approval", "delete_file", "call_delete_1"),
    ]
    assert [i.anchor for i in paused.interrupts] == ["r0-i0", "r0-i1"]
    assert continuation.parent_run_id == paused.run_id
    assert continuation.parent_anchor == "r0"
    answers = {entry.interrupt_id: entry for entry in continuation.resume}
    assert answers["approval_call_delete_1"].target == "r0-i1"
    assert answers["approval_call_transfer_1"].target == "r0-i0"
    assert {entry.state for entry in continuation.resume} == {ResumeState.ANSWERS}
    assert json.loads(answers["approval_call_delete_1"].payload) == {"approved": True}
    assert continuation.continues == ""
    assert (summary.runs, summary.paused, summary.interrupts) == (2, 1, 2)
    assert (summary.unanswered, summary.answered_twice, summary.continued) == (0, 0, 0)
    assert [(p.interrupt_id, p.anchor) for p in summary.pauses] == [
        ("approval_call_transfer_1", "r0-i0"),
        ("approval_call_delete_1", "r0-i1"),
    ]


def test_a_pause_resumed_twice_marks_the_second_answers() -> None:
    names = case("tool-approval.approve")
    cards, summary, _ = collect([*names, names[1]])
    _, first, second = cards
    assert first.resume[0].state is ResumeState.ANSWERS
    assert second.resume[0].state is ResumeState.ANSWERS_AGAIN
    assert second.resume[0].target == first.resume[0].target == "r0-i0"
    assert second.resume[0].earlier == (first.resume[0].anchor,)
    assert (summary.unanswered, summary.answered_twice) == (0, 1)


def test_a_continuation_without_its_parent_says_so() -> None:
    cards, summary, _ = collect(case("tool-approval.approve", "run2"))
    (card,) = cards
    assert card.parent_anchor == ""
    assert card.resume[0].state is ResumeState.PARENT_NOT_RECORDED
    assert card.resume[0].target == ""
    assert "resume-parent-not-recorded" in {finding.rule for finding in card.findings}
    assert summary.interrupts == 0


def test_an_answer_to_an_unknown_interrupt_and_the_unanswered_one(tmp_path: Path) -> None:
    for suffix in ("run1.sse", "request.json", "run2.sse"):
        shutil.copy(NATIVE / f"tool-approval.approve.{suffix}", tmp_path / f"x.{suffix}")
    resume = json.loads((NATIVE / "tool-approval.approve.resume.json").read_text())
    resume["resume"][0]["interruptId"] = "approval_call_nope"
    (tmp_path / "x.resume.json").write_text(json.dumps(resume))
    cards, summary, _ = collect([tmp_path / "x.run1.sse", tmp_path / "x.run2.sse"])
    entry = cards[1].resume[0]
    assert (entry.interrupt_id, entry.state, entry.target) == (
        "approval_call_nope",
        ResumeState.UNKNOWN_INTERRUPT,
        "",
    )
    assert summary.unanswered == 1
    assert "resume-unknown-interrupt" in {finding.rule for finding in cards[1].findings}


def test_a_continuation_without_a_recorded_request_continues_its_parent(tmp_path: Path) -> None:
    """AG-UI lets RUN_STARTED name the parent (TanStack leaves it to the request)."""
    shutil.copy(NATIVE / "tool-approval.approve.run1.sse", tmp_path / "run1.sse")
    parent = json.loads((NATIVE / "tool-approval.approve.request.json").read_text())["runId"]
    run2 = (NATIVE / "tool-approval.approve.run2.sse").read_text()
    started = '"type":"RUN_STARTED",'
    assert started in run2
    (tmp_path / "run2.sse").write_text(
        run2.replace(started, f'{started}"parentRunId":{json.dumps(parent)},')
    )
    cards, summary, _ = collect([tmp_path / "run1.sse", tmp_path / "run2.sse"])
    assert cards[1].resume == ()
    assert cards[1].continues == "r0"
    assert (summary.unanswered, summary.continued) == (0, 1)


@pytest.mark.parametrize("name", ["tool-approval.approve", "two-approvals.approve-both"])
def test_a_legacy_follow_up_answers_the_pause_of_its_thread(name: str) -> None:
    # 0.42.0 answers in the follow-up's messages, with no parent and no resume entries:
    # the page said "1 unanswered" where `agui resume` says the run was already resumed.
    cards, summary, _ = collect(case(name, folder=LEGACY), native=True)
    paused, follow_up = cards
    assert paused.outcome == "interrupt"
    assert (follow_up.parent_run_id, follow_up.resume) == ("", ())
    assert (follow_up.continues, follow_up.continues_on_thread) == ("r0", True)
    assert (summary.unanswered, summary.continued) == (0, len(paused.interrupts))
    assert 'Follows the <a href="#r0">paused run</a> of its thread' in page_of(cards, summary)


def test_a_run_of_another_thread_answers_no_pause(tmp_path: Path) -> None:
    shutil.copy(LEGACY / "tool-approval.approve.run1.sse", tmp_path / "run1.sse")
    shutil.copy(LEGACY / "tool-approval.approve.request.json", tmp_path / "run1.request.json")
    run2 = (LEGACY / "tool-approval.approve.run2.sse").read_text()
    thread = json.loads((LEGACY / "tool-approval.approve.request.json").read_text())["threadId"]
    assert f'"threadId":"{thread}"' in run2
    (tmp_path / "run2.sse").write_text(run2.replace(thread, "another-thread"))
    cards, summary, _ = collect([tmp_path / "run1.sse", tmp_path / "run2.sse"], native=True)
    assert (cards[1].continues, cards[1].continues_on_thread) == ("", False)
    assert (summary.unanswered, summary.continued) == (1, 0)


def page_of(cards: list[RunCard], summary: Summary) -> str:
    stream = io.StringIO()
    page = PageWriter(stream)
    page.begin([cards[0].source], native=True)
    for card in cards:
        page.card(card)
    page.end(summary)
    return stream.getvalue()


def test_a_generic_interrupt_keeps_its_schema_readable_and_its_expiry() -> None:
    cards, _, _ = collect(case("generic-expiring.resolved"))
    (interrupt,) = cards[0].interrupts
    assert interrupt.kind == "generic"
    assert interrupt.reason
    assert interrupt.expires_at == "2099-01-01T00:00:00.000Z"
    assert interrupt.response_schema.splitlines() == [
        "object",
        "  approved: boolean",
        "  note?: string",
    ]
    descriptor = json.loads(interrupt.descriptor)
    assert descriptor["id"] == interrupt.id
    assert cards[1].resume[0].target == interrupt.anchor


def test_legacy_recordings_viewed_as_native_mark_the_translation() -> None:
    cards, summary, _ = collect(
        case("two-approvals.approve-both", "run1", folder=LEGACY), native=True
    )
    (card,) = cards
    assert card.translated
    assert [i.id for i in card.interrupts] == ["approval_call_transfer_1", "approval_call_delete_1"]
    assert all(interrupt.translated for interrupt in card.interrupts)
    assert "translated" in {finding.rule for finding in card.findings}
    assert summary.counts[Severity.NOTICE] == len(card.findings)


def test_legacy_recordings_read_as_they_are_list_the_legacy_events() -> None:
    cards, _, _ = collect(case("two-approvals.approve-both", "run1", folder=LEGACY))
    (card,) = cards
    assert not card.translated
    assert card.interrupts == ()
    assert len(card.legacy_events) == 2
    assert all("--native" in line for line in card.legacy_events)


def test_broken_recording_findings_sit_at_their_run() -> None:
    cards, summary, fed = collect([EXAMPLES / "broken.sse"])
    (card,) = cards
    in_order = sort_findings(fed, [str(EXAMPLES / "broken.sse")])
    assert [(f.rule, f.message) for f in card.findings] == [(p.rule, p.message) for p in in_order]
    assert card.findings[-1].rule == "legacy-approval-event"  # event 9, reported before 8s
    assert card.findings[0].where.endswith("broken.sse:8: event 3")
    assert summary.counts == {Severity.ERROR: 10, Severity.WARNING: 2, Severity.NOTICE: 0}
    assert summary.rules[0].rule == "invalid-event"
    assert summary.rules[0].count == 2
    assert [i.id for i in card.interrupts] == ["approval_call_1", "approval_call_1"]
    assert summary.unanswered == 2


def every_recording() -> list[list[Path]]:
    groups = [[path] for path in sorted(EXAMPLES.glob("*.sse"))]
    groups.append([EXAMPLES / "session.har"])
    for folder in (NATIVE, LEGACY):
        for first in sorted(folder.glob("*.run1.sse")):
            groups.append(sorted(folder.glob(first.name.replace(".run1.sse", ".run*.sse"))))
    groups.append([EXAMPLES / "broken.sse", EXAMPLES / "session.har", EXAMPLES / "broken.sse"])
    return groups


@pytest.mark.parametrize(
    "names", every_recording(), ids=lambda names: "+".join(n.name for n in names)
)
def test_no_run_or_finding_is_lost_or_shown_twice(names: list[Path]) -> None:
    for native in (False, True):
        cards, summary, fed = collect(names, native=native)
        shown = [f for card in cards for f in card.findings] + list(summary.loose)
        key = lambda f: (f.rule, f.severity, f.message)  # noqa: E731
        assert Counter(key(f) for f in shown) == Counter(
            (p.rule, p.severity, p.message) for p in fed
        )
        assert [card.index for card in cards] == list(range(len(cards)))
        assert summary.runs == len(cards)
        assert summary.interrupts == sum(len(card.interrupts) for card in cards)
        assert sum(summary.counts.values()) == len(fed)
        for card in cards:
            run_sources = {card.source}
            for finding in card.findings:
                assert finding.where.split(":")[0] in {s.split(":")[0] for s in run_sources}


def test_cards_come_out_one_run_behind() -> None:
    """Streaming: each card is handed back as soon as the next run arrives."""
    collector = ReportCollector()
    handed: list[int] = []
    for item in pipeline(case("tool-approval.approve") * 3):
        if isinstance(item, RunTranscript):
            handed.extend(card.index for card in collector.run(item))
            assert handed == list(range(item.index))
        else:
            collector.problem(item)
    last, _ = collector.finish()
    assert [card.index for card in last] == [5]


def test_the_summary_lists_a_bounded_number_of_pauses() -> None:
    names = case("two-approvals.approve-both", "run1") * (MAX_PAUSE_LINKS // 2 + 5)
    _, summary, _ = collect(names)
    assert summary.interrupts == 2 * len(names)
    assert len(summary.pauses) == MAX_PAUSE_LINKS


def test_findings_outside_any_run_go_to_the_summary() -> None:
    collector = ReportCollector()
    collector.problem(Problem("no-run", Severity.ERROR, "nothing here", Location("empty.sse")))
    collector.problem(Problem("bare", Severity.NOTICE, "no place at all"))
    cards, summary = collector.finish()
    assert cards == []
    assert [(f.rule, f.where) for f in summary.loose] == [("no-run", "empty.sse"), ("bare", "")]


def render(cards: list[RunCard], summary: Summary) -> str:
    stream = io.StringIO()
    page = PageWriter(stream)
    page.begin([HOSTILE_IMG], native=False)
    for card in cards:
        page.card(card)
    page.end(summary)
    return stream.getvalue()


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text between tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_recorded_text_is_escaped_everywhere(tmp_path: Path) -> None:
    cards, summary, _ = collect([hostile_recording(tmp_path)])
    parsed = Elements()
    parsed.feed(render(cards, summary))
    tags = Counter(tag for tag, _ in parsed.tags)
    assert tags["script"] == 1  # the page's own
    assert tags["img"] == tags["b"] == 0
    handlers = [name for _, attrs in parsed.tags for name in attrs if name.startswith("on")]
    assert handlers == []
    text = "".join(parsed.text)
    assert HOSTILE_SCRIPT in text  # the message, whole, as text
    assert HOSTILE_IMG in text  # the interrupt id, the tool name, the thread id
    assert "run-<b>1</b>" in text


def test_the_page_loads_nothing_and_allows_only_its_own_script() -> None:
    cards, summary, _ = collect(case("two-approvals.approve-both"))
    html = render(cards, summary)
    policy = html.split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0]
    assert "default-src 'none'" in policy
    assert "script-src 'sha256-" in policy
    assert "unsafe" not in policy
    tree_refs = [token for token in ('src="', "url(", "@import", "<link") if token in html]
    assert tree_refs == []


def test_nothing_else_in_replay_imports_the_report() -> None:
    offenders = []
    for path in sorted((ROOT / "replay").rglob("*.py")):
        if "html_report" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_bytes())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}" for n in names if n.startswith("replay.runs.html_report")
            ]
    assert offenders == []


def test_runs_remembered_for_links_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the last runs are kept for links; a continuation of a forgotten one says so."""
    monkeypatch.setattr("replay.runs.html_report.collector.MAX_INDEXED_RUNS", 2)
    run1, run2 = case("tool-approval.approve")
    others = [*case("plain", "run1"), *case("plain", "run1", folder=LEGACY)]
    cards, summary, _ = collect([run1, *others, run2])
    assert cards[-1].resume[0].state is ResumeState.PARENT_NOT_RECORDED
    assert cards[-1].parent_anchor == ""
    assert summary.unanswered == 1
    cards, _, _ = collect([run1, others[0], run2])
    assert cards[-1].resume[0].state is ResumeState.ANSWERS


def test_findings_beyond_the_summary_cap_are_counted_not_linked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("replay.runs.html_report.collector.MAX_LOOSE_FINDINGS", 1)
    collector = ReportCollector()
    for rule in ("a", "b", "b"):
        collector.problem(Problem(rule, Severity.WARNING, "loose", Location(f"{rule}.sse")))
    _, summary = collector.finish()
    assert [f.rule for f in summary.loose] == ["a"]
    assert [(r.rule, r.count, r.first) for r in summary.rules] == [("b", 2, ""), ("a", 1, "f1")]


def test_many_recordings_are_counted_in_the_header() -> None:
    names = [f"r{n}.sse" for n in range(8)]
    stream = io.StringIO()
    page = PageWriter(stream)
    page.begin(names, native=False)
    assert "<title>agui replay: r0.sse, r1.sse, r2.sse, r3.sse, r4.sse and 3 more</title>" in (
        stream.getvalue()
    )


def card_with(text: str) -> tuple[RunCard, Summary]:
    """A card (and summary) carrying `text` in every field that comes from a recording."""
    finding = FindingView("f1", text, Severity.ERROR, text, text)
    card = RunCard(
        anchor="r0",
        index=0,
        source=text,
        run_id=text,
        thread_id=text,
        parent_run_id=text,
        parent_anchor="",
        outcome="interrupt",
        finish_reason=text,
        error=text,
        messages=(MessageView(text, text, text),),
        tool_calls=(ToolCallView(text, text, text, text),),
        interrupts=(
            InterruptView(
                "r0-i0", text, text, text, text, text, text, text, text, text, text, True
            ),
        ),
        resume=(
            ResumeView("r0-a0", text, text, text, ResumeState.ANSWERS_AGAIN, "r0-i0", ("r0-a0",)),
        ),
        continues="",
        findings=(finding,),
        legacy_events=(text,),
        translated=True,
        event_count=1,
    )
    summary = Summary(
        runs=1,
        paused=1,
        interrupts=1,
        unanswered=1,
        answered_twice=1,
        continued=1,
        counts={Severity.ERROR: 1},
        rules=(RuleCount(text, Severity.ERROR, 1, "f1"),),
        loose=(finding,),
        pauses=(PauseLink("r0-i0", text, text),),
    )
    return card, summary


def parsed(card: RunCard, summary: Summary) -> Elements:
    stream = io.StringIO()
    page = PageWriter(stream)
    page.begin([card.source], native=True)
    page.card(card)
    page.end(summary)
    elements = Elements()
    elements.feed(stream.getvalue())
    elements.close()
    return elements


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="<>\"'&=/ ab!-;#x\n", min_size=1) | st.text(min_size=1))
def test_no_recorded_text_changes_the_page_structure(text: str) -> None:
    """Whatever a recording holds, the page has exactly the elements of a harmless one."""
    hostile = parsed(*card_with(text))
    plain = parsed(*card_with("x"))
    assert [tag for tag, _ in hostile.tags] == [tag for tag, _ in plain.tags]
    assert [sorted(attrs) for _, attrs in hostile.tags] == [sorted(a) for _, a in plain.tags]
