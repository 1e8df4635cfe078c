"""`agui translate`: where bytes go, exit codes, notices, atomic in-place rewrites."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "legacy"
TOOLS = EXAMPLES / "tools.json"
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
LEGACY = ROOT / "tests" / "fixtures" / "recordings" / "legacy" / "tool-approval.approve.run1.sse"
runner = CliRunner()


def legacy_copy(tmp_path: Path) -> Path:
    for name in ("tool-approval.0.42.0.sse", "tool-approval.0.42.0.request.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "tool-approval.0.42.0.sse"


def test_translates_to_stdout_with_notices_on_stderr(tmp_path: Path) -> None:
    path = legacy_copy(tmp_path)
    result = runner.invoke(app, ["translate", str(path), "--tools", str(TOOLS)])
    assert result.exit_code == 0, result.stderr
    assert '"outcome":{"type":"interrupt"' in result.stdout
    assert "approval-requested" not in result.stdout
    assert "[translated]" in result.stderr
    assert "[lost]" in result.stderr


def test_native_input_is_byte_identical_and_check_passes(tmp_path: Path) -> None:
    out = tmp_path / "out.sse"
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", str(out)])
    assert result.exit_code == 0
    assert out.read_bytes() == NATIVE.read_bytes()
    check = runner.invoke(app, ["translate", "--check", str(NATIVE)])
    assert check.exit_code == 0
    assert "native" in check.stderr


def test_check_fails_on_legacy_and_writes_nothing(tmp_path: Path) -> None:
    path = legacy_copy(tmp_path)
    before = path.read_bytes()
    result = runner.invoke(app, ["translate", "--check", str(path), str(NATIVE)])
    assert result.exit_code == 1
    assert f"{path}: has legacy events" in result.stderr
    assert path.read_bytes() == before


def test_in_place_rewrites_atomically_and_is_idempotent(tmp_path: Path) -> None:
    path = legacy_copy(tmp_path)
    result = runner.invoke(app, ["translate", "--in-place", str(path), "--tools", str(TOOLS)])
    assert result.exit_code == 0, result.stderr
    once = path.read_bytes()
    assert b'"outcome":{"type":"interrupt"' in once
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "tool-approval.0.42.0.request.json",
        "tool-approval.0.42.0.sse",
    ]
    again = runner.invoke(app, ["translate", "--in-place", str(path), "--tools", str(TOOLS)])
    assert again.exit_code == 0
    assert path.read_bytes() == once
    assert again.stderr == ""
    assert runner.invoke(app, ["translate", "--check", str(path)]).exit_code == 0


def test_json_notices_parse_line_by_line(tmp_path: Path) -> None:
    path = legacy_copy(tmp_path)
    result = runner.invoke(app, ["translate", "--check", "--json", str(path)])
    assert result.exit_code == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert {r["rule"] for r in records} == {"translated", "invented", "lost"}
    assert all(r["source"] == str(path) and r["severity"] == "notice" for r in records)


def test_stdin_to_stdout() -> None:
    data = (EXAMPLES / "client-tool.0.42.0.sse").read_bytes()
    result = runner.invoke(app, ["translate", "-", "--json"], input=data)
    assert result.exit_code == 0
    assert "client_tool_call_2" in result.stdout
    assert all(json.loads(line)["source"] == "<stdin>" for line in result.stderr.splitlines())


def test_refuses_to_overwrite_the_input(tmp_path: Path) -> None:
    path = legacy_copy(tmp_path)
    before = path.read_bytes()
    result = runner.invoke(app, ["translate", str(path), "-o", str(path)])
    assert result.exit_code == 2
    assert "refusing to overwrite the input" in result.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize("read", ["sidecar", "--request", "--tools"])
def test_refuses_to_overwrite_a_file_it_reads(read: str, tmp_path: Path) -> None:
    # -o NAME.request.json replaced the body it read, and the next read of it failed
    path = legacy_copy(tmp_path)
    sidecar = tmp_path / "tool-approval.0.42.0.request.json"
    tools = tmp_path / "tools.json"
    shutil.copy(TOOLS, tools)
    args = ["translate", str(path), "--tools", str(tools)]
    target = {"sidecar": sidecar, "--request": tmp_path / "body.json", "--tools": tools}[read]
    if read == "--request":
        shutil.copy(sidecar, target)
        args += ["--request", str(target)]
    before = target.read_bytes()
    result = runner.invoke(app, [*args, "-o", str(target)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"agui: {target}: refusing to overwrite {target}, which this translation reads\n"
    )
    assert target.read_bytes() == before


def test_bad_inputs_exit_2_with_one_line(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["translate", str(tmp_path / "nope.sse")])
    assert missing.exit_code == 2
    assert "no such file" in missing.stderr
    bad_tools = tmp_path / "tools.json"
    bad_tools.write_text('[{"name": 3}]', "utf-8")
    result = runner.invoke(app, ["translate", str(NATIVE), "--tools", str(bad_tools)])
    assert result.exit_code == 2
    assert "`name` must be a non-empty string" in result.stderr
    assert "Traceback" not in result.stderr
    many = runner.invoke(app, ["translate", str(NATIVE), str(NATIVE)])
    assert many.exit_code == 2
    har = tmp_path / "x.har"
    har.write_text('{"log": {"entries": []}}', "utf-8")
    assert runner.invoke(app, ["translate", str(har)]).exit_code == 2


def test_input_without_an_event_is_copied_with_one_word(tmp_path: Path) -> None:
    # Random bytes, a comment-only stream and an empty file hold no event: translate still
    # copies them as they are, but says so on stderr instead of exiting 0 in silence.
    inputs = {
        "noise.bin": bytes((i * 7919 + 13) % 256 for i in range(4096)),
        "comments.sse": b": keep-alive\n\n: another\n\n",
        "empty.sse": b"",
    }
    for name, data in inputs.items():
        path = tmp_path / name
        path.write_bytes(data)
        result = runner.invoke(app, ["translate", str(path)])
        assert result.exit_code == 0, result.stderr
        assert result.stdout_bytes == data
        assert result.stderr == f"{path}: the recording holds no events [empty-recording]\n"


def test_stdin_without_an_event_is_named_in_the_notice() -> None:
    result = runner.invoke(app, ["translate", "--format", "json", "-"], input=b"")
    assert result.exit_code == 0
    assert result.stdout == ""
    record = json.loads(result.stderr)
    assert (record["rule"], record["source"]) == ("empty-recording", "<stdin>")


def test_check_names_an_input_without_an_event(tmp_path: Path) -> None:
    noise = tmp_path / "noise.sse"
    noise.write_bytes(b"\x00\xff not a stream \x80\n")
    result = runner.invoke(app, ["translate", "--check", str(noise), str(NATIVE)])
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        f"{noise}: the recording holds no events [empty-recording]",
        f"{noise}: no events",
        f"{NATIVE}: native",
    ]


def test_unreadable_events_are_not_reported_twice(tmp_path: Path) -> None:
    # A stream whose only event is invalid JSON already has its finding: no second one.
    path = tmp_path / "bad.sse"
    path.write_bytes(b"data: {bad\n\n")
    result = runner.invoke(app, ["translate", str(path)])
    assert result.exit_code == 0
    assert result.stdout_bytes == path.read_bytes()
    assert "[invalid-json]" in result.stderr
    assert "empty-recording" not in result.stderr
    assert runner.invoke(app, ["translate", "--check", str(path)]).stderr.endswith(
        f"{path}: no events\n"
    )


@pytest.mark.parametrize(
    ("argument", "line"),
    [
        (".", "agui: .: is a directory, expected a recording file\n"),
        ("/", "agui: /: is a directory, expected a recording file\n"),
        ("", "agui: an empty recording name: give a file path, or - for stdin\n"),
    ],
)
def test_a_directory_or_an_empty_name_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argument: str, line: str
) -> None:
    # `agui translate .` in a folder of recordings used to end in a ValueError traceback
    # (the request sidecar of a path without a name), `agui translate ""` too
    monkeypatch.chdir(tmp_path)
    for command in (["translate", argument], ["translate", "--check", argument]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.exception
        assert result.stdout == ""
        assert result.stderr == line


def test_an_empty_output_name_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", ""])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "agui: --output: an empty file name: give a file path, or - for stdout\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_notices_show_control_characters_as_escapes(tmp_path: Path) -> None:
    # a tool name with an ESC in a legacy recording reached the terminal raw in the notice
    path = legacy_copy(tmp_path)
    path.write_bytes(path.read_bytes().replace(b'"transfer"', b'"tr\\u001b[2Jansfer"'))
    result = runner.invoke(app, ["translate", str(path)])
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stderr
    assert "approval-requested for tr\\x1b[2Jansfer (call_transfer_1)" in result.stderr
    as_json = runner.invoke(app, ["translate", "--check", "--format", "json", str(path)])
    messages = [json.loads(line)["message"] for line in as_json.stdout.splitlines()]
    assert any("tr\x1b[2Jansfer" in message for message in messages)  # JSON keeps the text


@pytest.mark.parametrize("mode", ["--write", "--check"])
def test_an_input_that_fails_stops_only_itself(tmp_path: Path, mode: str) -> None:
    # Before, `translate --write a missing c` stopped at the missing file: `c` was left
    # legacy, and nothing said it had not been translated.
    first, last = tmp_path / "a.sse", tmp_path / "c.sse"
    shutil.copy(LEGACY, first)
    shutil.copy(LEGACY, last)
    missing = tmp_path / "b.sse"
    result = runner.invoke(app, ["translate", mode, str(first), str(missing), str(last)])
    assert result.exit_code == 2
    done = "translated" if mode == "--write" else "checked"
    assert f"agui: {missing}: no such file\n" in result.stderr
    assert result.stderr.endswith(f"agui: 1 of 3 inputs not {done} (see above)\n")
    if mode == "--write":
        for path in (first, last):
            assert b"approval-requested" not in path.read_bytes()
            assert b'"outcome":{"type":"interrupt"' in path.read_bytes()
    else:
        assert f"{last}: has legacy events" in result.stderr


def test_write_leaves_an_input_with_nothing_to_translate_alone(tmp_path: Path) -> None:
    # Before, --write replaced a native file with a copy of itself (new inode and mtime,
    # so every build saw it change) and refused a read-only one it had no need to touch.
    legacy = legacy_copy(tmp_path)
    native, read_only = tmp_path / "native.sse", tmp_path / "read-only.sse"
    shutil.copy(NATIVE, native)
    shutil.copy(NATIVE, read_only)
    read_only.chmod(0o444)
    os.utime(native, (1_000_000, 1_000_000))
    before = native.stat()
    result = runner.invoke(app, ["translate", "--write", str(legacy), str(native), str(read_only)])
    assert result.exit_code == 0, result.stderr
    after = native.stat()
    assert (after.st_ino, after.st_mtime) == (before.st_ino, before.st_mtime)
    assert native.read_bytes() == read_only.read_bytes() == NATIVE.read_bytes()
    assert b'"outcome":{"type":"interrupt"' in legacy.read_bytes()
    assert "read-only" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "native.sse",
        "read-only.sse",
        "tool-approval.0.42.0.request.json",
        "tool-approval.0.42.0.sse",
    ]


def test_write_still_refuses_a_read_only_input_it_would_change(tmp_path: Path) -> None:
    legacy = legacy_copy(tmp_path)
    before = legacy.read_bytes()
    legacy.chmod(0o444)
    result = runner.invoke(app, ["translate", "--write", str(legacy)])
    assert result.exit_code == 2
    assert result.stderr == (f"agui: {legacy}: read-only file (chmod u+w to allow rewriting it)\n")
    assert legacy.read_bytes() == before
