"""`choose_run` never picks a paused run that a later run of the timeline already answered."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from replay.resume.paused_run import choose_run, continuation_of, read_runs
from replay.wire.errors import InvalidRequest
from replay.wire.recording import open_recordings

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"


def runs_of(*paths: Path) -> tuple:  # type: ignore[type-arg]
    return read_runs(open_recordings([str(p) for p in paths])).runs


def test_a_bare_continuation_on_the_same_thread_counts_as_the_answer() -> None:
    first, second = runs_of(
        NATIVE / "tool-approval.approve.run1.sse", NATIVE / "tool-approval.approve.run2.sse"
    )
    assert continuation_of([first, second], first) is second
    with pytest.raises(InvalidRequest) as caught:
        choose_run([first, second], None)
    message = str(caught.value)
    assert message.startswith(f"nothing left to resume: run {first.run_id} was already resumed")
    assert f"by run {second.run_id} at " in message
    assert "tool-approval.approve.run2.sse" in message
    assert "--force" in message
    with pytest.raises(InvalidRequest, match=f"--run-id {first.run_id}: run .* already resumed"):
        choose_run([first, second], first.run_id)
    assert choose_run([first, second], None, force=True) is first
    assert choose_run([first, second], first.run_id, force=True) is first


def test_a_recorded_request_names_the_run_it_answered(tmp_path: Path) -> None:
    """With the continuation's request beside it, only the parent it names is answered."""
    for name in ("two-approvals.approve-both", "tool-approval.approve"):
        shutil.copy(NATIVE / f"{name}.run1.sse", tmp_path / f"{name}.sse")
        shutil.copy(NATIVE / f"{name}.request.json", tmp_path / f"{name}.request.json")
    shutil.copy(NATIVE / "tool-approval.approve.run2.sse", tmp_path / "cont.sse")
    shutil.copy(NATIVE / "tool-approval.approve.resume.json", tmp_path / "cont.request.json")
    other, paused, cont = runs_of(
        tmp_path / "two-approvals.approve-both.sse",
        tmp_path / "tool-approval.approve.sse",
        tmp_path / "cont.sse",
    )
    assert (
        cont.parent_run_id
        == json.loads((tmp_path / "cont.request.json").read_text())["parentRunId"]
    )
    assert continuation_of([other, paused, cont], paused) is cont
    assert continuation_of([other, paused, cont], other) is None
    # The newest paused run is answered, so the default is the older one still open.
    assert choose_run([other, paused, cont], None) is other


def test_a_run_that_paused_again_is_the_one_to_resume() -> None:
    first, second = runs_of(
        NATIVE / "tool-approval.approve.run1.sse", NATIVE / "two-approvals.approve-both.run1.sse"
    )
    # Different threads: neither answers the other; the newest paused run is chosen.
    assert continuation_of([first, second], first) is None
    assert choose_run([first, second], None) is second


def test_a_continuation_the_server_refused_answered_nothing(tmp_path: Path) -> None:
    shutil.copy(NATIVE / "tool-approval.approve.run1.sse", tmp_path / "run.sse")
    shutil.copy(NATIVE / "tool-approval.approve.request.json", tmp_path / "run.request.json")
    request = json.loads((NATIVE / "tool-approval.approve.resume.json").read_text())
    (tmp_path / "refused.request.json").write_text(json.dumps(request))
    item_error = {"scope": "item", "code": "invalid-payload"}
    tanstack = {"runId": request["runId"], "threadId": request["threadId"]}
    error = {
        "type": "RUN_ERROR",
        "timestamp": 1,
        "code": "invalid-payload",
        "message": "Approval approval_call_transfer_1 must be a boolean or decision envelope.",
        "metadata": {"tanstack": {**tanstack, "interruptErrors": [item_error]}},
    }
    (tmp_path / "refused.sse").write_text(f"data: {json.dumps(error)}\n\n")
    paused, refused = runs_of(tmp_path / "run.sse", tmp_path / "refused.sse")
    assert refused.parent_run_id == paused.run_id
    assert continuation_of([paused, refused], paused) is None
    assert choose_run([paused, refused], None) is paused
