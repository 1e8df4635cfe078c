"""The replay-check job called from Python gives what `agui replay --check` reports.

A view records what the job hands it; its findings, their order and the failure verdict
must match the command's text report on the same real recordings, read plainly (a view
that looks at each event) or through the large-file reader (a view that does not).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app
from replay.jobs.replay_check import check_recordings
from replay.runs.reports import sort_findings, text_report
from replay.wire.problems import Problem

ROOT = Path(__file__).resolve().parents[3]
BROKEN = str(ROOT / "examples" / "broken.sse")
EXAMPLE = str(ROOT / "examples" / "transfer-approval.sse")
LEGACY = str(ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse")


@dataclass
class Collected:
    """A view that keeps everything it is handed, in order."""

    per_event: bool
    order: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    events: int = 0

    def source(self, exchange: Any) -> None:
        self.order.append(f"source {exchange.source}")

    def event(self, event: Any) -> None:
        self.events += 1

    def line(self, item: Any) -> None:
        self.events += item.count if hasattr(item, "count") else 1

    def run(self, run: Any) -> None:
        self.order.append(f"run {run.run_id}")

    def problem(self, problem: Problem) -> None:
        self.order.append(f"problem {problem.rule}")
        self.problems.append(problem)


@pytest.mark.parametrize("per_event", [True, False])
@pytest.mark.parametrize("names", [[BROKEN], [EXAMPLE], [EXAMPLE, BROKEN]])
def test_findings_match_the_commands_report(names: list[str], per_event: bool) -> None:
    view = Collected(per_event=per_event)
    summary = check_recordings(names, view)
    result = CliRunner().invoke(app, ["replay", "--check", *names])
    assert result.stdout == text_report(sort_findings(view.problems, names), strict=False)
    assert result.exit_code == (1 if summary.failed else 0)
    assert summary.counts.total() == len(view.problems)
    assert view.order[0] == f"source {names[0]}"


def test_a_per_event_view_sees_every_event_and_each_run_before_its_findings() -> None:
    view = Collected(per_event=True)
    check_recordings([EXAMPLE], view)
    assert view.events == (ROOT / "examples" / "transfer-approval.sse").read_text().count("data:")
    assert any(entry.startswith("run ") for entry in view.order)


def test_native_translates_legacy_events_before_checking() -> None:
    plain = Collected(per_event=True)
    native = Collected(per_event=True)
    check_recordings([LEGACY], plain)
    check_recordings([LEGACY], native, native=True)
    assert "legacy-approval-event" in {p.rule for p in plain.problems}
    assert "legacy-approval-event" not in {p.rule for p in native.problems}
