"""Output paths that are not plain files: symlinks, devices, FIFOs, `-`, missing folders.

`translate -o`, `translate --in-place`, `migrate --write`, `resume --record` and
`replay --html` all write through `replay.wire.output_file`; these tests drive the
commands themselves.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse"
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
runner = CliRunner()


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_output_through_a_symlink_replaces_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.sse"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.sse"
    link.symlink_to(real)
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", str(link)])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert real.read_bytes() == NATIVE.read_bytes()
    assert leftovers(tmp_path) == []


def test_in_place_on_a_symlinked_source_rewrites_the_real_file(tmp_path: Path) -> None:
    real = tmp_path / "data" / "real.sse"
    real.parent.mkdir()
    shutil.copy(LEGACY, real)
    link = tmp_path / "link.sse"
    link.symlink_to(real)
    result = runner.invoke(app, ["translate", "--in-place", str(link)])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert b'"outcome":{"type":"interrupt"' in real.read_bytes()
    assert leftovers(tmp_path) == []
    assert leftovers(real.parent) == []


def test_migrate_write_on_a_symlinked_source_migrates_the_real_file(tmp_path: Path) -> None:
    real = tmp_path / "lib" / "real.py"
    real.parent.mkdir()
    real.write_bytes(LEGACY_CODE)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    result = runner.invoke(app, ["migrate", "--write", str(link)])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert b"resolve_interrupt" in real.read_bytes()


def test_output_to_a_fifo_writes_into_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", str(fifo)])
    reader.join(timeout=10)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert received == [NATIVE.read_bytes()]
    assert leftovers(tmp_path) == []


def test_output_to_a_character_device_keeps_the_device(tmp_path: Path) -> None:
    # A private node for /dev/null's device (1, 3): a regression replaces this node,
    # never the system's /dev/null.
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD")
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", str(device)])
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISCHR(device.lstat().st_mode)
    assert leftovers(tmp_path) == []


def test_dash_is_stdout() -> None:
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", "-"])
    assert result.exit_code == 0
    assert result.stdout == NATIVE.read_text()


def test_error_names_the_users_path_never_a_temp_file(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "out.sse"
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert str(out) in result.stderr
    assert "tmp" not in result.stderr.replace(str(tmp_path), "")


@pytest.mark.usefixtures("umask_022")
def test_new_files_respect_the_umask_and_rewritten_files_keep_their_mode(tmp_path: Path) -> None:
    new = tmp_path / "new.sse"
    assert runner.invoke(app, ["translate", str(NATIVE), "-o", str(new)]).exit_code == 0
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    kept = tmp_path / "kept.sse"
    kept.write_bytes(b"x\n")
    kept.chmod(0o640)
    assert runner.invoke(app, ["translate", str(NATIVE), "-o", str(kept)]).exit_code == 0
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert kept.read_bytes() == NATIVE.read_bytes()


def test_output_into_a_directory_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["translate", str(NATIVE), "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert f"{tmp_path}:" in result.stderr
    assert tmp_path.is_dir()


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_translate_output_leaves_no_temp_file(
    tmp_path: Path, number: signal.Signals
) -> None:
    out = tmp_path / "out.sse"
    agui = Path(sys.executable).with_name("agui")
    process = subprocess.Popen(
        [str(agui), "translate", "-", "-o", str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    try:
        block = NATIVE.read_bytes()
        for _ in range((1 << 16) // len(block) + 2):  # past the 64 kB head it sniffs
            process.stdin.write(block)
        process.stdin.flush()
        deadline = time.monotonic() + 20
        while not leftovers(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert leftovers(tmp_path), "the temp file never appeared"
        time.sleep(0.3)  # past the temp file's creation: the run is waiting for input
        process.send_signal(number)
        process.wait(timeout=20)
    finally:
        process.kill()
        process.wait()
        with contextlib.suppress(BrokenPipeError):
            process.stdin.close()
    assert process.returncode in (-number, 128 + number), process.returncode
    assert leftovers(tmp_path) == []
    assert not out.exists()


def test_dev_stdout_redirected_to_a_file_writes_into_that_file(tmp_path: Path) -> None:
    out = tmp_path / "captured.sse"
    out.write_bytes(b"")
    inode = out.stat().st_ino
    agui = Path(sys.executable).with_name("agui")
    with out.open("ab") as stdout:
        subprocess.run(
            [str(agui), "translate", str(NATIVE), "-o", "/dev/stdout"], stdout=stdout, check=True
        )
    assert out.stat().st_ino == inode  # the shell's file, not a replacement
    assert out.read_bytes() == NATIVE.read_bytes()


def _killed_mid_write(tmp_path: Path, args: list[str]) -> str:
    """Start `agui translate - ARGS`, wait for its temp file, SIGKILL it; the temp's name."""
    agui = Path(sys.executable).with_name("agui")
    process = subprocess.Popen(
        [str(agui), "translate", "-", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    try:
        block = NATIVE.read_bytes()
        for _ in range((1 << 16) // len(block) + 2):
            process.stdin.write(block)
        process.stdin.flush()
        deadline = time.monotonic() + 20
        while not leftovers(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.02)
        process.kill()  # SIGKILL: no handler runs, the temp file stays
        process.wait(timeout=20)
    finally:
        process.kill()
        process.wait()
        with contextlib.suppress(BrokenPipeError):
            process.stdin.close()
    (temp,) = leftovers(tmp_path)
    return temp


@pytest.mark.parametrize("how", ["output", "write"])
def test_the_next_translate_removes_a_sigkilled_runs_temp_file_and_says_so(
    tmp_path: Path, how: str
) -> None:
    out = tmp_path / "out.sse"
    temp = _killed_mid_write(tmp_path, ["-o", str(out)])
    assert temp.startswith(".out.sse.")
    assert temp.endswith(".agui-tmp")
    live = tmp_path / f".out.sse.{os.getpid()}.abcd1234.agui-tmp"  # a run still going
    live.write_bytes(b"")
    if how == "output":
        result = runner.invoke(app, ["translate", str(LEGACY), "-o", str(out)])
    else:
        shutil.copy(LEGACY, out)
        result = runner.invoke(app, ["translate", "--write", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"agui: removed {tmp_path / temp}, a temp file left by an interrupted run" in (
        result.stderr
    )
    assert leftovers(tmp_path) == [live.name]
    assert b"RUN_FINISHED" in out.read_bytes()


def html(target: Path) -> Any:
    return runner.invoke(app, ["replay", str(NATIVE), "--html", str(target)])


def test_html_to_a_character_device_keeps_the_device(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD")
    result = html(device)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISCHR(device.lstat().st_mode)
    assert leftovers(tmp_path) == []


def test_html_to_a_fifo_writes_the_page_into_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    # A daemon: a regression that renames over the FIFO fails here instead of hanging.
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = html(fifo)
    reader.join(timeout=10)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert len(received) == 1
    assert received[0].startswith(b"<!DOCTYPE html>")


def test_html_refuses_a_read_only_file_and_leaves_it(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_bytes(b"keep\n")
    page.chmod(0o444)
    result = html(page)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "read-only" in result.stderr
    assert page.read_bytes() == b"keep\n"
    assert leftovers(tmp_path) == []


def test_html_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.html"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    result = html(link)
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert real.read_bytes().startswith(b"<!DOCTYPE html>")
    assert leftovers(tmp_path) == []


def test_a_target_that_became_a_directory_leaves_no_temp_file(tmp_path: Path) -> None:
    # `translate - -o out.sse` while someone makes out.sse a directory: the rename fails,
    # and the temp file used to stay (the next run then "removed a temp file left by an
    # interrupted run")
    agui = Path(sys.executable).with_name("agui")
    process = subprocess.Popen(
        [str(agui), "translate", "-", "-o", "out.sse"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(NATIVE.read_bytes() * 100)  # enough for a first read to end
    process.stdin.flush()
    deadline = time.monotonic() + 30
    while not leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert leftovers(tmp_path), "the temp file beside out.sse never appeared"
    (tmp_path / "out.sse").mkdir()
    out, err = process.communicate(input=NATIVE.read_bytes(), timeout=60)
    assert process.returncode == 2
    assert out == b""
    assert err == b"agui: out.sse: Is a directory\n"
    assert leftovers(tmp_path) == []
    assert list((tmp_path / "out.sse").iterdir()) == []
