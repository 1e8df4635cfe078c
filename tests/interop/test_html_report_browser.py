"""`agui replay --html` pages opened in a real headless Chromium (@sparticuz/chromium driven
by playwright-core from `native/report_view.mjs`): what a reader sees and can click, no
console errors, no network request, and recorded markup shown as text, never run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.html_hostile import HOSTILE_IMG, HOSTILE_SCRIPT, hostile_recording
from tests.interop.harness import NodeTools

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native"
LEGACY = ROOT / "tests" / "fixtures" / "recordings" / "legacy"
EXAMPLES = ROOT / "examples"
VIEWER_TIMEOUT_S = 180.0


def report(tmp_path: Path, name: str, *args: str) -> Path:
    """Write the page with the real command, as a user would."""
    out = tmp_path / f"{name}.html"
    result = CliRunner().invoke(app, ["replay", "--html", str(out), *args])
    assert result.exit_code in (0, 1), result.output
    assert out.exists()
    return out


def view(node: NodeTools, project: Path, page: Path, *extra: str) -> dict[str, Any]:
    """Open the page in Chromium; a screenshot lands beside it."""
    shot = page.with_suffix(".png")
    done = subprocess.run(
        [node.node, "report_view.mjs", str(page), str(shot), *extra],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=VIEWER_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert shot.stat().st_size > 1000
    assert result["consoleErrors"] == []
    assert result["pageErrors"] == []
    assert result["requests"] == []
    assert result["dialogs"] == []
    return result


@pytest.fixture
def see(interop_node: NodeTools, native_project: Path, tmp_path: Path) -> Any:
    def see(name: str, *args: str) -> dict[str, Any]:
        return view(interop_node, native_project, report(tmp_path, name, *args))

    return see


def native(case: str, *runs: str) -> list[str]:
    return [str(NATIVE / f"{case}.{run}.sse") for run in runs or ("run1", "run2")]


def test_two_approvals_and_their_answers(see: Any) -> None:
    seen = see("two-approvals", *native("two-approvals.approve-one-reject-other"))
    page = seen["view"]
    assert page["summaryAboveRuns"]
    assert page["totals"] == "2 runs, 1 paused, 2 interrupts"
    interrupts = {item["id"]: item for item in page["interrupts"]}
    assert list(interrupts) == ["approval_call_transfer_1", "approval_call_delete_1"]
    for item in interrupts.values():
        assert item["status"] == "answered"
        assert "answered" in item["classes"]
        assert len(item["answers"]) == 1
        assert "toolCallId" in item["text"]
        assert "Approval required to run" in item["text"]
    resumes = {entry["link"]: entry["text"] for entry in page["resumes"]}
    delete = resumes["#" + interrupts["approval_call_delete_1"]["anchor"]]
    assert delete.startswith("answers approval_call_delete_1: resolved")
    assert '"approved": false' in delete
    transfer = resumes["#" + interrupts["approval_call_transfer_1"]["anchor"]]
    assert '"approved": true' in transfer
    # Resume entry → its interrupt → back to the resume entry: two clicks, both land.
    to_interrupt, back, from_summary, to_answer = seen["clicks"]
    assert to_interrupt["visible"]
    assert to_interrupt["hash"] == page["resumes"][0]["link"]
    assert to_interrupt["text"].startswith("interrupt approval_call_delete_1")
    assert back["visible"]
    assert back["hash"] == "#" + page["resumes"][0]["anchor"]
    # From the summary's list of pauses to the answer: two clicks.
    assert from_summary["hash"] == "#" + interrupts["approval_call_transfer_1"]["anchor"]
    assert from_summary["visible"]
    assert to_answer["hash"] == interrupts["approval_call_transfer_1"]["answers"][0]
    assert to_answer["visible"]
    assert to_answer["text"].startswith("answers approval_call_transfer_1: resolved")
    assert seen["unfolded"] == "Two actions need approval."


def test_a_generic_interrupt_shows_its_response_schema(see: Any) -> None:
    seen = see("generic", *native("generic-two-cards.one-cancelled"))
    interrupts = seen["view"]["interrupts"]
    assert len(interrupts) == 2
    plan = next(item for item in interrupts if "approved: boolean" in item["text"])
    assert "responseSchema" in plan["text"]
    assert "note?: string" in plan["text"]
    assert any("audience: string" in item["text"] for item in interrupts)
    statuses = sorted(
        entry["text"].split(": ")[1].split("\n")[0] for entry in seen["view"]["resumes"]
    )
    assert statuses == ["cancelled", "resolved"]
    assert all(item["status"] == "answered" for item in interrupts)


def test_a_legacy_recording_through_native_marks_the_translation(see: Any) -> None:
    legacy = str(LEGACY / "two-approvals.approve-both.run1.sse")
    seen = see("legacy", "--native", legacy)
    page = seen["view"]
    assert [item["id"] for item in page["interrupts"]] == [
        "approval_call_transfer_1",
        "approval_call_delete_1",
    ]
    for item in page["interrupts"]:
        assert "translated" in item["text"]
        assert item["status"] == "unanswered"
    assert "translated from legacy events" in page["runs"][0]["heading"]
    notices = [f for f in page["findings"] if f["severity"] == "notice"]
    assert {f["rule"] for f in notices} >= {"translated", "lost"}
    assert all(f["visible"] for f in notices)
    assert seen["noticesShownWhenFiltered"] == 0


def test_a_broken_recording_lists_its_findings(see: Any) -> None:
    seen = see("broken", str(EXAMPLES / "broken.sse"))
    page = seen["view"]
    rules = [f["rule"] for f in page["findings"]]
    assert rules.count("invalid-event") == 2
    assert {"invalid-json", "unknown-event", "duplicate-interrupt-id"} <= set(rules)
    assert all(f["visible"] and f["message"] for f in page["findings"])
    assert page["rules"][0].split() == ["invalid-event", "error", "2"]
    assert [item["status"] for item in page["interrupts"]] == ["unanswered", "unanswered"]
    assert "2 unanswered" in page["totals"]


def test_a_pause_answered_twice_stands_out(see: Any) -> None:
    run1, run2 = native("tool-approval.approve")
    page = see("twice", run1, run2, run2)["view"]
    (item,) = page["interrupts"]
    assert item["status"] == "answered 2 times"
    assert "answered-twice" in item["classes"]
    assert [entry["classes"][-1] for entry in page["resumes"]] == [
        "state-answers",
        "state-answers-again",
    ]
    assert "answered more than once" in page["resumes"][1]["text"]


def test_injected_markup_renders_as_text(see: Any, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    seen = see("hostile", str(hostile_recording(tmp_path / "in")))
    page = seen["view"]
    assert page["injected"] is None
    assert page["images"] == 0
    assert page["scripts"] == 1
    (item,) = page["interrupts"]
    assert item["id"] == HOSTILE_IMG
    assert HOSTILE_SCRIPT in item["text"]
    assert HOSTILE_SCRIPT in seen["unfolded"]
    assert any("<img src=x onerror=" in f["message"] for f in page["findings"])


def test_lone_surrogates_show_as_replacement_characters(see: Any, tmp_path: Path) -> None:
    # JSON "\ud800" escapes decode to lone surrogates; the page used to die writing them.
    ids = {"threadId": "t", "runId": "r\udfff"}
    interrupt = {"id": "i\ud800", "reason": "confirm", "message": "ok?\udc00"}
    events = [
        {"type": "RUN_STARTED", **ids},
        {
            "type": "RUN_FINISHED",
            **ids,
            "outcome": {"type": "interrupt", "interrupts": [interrupt]},
        },
    ]
    recording = tmp_path / "surrogates.sse"
    recording.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    page = see("surrogates", str(recording))["view"]
    (item,) = page["interrupts"]
    assert item["id"] == "i\ufffd"
    assert "ok?\ufffd" in item["text"]
    assert item["status"] == "unanswered"


def test_a_10_mb_recording_stays_responsive(
    interop_node: NodeTools, native_project: Path, tmp_path: Path
) -> None:
    recording = tmp_path / "big.sse"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "generate_recording.py"),
            "--size",
            "10MB",
            str(recording),
        ],
        check=True,
        capture_output=True,
    )
    page = report(tmp_path, "big", str(recording))
    timing = view(interop_node, native_project, page, "--timing")["timing"]
    assert timing["runs"] > 1000
    assert timing["hashTarget"].startswith("#r")
    # Generous bounds for a shared 2-core machine; locally each takes well under 2 s.
    assert timing["loadMs"] < 20_000
    assert timing["unfoldMs"] < 15_000
    assert timing["pauseMs"] < 15_000
    assert timing["filterMs"] < 15_000


def test_viewer_needs_its_arguments(interop_node: NodeTools, native_project: Path) -> None:
    done = subprocess.run(
        [interop_node.node, "report_view.mjs"],
        cwd=native_project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage:")


def test_the_readme_example_follows_a_pause_to_its_answer(see: Any) -> None:
    seen = see("session", str(EXAMPLES / "session.har"))
    from_summary, to_answer = seen["clicks"][2:]
    assert from_summary["text"].startswith("interrupt approval_call_transfer_1")
    assert to_answer["visible"]
    assert (
        to_answer["text"] == 'answers approval_call_transfer_1: resolved\n{\n  "approved": true\n}'
    )


def test_the_viewer_notices_requests_errors_and_injected_script(
    interop_node: NodeTools, native_project: Path, tmp_path: Path
) -> None:
    """The checks above can fail: a page that loads, logs and runs what it should not."""
    page = tmp_path / "control.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">'
        "<script>window.__aguiInjected = 'script'; console.error('boom')</script>"
        '<div id="summary"></div><main id="runs"></main></body></html>'
    )
    done = subprocess.run(
        [interop_node.node, "report_view.mjs", str(page), str(tmp_path / "control.png")],
        cwd=native_project,
        capture_output=True,
        text=True,
        timeout=VIEWER_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["requests"] == ["http://127.0.0.1:9/x.png"]
    assert "boom" in seen["consoleErrors"]
    assert seen["view"]["injected"] == "script"
