"""The progress bar a large recording gets on a terminal's stderr (`cli.read_progress`).

The bar is drawn by a real rich console; the wiring tests run the real `agui` with its
stderr on a real pseudo-terminal (the bar's delay set to 0 in that process, so a
small machine-independent file shows it) and its stdout on a file or the same terminal.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from cli.read_progress import ReadingBar
from replay.large.read import PIECES_MIN_SIZE
from replay.large.translate_pieces import MIN_SIZE as TRANSLATE_PIECES_MIN_SIZE

ROOT = Path(__file__).resolve().parents[2]
ESC = "\x1b"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _terminal() -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    return Console(file=screen, force_terminal=True, width=100, color_system=None), screen


def test_no_bar_before_the_delay_nor_for_a_file_read_by_then() -> None:
    console, screen = _terminal()
    clock = Clock()
    bar = ReadingBar(lambda: console, "checking", show_after=0.5, clock=clock)
    bar("run.sse", 0, 10_000_000)
    clock.now += 0.4
    bar("run.sse", 5_000_000, 10_000_000)
    clock.now += 0.2
    bar("run.sse", 10_000_000, 10_000_000)  # read before the bar was due: none at all
    bar.close()
    assert screen.getvalue() == ""


def test_the_bar_names_the_file_counts_bytes_and_leaves_no_trace() -> None:
    console, screen = _terminal()
    clock = Clock()
    bar = ReadingBar(lambda: console, "checking", show_after=0.5, clock=clock)
    bar("dir/run.sse", 0, 10_000_000)
    clock.now += 0.6
    bar("dir/run.sse", 3_000_000, 10_000_000)
    drawn = screen.getvalue()
    assert "checking run.sse" in drawn
    assert "3.0/10.0 MB" in drawn
    clock.now += 0.2
    bar("dir/run.sse", 10_000_000, 10_000_000)
    assert "10.0/10.0 MB" in screen.getvalue()
    bar.close()
    # Transient: the last thing written moves up over the bar and erases its line.
    assert screen.getvalue().endswith(f"{ESC}[1A{ESC}[2K")


def test_redraws_at_most_every_tenth_of_a_second_and_at_the_end() -> None:
    console, screen = _terminal()
    clock = Clock()
    bar = ReadingBar(lambda: console, "checking", show_after=0.0, clock=clock)
    bar("run.sse", 1_000_000, 10_000_000)
    for done in range(2_000_000, 10_000_000, 1_000_000):
        clock.now += 0.01
        bar("run.sse", done, 10_000_000)
    assert "9.0/10.0 MB" not in screen.getvalue()
    bar("run.sse", 10_000_000, 10_000_000)
    assert "10.0/10.0 MB" in screen.getvalue()
    bar.close()


def test_each_file_takes_the_bar_over_and_a_name_cannot_play_the_terminal() -> None:
    console, screen = _terminal()
    clock = Clock()
    bar = ReadingBar(lambda: console, "translating", show_after=0.0, clock=clock)
    bar("a.sse", 1_000_000, 2_000_000)
    bar(f"b{ESC}]0;owned{ESC}\\[bold].sse", 1_000_000, 4_000_000)
    bar.close()
    drawn = screen.getvalue()
    assert "translating a.sse" in drawn
    assert "1.0/2.0 MB" in drawn
    assert "0.0/" not in drawn  # a file's bar starts where its reading is
    last = drawn.rsplit(f"{ESC}[2K", 2)[1]  # the last frame drawn: only the second file
    assert "translating b\\x1b]0;owned\\x1b\\[bold].sse" in last
    assert "1.0/4.0 MB" in last
    assert "a.sse" not in last


def _recording(path: Path, *, broken: bool = False, size: int = PIECES_MIN_SIZE * 3 // 2) -> Path:
    """A recording of about `size` bytes (by default just past the size read in pieces);
    `broken`: one invalid event."""
    frames: list[str] = []
    written = index = 0
    while written < size:
        run, message = f"r{index}", f"m{index}"
        for event in (
            {"type": "RUN_STARTED", "threadId": "t", "runId": run},
            {"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"},
            *(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": f"part {n} "}
                for n in range(5)
            ),
            {"type": "TEXT_MESSAGE_END", "messageId": message},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": run},
        ):
            frame = f"data: {json.dumps(event, separators=(',', ':'))}\n\n"
            frames.append(frame)
            written += len(frame)
        index += 1
    if broken:
        frames[len(frames) // 2] = 'data: {"type":"TEXT_MESSAGE_END","messageId":7}\n\n'
    path.write_text("".join(frames), encoding="utf-8")
    return path


def _agui_on_a_terminal(
    arguments: list[str], cwd: Path, *, stdout_too: bool = False
) -> tuple[int, str, bytes]:
    """Run `agui` with stderr (and, `stdout_too`, stdout) on a pseudo-terminal, the bar
    due at once: its exit code, what the terminal got, and what stdout got otherwise."""
    code = (
        "import cli.read_progress\ncli.read_progress.SHOW_AFTER = 0\n"
        "import sys\nfrom cli.app import main\n"
        f"sys.argv = ['agui', *{arguments!r}]\nmain()\n"
    )
    main, terminal = pty.openpty()
    out_path = cwd / "stdout.bin"
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    with out_path.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=terminal if stdout_too else out,
            stderr=terminal,
            env=env,
        )
    os.close(terminal)
    screen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        if not ready:
            process.kill()
            pytest.fail("agui did not finish")
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the terminal closed (Linux reports EIO)
            break
        if not chunk:
            break
        screen += chunk
    os.close(main)
    status = process.wait(timeout=30)
    return status, screen.decode("utf-8", "replace"), out_path.read_bytes()


def _agui_piped(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", *arguments],
        cwd=cwd,
        capture_output=True,
        check=False,
    )


def test_replay_of_a_large_file_shows_the_bar_and_writes_the_same_output(
    tmp_path: Path,
) -> None:
    recording = _recording(tmp_path / "big.sse")
    status, screen, out = _agui_on_a_terminal(
        ["replay", "--check", "--json", str(recording)], tmp_path
    )
    piped = _agui_piped(["replay", "--check", "--json", str(recording)], tmp_path)
    assert status == piped.returncode == 0
    assert "checking big.sse" in screen
    assert "MB" in screen
    assert out == piped.stdout
    assert piped.stderr == b""  # piped, no bar: the terminal check is the stream's own


def test_the_summary_comes_after_the_bar_is_gone(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "broken.sse", broken=True)
    status, screen, out = _agui_on_a_terminal(["replay", "--check", str(recording)], tmp_path)
    piped = _agui_piped(["replay", "--check", str(recording)], tmp_path)
    assert status == piped.returncode == 1
    assert out == piped.stdout
    assert b"[invalid-event]" in out
    assert "checking broken.sse" in screen
    # The bar's line erased, then the summary: the terminal's last line.
    erased_then_summary = re.escape(f"{ESC}[1A{ESC}[2K") + (
        r"agui replay: \d+ errors?, 0 warnings, 0 notices\r\n$"
    )
    assert re.search(erased_then_summary, screen)


def test_findings_met_while_reading_print_above_the_bar(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "broken.sse", broken=True)
    arguments = ["replay", "--check", "--json", str(recording)]
    status, screen, out = _agui_on_a_terminal(arguments, tmp_path)
    piped = _agui_piped(arguments, tmp_path)
    assert status == piped.returncode == 1
    assert out == piped.stdout
    findings = piped.stderr.decode().splitlines()
    assert any("[invalid-event]" in line for line in findings)
    # Each finding is a whole line of its own on the terminal, the bar redrawn below it.
    shown = [part.split("\r\n")[0] for part in screen.split(f"{ESC}[2K")]
    for finding in findings:
        assert finding in shown


def test_no_bar_when_the_results_go_to_the_same_terminal(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "big.sse")
    status, screen, _ = _agui_on_a_terminal(
        ["replay", "--check", "--json", str(recording)], tmp_path, stdout_too=True
    )
    assert status == 0
    assert "checking" not in screen
    assert '{"type":"RUN_STARTED"' in screen


def test_translate_to_a_file_shows_the_bar_and_writes_the_same_file(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "big.sse", size=TRANSLATE_PIECES_MIN_SIZE + 4096)
    status, screen, _ = _agui_on_a_terminal(
        ["translate", str(recording), "-o", str(tmp_path / "bar.sse")], tmp_path
    )
    piped = _agui_piped(["translate", str(recording), "-o", str(tmp_path / "piped.sse")], tmp_path)
    assert status == piped.returncode == 0
    assert "translating big.sse" in screen
    assert (tmp_path / "bar.sse").read_bytes() == (tmp_path / "piped.sse").read_bytes()
