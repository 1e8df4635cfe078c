"""The resume job from Python: the data behind each `agui resume` outcome, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from replay.jobs.resume import (
    Refused,
    ResumeJob,
    Sent,
    Unanswered,
    Unsent,
    Verdict,
    resume_run,
)
from replay.resume.answers import Action, AnswerOptions, AnswerSpec
from replay.wire.errors import InvalidRequest
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

    def confirm(self, request: Any, resume: Sequence[Mapping[str, Any]]) -> bool:
        self.seen.append(f"confirm {request.run_id} {len(resume)}")
        return True

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


def test_a_hand_built_history_without_the_call_is_refused_as_data() -> None:
    job = ResumeJob(
        run_id="run-1",
        thread_id="t",
        answers=AnswerOptions(approve=("approval_call_x",)),
        url=UNUSED,
        send=False,
    )
    result = _run(job)
    assert isinstance(result, Refused)
    assert result.errors == ()
    (line,) = result.history
    assert line.startswith("approval_call_x: the history has no assistant tool call `call_x`")


def test_a_response_cut_mid_event_is_recorded_as_partial(tmp_path: Path) -> None:
    cut = APPROVAL_RUN2[: APPROVAL_RUN2.rindex(b"data:") + 20]
    with scripted_server({"/chat": Route([cut], endless=True)}) as server:
        result = _run(_job(server.url("/chat"), record=tmp_path / "out.sse"))
    assert isinstance(result, Sent)
    assert result.partial == "the response was cut mid-event"
    assert result.recorded == (tmp_path / "out.partial.sse", tmp_path / "out.partial.request.json")
    assert not (tmp_path / "out.sse").exists()


class Answering(Noted):
    """A view that answers what is waiting (approves it), then says whether to post."""

    def __init__(self, post: bool) -> None:
        super().__init__()
        self.post = post

    def ask(self, paused: Any, waiting: Sequence[str]) -> list[AnswerSpec] | None:
        super().ask(paused, waiting)
        return [AnswerSpec(Action.APPROVE, interrupt_id) for interrupt_id in waiting]

    def confirm(self, request: Any, resume: Sequence[Mapping[str, Any]]) -> bool:
        super().confirm(request, resume)
        return self.post


@pytest.mark.parametrize("post", [True, False])
def test_answers_given_when_asked_are_posted_only_when_confirmed(post: bool) -> None:
    view = Answering(post)
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        job = _job(server.url("/chat"), answers=AnswerOptions())
        if post:
            assert isinstance(_run(job, view), Sent)
        else:
            with pytest.raises(InvalidRequest, match="not posted; nothing was sent"):
                _run(job, view)
        received = len(server.received)
    assert view.seen[:2] == [view.seen[0], "confirm run-2 1"]
    assert view.seen[0].startswith("ask ")
    assert received == (1 if post else 0)
    assert ("posting run-2 1" in view.seen) is post


def test_answers_given_as_options_are_posted_without_confirming() -> None:
    view = Noted()
    with scripted_server({"/chat": Route(APPROVAL_RUN2)}) as server:
        assert isinstance(_run(_job(server.url("/chat")), view), Sent)
    assert not any(seen.startswith("confirm") for seen in view.seen)
