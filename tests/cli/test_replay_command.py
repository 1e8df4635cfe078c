"""`agui replay` end to end: exit codes, stdout and stderr asserted separately."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli.app import app
from cli.replay_command import Pace, ReplayOptions, run_replay

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = str(EXAMPLES / "transfer-approval.sse")
BROKEN = str(EXAMPLES / "broken.sse")
HAR = str(EXAMPLES / "session.har")
runner = CliRunner()


def invoke(*args: str, stdin: str | bytes | None = None, **env: str) -> object:
    return runner.invoke(app, ["replay", *args], input=stdin, env={"COLUMNS": "120", **env})


def test_example_timeline_is_plain_when_piped() -> None:
    result = runner.invoke(app, ["replay", EXAMPLE], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert result.stderr == ""
    out = result.stdout
    assert "\x1b[" not in out
    assert "> run run-1796035060821-bckiun thread thread-7f3c2a" in out
    assert "  assistant: I will transfer the money.\n" in out
    assert '* tool transfer (call_transfer_1) {"amount":42,"recipient":"Ada"}' in out
    assert "paused, waiting for 1 interrupt:" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("id "))
    assert header.split() == ["id", "kind", "reason", "message", "tool", "answered", "by"]
    row = next(line for line in out.splitlines() if "approval_call_transfer_1  approval" in line)
    assert "tool_call" in row
    assert "transfer (call_transfer_1)" in row
    assert "{approved: true, editedArgs?} or {approved: false}" in row


def test_check_clean_recording() -> None:
    result = runner.invoke(app, ["replay", "--check", EXAMPLE])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "agui replay: 0 errors, 0 warnings, 0 notices\n"


def test_check_broken_recording_lists_each_problem_with_its_line() -> None:
    result = runner.invoke(app, ["replay", "--check", BROKEN])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"{BROKEN}:8: event 3: error: TEXT_MESSAGE_CONTENT names messageId 'msg_2', never"
        " started [unknown-message-id]"
    )
    assert any(line.startswith(f"{BROKEN}:12: event 5: error: invalid JSON") for line in lines)
    rules = [line.rsplit("[", 1)[1].rstrip("]") for line in lines]
    assert rules.count("invalid-event") == 2
    assert "legacy-approval-event" in rules
    assert result.stderr == "agui replay: 10 errors, 2 warnings, 0 notices\n"


def test_strict_counts_warnings_as_errors(tmp_path: Path) -> None:
    recording = tmp_path / "r.sse"
    recording.write_text(
        'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
        'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'
        'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t"}\n\n'
    )
    assert runner.invoke(app, ["replay", "--check", str(recording)]).exit_code == 0
    strict = runner.invoke(app, ["replay", "--check", "--strict", str(recording)])
    assert strict.exit_code == 1
    assert ": error: messageId 'm' has no TEXT_MESSAGE_END" in strict.stdout


def test_json_is_ndjson_of_events() -> None:
    result = runner.invoke(app, ["replay", "--json", EXAMPLE])
    assert result.exit_code == 0
    assert result.stderr == ""
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [event["type"] for event in events][:2] == ["RUN_STARTED", "TEXT_MESSAGE_START"]
    assert events[-1]["outcome"]["interrupts"][0]["toolCallId"] == "call_transfer_1"
    assert all(" " not in line.split('"')[0] for line in result.stdout.splitlines())
    original = Path(EXAMPLE).read_text("utf-8").split("\n\n")
    assert result.stdout.splitlines()[0] == original[0].removeprefix("data: ")


def test_json_findings_go_to_stderr() -> None:
    result = runner.invoke(app, ["replay", "--check", "--json", BROKEN])
    assert result.exit_code == 1
    for line in result.stdout.splitlines():
        json.loads(line)
    assert "[unknown-message-id]" in result.stderr
    assert "[unknown-message-id]" not in result.stdout


@pytest.mark.parametrize("strict", [[], ["--strict"]])
def test_json_findings_on_stderr_say_their_severity(strict: list[str]) -> None:
    # They lacked it ("event 3: TEXT_MESSAGE_CONTENT names ..."): an error could not be
    # told from a warning, as `--check` and the timeline tell them.
    result = runner.invoke(app, ["replay", "--json", *strict, BROKEN])
    check = runner.invoke(app, ["replay", "--check", *strict, BROKEN])
    assert result.exit_code == check.exit_code == 1
    findings = result.stderr.splitlines()[:-1]
    assert sorted(findings) == sorted(check.stdout.splitlines())
    warning = "warning" if not strict else "error"
    assert f"event 8: {warning}: messageId 'msg_1' has no TEXT_MESSAGE_END" in result.stderr


def test_normalize_json() -> None:
    result = runner.invoke(app, ["replay", "--json", "--normalize", HAR])
    events = [json.loads(line) for line in result.stdout.splitlines()]
    started = [e for e in events if e["type"] == "RUN_STARTED"]
    assert [e["runId"] for e in started] == ["run-1", "run-2"]
    assert {e.get("timestamp") for e in events} == {0}
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")
    assert snapshot["messages"][0]["id"] == "msg-1"
    assert snapshot["messages"][0]["metadata"]["tanstack"]["createdAt"].startswith("1970-")
    terminal = next(e for e in events if e.get("outcome"))
    binding = terminal["outcome"]["interrupts"][0]["metadata"]["tanstack:interruptBinding"]
    assert binding["interruptedRunId"] == "run-1"


def test_har_links_the_continuation_to_its_request() -> None:
    result = runner.invoke(app, ["replay", HAR], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert f"== {HAR}#entry1" in result.stdout
    assert "parent run-1796035060821-bckiun" in result.stdout
    assert 'answers approval_call_transfer_1: resolved {"approved":true}' in result.stdout
    check = runner.invoke(app, ["replay", "--check", HAR])
    assert (check.exit_code, check.stdout) == (0, "")


def test_stdin(tmp_path: Path) -> None:
    data = Path(EXAMPLE).read_bytes()
    result = runner.invoke(app, ["replay", "--json", "-"], input=data)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 10


def test_several_files_are_one_timeline(tmp_path: Path) -> None:
    har = json.loads(Path(HAR).read_text("utf-8"))
    entry = har["log"]["entries"][2]
    (tmp_path / "run2.sse").write_text(entry["response"]["content"]["text"])
    (tmp_path / "run2.request.json").write_text(entry["request"]["postData"]["text"])
    result = runner.invoke(app, ["replay", "--check", EXAMPLE, str(tmp_path / "run2.sse")])
    assert (result.exit_code, result.stdout) == (0, "")
    alone = runner.invoke(app, ["replay", "--check", str(tmp_path / "run2.sse")])
    assert "[resume-parent-not-recorded]" in alone.stdout
    assert alone.exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.sse"], "agui: missing.sse: no such file\n"),
        (["--json", "--format", "sarif", "x.sse"], "agui: --json writes events; it cannot"),
        (["--tools", "t.json", "x.sse"], "agui: --tools is only used with --native\n"),
    ],
)
def test_cannot_run_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["replay", *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_directory_and_bad_har(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(tmp_path)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert "is a directory" in result.stderr
    bad = tmp_path / "bad.har"
    bad.write_text("{nope")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2
    assert "not a valid HAR file" in result.stderr


def test_bad_pace_is_a_usage_error() -> None:
    result = runner.invoke(app, ["replay", "--pace", "slowly", EXAMPLE])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "slowly" in result.stderr


def test_empty_file_is_a_finding(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sse"
    empty.write_bytes(b"")
    result = runner.invoke(app, ["replay", "--check", str(empty)])
    assert result.exit_code == 1
    assert result.stdout == f"{empty}: error: the recording holds no events [empty-recording]\n"


def test_har_without_event_streams_is_a_finding(tmp_path: Path) -> None:
    har = tmp_path / "x.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": []}}))
    result = runner.invoke(app, ["replay", "--check", str(har)])
    assert result.exit_code == 1
    assert "[no-run]" in result.stdout


def test_sarif_regions() -> None:
    result = runner.invoke(app, ["replay", "--format", "sarif", BROKEN])
    assert result.exit_code == 1
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    first = run["results"][0]
    assert first["ruleId"] == "unknown-message-id"
    assert rule_ids[first["ruleIndex"]] == "unknown-message-id"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == BROKEN
    assert location["region"]["startLine"] == 8
    assert location["region"]["startColumn"] == 1
    assert first["level"] == "error"


def test_junit_and_json_formats() -> None:
    junit = runner.invoke(app, ["replay", "--format", "junit", BROKEN, EXAMPLE])
    assert junit.exit_code == 1
    suite = ElementTree.fromstring(junit.stdout).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases[BROKEN].find("failure") is not None
    assert cases[EXAMPLE].find("failure") is None
    report = json.loads(runner.invoke(app, ["replay", "--format", "json", BROKEN]).stdout)
    assert report["summary"] == {"error": 10, "warning": 2, "notice": 0}
    assert report["findings"][0]["line"] == 8


def test_pace_sleeps_by_recorded_gaps() -> None:
    slept: list[float] = []
    options = ReplayOptions(recordings=(HAR,), json_events=True, pace=Pace.parse("2"))
    run_replay(options, sleep=slept.append)
    assert slept, "a paced replay sleeps"
    assert all(0 < delay <= 5.0 for delay in slept)
    # The recording spans 226 ms between its first and last timestamp: half of it at 2x.
    assert sum(slept) == pytest.approx(0.113, abs=0.002)


def test_fast_pace_never_sleeps() -> None:
    slept: list[float] = []
    run_replay(ReplayOptions(recordings=(HAR,), json_events=True), sleep=slept.append)
    assert slept == []


def test_native_view_of_a_legacy_recording(tmp_path: Path) -> None:
    legacy = tmp_path / "legacy.sse"
    legacy.write_text(
        'data: {"type":"RUN_STARTED","runId":"r1","threadId":"t1"}\n\n'
        'data: {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"transfer"}\n\n'
        'data: {"type":"TOOL_CALL_END","toolCallId":"c1"}\n\n'
        'data: {"type":"RUN_FINISHED","runId":"r1","threadId":"t1","finishReason":"tool_calls"}\n\n'
        'data: {"type":"CUSTOM","name":"approval-requested","value":{"toolCallId":"c1",'
        '"toolName":"transfer","input":{},"approval":{"id":"approval_c1","needsApproval":true}}}\n\n'
    )
    plain = runner.invoke(app, ["replay", "--check", str(legacy)])
    assert "[legacy-approval-event]" in plain.stdout
    native = runner.invoke(app, ["replay", "--native", "--json", str(legacy)])
    assert native.exit_code == 0, native.stderr
    events = [json.loads(line) for line in native.stdout.splitlines()]
    assert events[-1]["outcome"]["type"] == "interrupt"
    assert events[-1]["outcome"]["interrupts"][0]["id"] == "approval_c1"
    tools = tmp_path / "tools.json"
    tools.write_text("[{]")
    bad = runner.invoke(app, ["replay", "--native", "--tools", str(tools), str(legacy)])
    assert bad.exit_code == 2
    assert "not valid JSON" in bad.stderr


def _render(*, terminal: bool, **env: str) -> str:
    console = Console(
        width=120, force_terminal=terminal, color_system="standard" if terminal else None
    )
    with console.capture() as captured:
        run_replay(ReplayOptions(recordings=(EXAMPLE,)), out=console)
    return captured.get()


def test_rich_timeline_on_a_terminal() -> None:
    out = _render(terminal=True)
    assert "\x1b[" in out
    assert "▶ run run-1796035060821-bckiun" in out
    assert "approval_call_transfer_1" in out
    assert "answered by" in out


def test_no_color_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    console = Console(width=120, force_terminal=True)
    with console.capture() as captured:
        run_replay(ReplayOptions(recordings=(EXAMPLE,)), out=console)
    out = captured.get()
    assert "▶ run" in out
    assert "\x1b[3" not in out  # no foreground colours


def test_json_of_a_lone_surrogate_is_still_utf8_json(tmp_path: Path) -> None:
    # `json.loads` accepts "\ud800", which has no UTF-8 form: the line keeps it escaped.
    path = tmp_path / "surrogate.sse"
    path.write_bytes(
        b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
        b'data: {"type":"TEXT_MESSAGE_START","messageId":"m\\ud800","delta":"\xc3\xa9"}\n\n'
        b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t"}\n\n'
    )
    result = CliRunner().invoke(app, ["replay", "--json", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout_bytes.decode("utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "RUN_FINISHED",
    ]
    assert '"messageId":"m\\ud800"' in lines[1]
    assert json.loads(lines[1])["delta"] == "é"


def test_export_writes_what_a_hand_built_resume_reads() -> None:
    from pathlib import Path

    native = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
    run1 = str(native / "two-approvals.approve-both.run1.sse")
    items = runner.invoke(app, ["replay", "--export", "items", run1], env={})
    assert items.exit_code == 0, items.stderr
    assert [d["id"] for d in json.loads(items.stdout)] == [
        "approval_call_transfer_1",
        "approval_call_delete_1",
    ]
    messages = runner.invoke(app, ["replay", "--export", "messages", run1], env={})
    assert messages.exit_code == 0, messages.stderr
    roles = [m["role"] for m in json.loads(messages.stdout)]
    assert roles == ["user", "assistant"]
    finished = str(native / "two-approvals.approve-both.run2.sse")
    nothing = runner.invoke(app, ["replay", "--export", "items", finished], env={})
    assert nothing.exit_code == 2
    assert "no paused run to resume" in nothing.stderr
    both = runner.invoke(app, ["replay", "--export", "items", "--check", run1], env={})
    assert both.exit_code == 2
    assert "--export writes one JSON document" in both.stderr


@pytest.mark.parametrize("extra", [[], ["--check"], ["--json"]])
def test_an_empty_recording_name_is_named_as_such(extra: list[str]) -> None:
    # `agui replay "$UNSET"` used to say "agui: : is a directory, expected a recording file"
    result = runner.invoke(app, ["replay", *extra, ""])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "agui: an empty recording name: give a file path, or - for stdin\n"
