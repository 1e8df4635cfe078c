"""`agui migrate --write` on files that must not, or cannot simply, be replaced."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from codemods.report import shown_path

LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
runner = CliRunner()


def summary_count(stderr: str, label: str) -> int:
    found = re.search(rf"^{re.escape(label)}\s+(\d+)$", stderr, re.MULTILINE)
    assert found is not None, stderr
    return int(found[1])


def test_a_read_only_file_is_refused_and_not_counted_as_changed(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_bytes(LEGACY_CODE)
    path.chmod(0o444)
    result = runner.invoke(app, ["migrate", "--write", str(path)])
    assert result.exit_code == 2
    assert path.read_bytes() == LEGACY_CODE
    assert f"{path}: cannot write: read-only file" in result.stderr
    assert summary_count(result.stderr, "changed") == 0
    assert summary_count(result.stderr, "failed") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.py"]


DEEP = b"x = " + b"(" * 1300 + b"client.pending_interrupts" + b")" * 1300 + b"\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("newline", [b"\n", b"\r"])
def test_a_file_nested_too_deeply_fails_alone(
    tmp_path: Path, jobs: str, newline: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for number in range(8):
        (tmp_path / f"ok{number}.py").write_bytes(LEGACY_CODE)
    deep = tmp_path / "deep.py"
    deep.write_bytes(b"import os" + newline + DEEP.replace(b"\n", newline))
    result = runner.invoke(app, ["migrate", "--write", "-j", jobs, "."])
    assert result.exit_code == 2
    assert "\ndeep.py: syntax error: too many nested parentheses" in "\n" + result.stderr
    assert "Traceback" not in result.stderr
    assert all(b"resolve_interrupt" in (tmp_path / f"ok{n}.py").read_bytes() for n in range(8))
    assert summary_count(result.stderr, "failed") == 1


def test_hard_links_keep_sharing_the_migrated_content(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_bytes(LEGACY_CODE)
    other = tmp_path / "other_name.py"
    os.link(path, other)
    result = runner.invoke(app, ["migrate", "--write", str(path)])
    assert result.exit_code == 0, result.stderr
    assert path.stat().st_ino == other.stat().st_ino
    assert b"resolve_interrupt" in other.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other_name.py", "t.py"]


def test_inserted_lines_follow_the_line_ending_of_the_line_they_replace(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_bytes(
        b"import x\r\n"
        b"def f(client, a):\n"
        b"    client.add_tool_approval_response(id=a.id, approved=True)\r\n"
        b"def g(client, approvals):\r\n"
        b"    for a in approvals:\n"
        b"        client.add_tool_approval_response(id=a.id, approved=True)\n"
    )
    result = runner.invoke(app, ["migrate", "--write", str(path)])
    assert result.exit_code == 0, result.stderr
    lines = path.read_bytes().splitlines(keepends=True)
    rewritten = lines[2 : lines.index(b"def g(client, approvals):\r\n")]
    assert len(rewritten) > 1
    assert all(line.endswith(b"\r\n") for line in rewritten)
    todo = next(line for line in lines if b"TODO(agui): AG005" in line)
    assert not todo.endswith(b"\r\n")  # the loop it sits above ends in LF
    assert lines[:2] == [b"import x\r\n", b"def f(client, a):\n"]


def test_a_killed_runs_temp_files_are_removed_and_reported(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    stale = tmp_path / f".t.py.{int(dead.stdout)}.k1ll3d00.agui-tmp"
    stale.write_bytes(b"half")
    path = tmp_path / "t.py"
    path.write_bytes(LEGACY_CODE)
    result = runner.invoke(app, ["migrate", "--write", str(path)])
    assert result.exit_code == 0, result.stderr
    assert not stale.exists()
    assert f"removed {stale}" in result.stderr


def test_a_path_outside_the_working_directory_is_shown_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = tmp_path / "work"
    inside.mkdir()
    monkeypatch.chdir(inside)
    assert shown_path(str(inside / "a" / "t.py")) == "a/t.py"
    assert shown_path(str(tmp_path / "elsewhere.py")) == str(tmp_path / "elsewhere.py")


@pytest.mark.parametrize("mode", ["--diff", "--check", "--write"])
def test_a_nul_byte_in_a_string_is_a_syntax_error_and_the_file_stays_untouched(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    broken = b'x = "a\x00b"\n' + LEGACY_CODE
    (tmp_path / "nul.py").write_bytes(broken)
    (tmp_path / "ok.py").write_bytes(LEGACY_CODE)
    result = runner.invoke(app, ["migrate", *([] if mode == "--diff" else [mode]), "."])
    assert result.exit_code == 2
    error = "syntax error at line 1, column 7: source code string cannot contain null bytes"
    line = f"nul.py:1:7: {error}"
    assert f"\n{line}\n" in "\n" + result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "nul.py").read_bytes() == broken
    assert "nul.py" not in result.stdout
    assert summary_count(result.stderr, "failed") == 1
    migrated = (tmp_path / "ok.py").read_bytes() != LEGACY_CODE
    assert migrated == (mode == "--write")
    if mode == "--diff":
        assert result.stdout.startswith("diff --git a/ok.py ")


@pytest.mark.parametrize("mode", ["--diff", "--check", "--write"])
def test_a_file_its_codec_cannot_write_back_is_refused_and_stays_untouched(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    escaped = b"# -*- coding: unicode_escape -*-\nNAME = '\\u00e9'\n" + LEGACY_CODE
    (tmp_path / "escaped.py").write_bytes(escaped)
    latin = b"# -*- coding: latin-1 -*-\nNAME = '\xe9'\n" + LEGACY_CODE
    (tmp_path / "latin.py").write_bytes(latin)
    result = runner.invoke(app, ["migrate", *([] if mode == "--diff" else [mode]), "."])
    assert result.exit_code == 2
    error = (
        "cannot rewrite in unicode_escape: decoding and encoding again changes byte 0x0a "
        "at line 1, column 33; save the file as UTF-8 to migrate it"
    )
    assert f"\nescaped.py:1:33: {error}\n" in "\n" + result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "escaped.py").read_bytes() == escaped
    assert "escaped.py" not in result.stdout
    assert summary_count(result.stderr, "failed") == 1
    written = (tmp_path / "latin.py").read_bytes()
    if mode == "--write":
        assert written.startswith(b"# -*- coding: latin-1 -*-\nNAME = '\xe9'\ndef f(client, a):\n")
        assert b"resolve_interrupt(True)" in written
    else:
        assert written == latin
    if mode == "--diff":
        assert result.stdout.startswith("diff --git a/latin.py ")


def test_a_line_break_in_a_file_name_never_forges_a_line_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A name may hold any byte but `/`: printed raw, `x.py\nevil.py:1:1: ...` read as two
    # reports, the second about a file that does not exist.
    monkeypatch.chdir(tmp_path)
    broken = tmp_path / "x.py\nevil.py:1:1: forged.py"
    broken.write_bytes(b"def f(:\n    client.pending_interrupts\n")
    todo = tmp_path / "y.py\nforged.py"
    todo.write_bytes(b"from x import client\nclient.resume_interrupts(h)\n")
    result = runner.invoke(app, ["migrate", "."])
    lines = result.stderr.splitlines()
    assert not any(line.startswith(("evil.py", "forged.py")) for line in lines), result.stderr
    assert any(line.startswith("x.py\\x0aevil.py:1:1: forged.py:1:") for line in lines)
    assert any(line.startswith("y.py\\x0aforged.py:2:8: AG004 TODO") for line in lines)
