"""`agui replay --html OUT`: the page file, its exit codes, and what stays on stdout/stderr."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HAR = str(EXAMPLES / "session.har")
BROKEN = str(EXAMPLES / "broken.sse")
LEGACY = str(EXAMPLES / "legacy" / "two-approvals.0.42.0.sse")
runner = CliRunner()


def invoke(*args: str) -> object:
    return runner.invoke(app, ["replay", *args], env={"COLUMNS": "80"})


def test_html_writes_the_page_and_nothing_on_stdout(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = invoke("--html", str(out), HAR)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr == (
        f"agui replay: wrote {out} (2 runs, 1 paused, 0 unanswered interrupts)\n"
    )
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    assert 'id="r0-i0" data-interrupt-id="approval_call_transfer_1"' in page
    assert 'href="#r0-i0"' in page  # the resume entry links to the interrupt it answers
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_html_with_check_keeps_the_check_report(tmp_path: Path) -> None:
    out = tmp_path / "broken.html"
    alone = invoke("--check", BROKEN)
    result = invoke("--check", "--html", str(out), BROKEN)
    assert result.exit_code == alone.exit_code == 1
    assert result.stdout == alone.stdout
    assert result.stderr == alone.stderr + (
        f"agui replay: wrote {out} (1 run, 1 paused, 2 unanswered interrupts)\n"
    )
    page = out.read_text(encoding="utf-8")
    assert page.count('<li class="finding sev-error"') == 10
    assert page.count('<li class="finding sev-warning"') == 2


def test_html_with_native_marks_the_translation(tmp_path: Path) -> None:
    out = tmp_path / "legacy.html"
    result = invoke("--native", "--html", str(out), LEGACY)
    assert result.exit_code == 0
    assert result.stdout == ""
    page = out.read_text(encoding="utf-8")
    assert "legacy events viewed as native interrupts (--native)" in page
    assert page.count('<span class="badge translated">translated</span>') == 2


def test_html_and_json_stream_events_and_write_the_page(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    plain = invoke("--json", HAR)
    result = invoke("--json", "--html", str(out), HAR)
    assert result.exit_code == 0
    assert result.stdout == plain.stdout
    assert out.exists()


def test_an_unwritable_page_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = invoke("--html", str(tmp_path / "missing" / "r.html"), HAR)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "missing/r.html: cannot write" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_failed_replay_leaves_no_page(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("the earlier report")
    result = invoke("--html", str(out), HAR, str(tmp_path / "nope.sse"))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert out.read_text() == "the earlier report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_html_refuses_serve_and_pace(tmp_path: Path) -> None:
    out = str(tmp_path / "r.html")
    for extra in (["--serve", "0"], ["--pace", "real"], ["--html", "-"]):
        result = invoke("--html", out, *extra, HAR)
        assert result.exit_code == 2
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1
        assert "--html" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_html_refuses_to_replace_what_it_reads(tmp_path: Path) -> None:
    # `--html run.sse run.sse` replaced the recording with the page, and exited 0
    recording = tmp_path / "run.sse"
    sidecar = tmp_path / "run.request.json"
    recording.write_bytes((EXAMPLES / "transfer-approval.sse").read_bytes())
    sidecar.write_bytes((EXAMPLES / "transfer-approval.request.json").read_bytes())
    tools = tmp_path / "tools.json"
    tools.write_bytes((EXAMPLES / "legacy" / "tools.json").read_bytes())
    before = {path: path.read_bytes() for path in (recording, sidecar, tools)}
    for target, extra in (
        (recording, []),
        (sidecar, []),
        (tools, ["--native", "--tools", str(tools)]),
    ):
        result = invoke("--html", str(target), *extra, str(recording))
        assert result.exit_code == 2
        assert result.stdout == ""
        assert result.stderr == (
            f"agui: --html: {target} would replace {target}, which this replay reads; "
            "write the page elsewhere\n"
        )
    assert {path: path.read_bytes() for path in before} == before


def test_lone_surrogates_show_as_the_replacement_character(tmp_path: Path) -> None:
    # JSON's "\ud800" escapes decode to lone surrogates, which UTF-8 cannot encode; a file
    # name that is not UTF-8 reaches argv as them too. The page used to die mid-write.
    ids = {"threadId": "t\ud800", "runId": "r\udfff"}
    events = [
        {"type": "RUN_STARTED", **ids},
        {"type": "TEXT_MESSAGE_START", "messageId": "m\ud800", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m\ud800", "delta": "x\udc00"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m\ud800"},
        {"type": "RUN_FINISHED", **ids},
    ]
    recording = tmp_path / "run-\udcff.sse"  # the bytes b"run-\xff.sse" on disk
    recording.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    out = tmp_path / "report.html"
    result = invoke("--html", str(out), str(recording))
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith("(1 run, 0 paused, 0 unanswered interrupts)\n")
    page = out.read_text(encoding="utf-8")
    assert "run <code>r\ufffd</code>" in page
    assert "<code>t\ufffd</code>" in page
    assert "run-\ufffd.sse" in page
