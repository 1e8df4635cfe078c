"""The resume job from Python: the data behind each `agui resume` outcome, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from replay.jobs.resume import (
    Refused,
    ResumeJob,
    Sent,
    Unanswered,
    Unsent,
    Verdict,
    resume_run,
)
from replay.resume.answers import AnswerOptions, AnswerSpec
from tests.resume_http import Route, scripted_server

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"
APPROVAL_RUN1 = str(NATIVE / "tool-approval.approve.run1.sse")
APPROVAL_RUN2 = (NATIVE / "tool-approval.approve.run2.sse").read_bytes()
TWO_RUN1 = (NATIVE / "two-approvals.approve-both.run1.sse").read_bytes()
UNUSED = "http://127.0.0.1:9/never-posted"


class Noted:
    """A view that never asks and notes what it is shown."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def ask(self, paused: Any, waiting: Sequence[str]) -> list[AnswerSpec] | None:
        self.seen.append(f"ask {','.join(waiting)}")
        return None

    def posting(self, request: Any, paused: Any, answers: int) -> None:
        self.seen.append(f"posting {request.run_id} {answers}")

    def source(self, url: str, body: Mapping[str, Any]) -> None:
        self.seen.append("source")

    def event(self, event: Any) -> None:
        self.seen.append(event.data["type"])

    def run(self, run: Any) -> None:
        self.seen.append(f"run {run.run_id}")

    def problem(self, problem: Any) -> None:
        self.seen.append(f"problem {problem.rule}")

    def close(self) -> None:
        self.seen.append("close")


def _job(url: str = UNUSED, **options: Any) -> ResumeJob:
    """Resume the recorded approval run (approving `transfer` unless told otherwise)."""
    options.setdefault("answers", AnswerOptions(approve=("transfer",)))
    return ResumeJob(sources=(APPROVAL_RUN1,), url=url, send=url != UNUSED, **options)


def _run(job: ResumeJob, view: Noted | None = None) -> Any:
    return resume_run(
        job,
        view or Noted(),
        environ={},
        now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
        run_id_factory=lambda: "run-2",
    )


def test_an_approval_is_posted_and_the_response_judged() -> None:
    view = Noted()
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        result = _run(_job(server.url("/chat")), view)
        posted = json.loads(server.received[0].body)
    assert isinstance(result, Sent)
    assert result.verdict is Verdict.FINISHED
    assert posted["runId"] == "run-2"
    assert posted["resume"] == result.body["resume"]
    assert view.seen[0] == "posting run-2 1"
    assert view.seen[1] == "source"
    assert view.seen[-1] == "close"
    assert "RUN_FINISHED" in view.seen


def test_without_send_the_request_is_built_not_posted() -> None:
    result = _run(_job())
    assert isinstance(result, Unsent)
    assert json.loads(result.text)["runId"] == "run-2"
    assert result.request.body == result.text.encode()


def test_unanswered_items_are_returned_after_the_view_declines_to_ask() -> None:
    view = Noted()
    result = _run(_job(answers=AnswerOptions()), view)
    assert isinstance(result, Unanswered)
    assert [d["id"] for d in result.descriptors] == [view.seen[0].removeprefix("ask ")]


def test_a_paused_again_response_is_recorded(tmp_path: Path) -> None:
    with scripted_server({"/chat": Route(TWO_RUN1)}) as server:
        result = _run(_job(server.url("/chat"), record=tmp_path / "out.sse"))
    assert isinstance(result, Sent)
    assert result.verdict is Verdict.PAUSED
    assert result.recorded is not None
    assert result.recorded[0].read_bytes() == TWO_RUN1


def test_a_batch_the_server_would_reject_is_refused() -> None:
    result = _run(_job(answers=AnswerOptions(answer=('transfer={"approved": "yes"}',))))
    assert isinstance(result, Refused)
    assert result.errors
