"""`agui resume`'s questions on a real pseudo-terminal, answered as a user types them.

The prompts only run when stdin is a terminal, so these tests start the installed `agui`
on a pty (the `pty` module), wait for each question to appear and type the answer.
Everything the prompts show comes from the server's descriptor: ids, messages, schema
field names and enum values are untrusted, and must neither act on the terminal nor be
read as Rich markup.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from tests.resume_http import Route, scripted_server

AGUI = Path(sys.executable).with_name("agui")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WAIT_S = 10.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


def _take_the_terminal() -> None:
    """In the child, after `setsid`: make the pty its controlling terminal, so Ctrl-C
    typed on it is a SIGINT, as in a shell."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """`agui` running on a pty: what it has shown so far, and a keyboard."""

    def __init__(self, args: list[str]) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        env.update({"TERM": "xterm-256color", "COLUMNS": "200"})
        self._leader, follower = os.openpty()
        try:
            self.process = subprocess.Popen(
                [str(AGUI), *args],
                stdin=follower,
                stdout=follower,
                stderr=follower,
                env=env,
                start_new_session=True,
                preexec_fn=_take_the_terminal,
            )
        finally:
            os.close(follower)
        self.screen = ""
        self._seen = 0

    def _read(self, wait_s: float = WAIT_S) -> bool:
        """Add what the program writes next to the screen; False once it closed the pty
        or wrote nothing for `wait_s` (a question that never comes must fail, not hang)."""
        ready, _, _ = select.select([self._leader], [], [], wait_s)
        if not ready:
            return False
        try:
            chunk = os.read(self._leader, 4096)
        except OSError:  # EIO: the program closed the terminal
            return False
        self.screen += chunk.decode("utf-8", "replace")
        return bool(chunk)

    def expect(self, text: str) -> None:
        """Wait until `text` is on screen after what was expected before.

        Type only once the question is shown: the terminal echoes keys as they arrive,
        so keys typed early land in the middle of the program's output."""
        deadline = time.monotonic() + WAIT_S
        while (found := self.screen.find(text, self._seen)) < 0:
            assert time.monotonic() < deadline, f"never saw {text!r} in {self.screen!r}"
            assert self._read(), f"ended before {text!r}: {self.screen!r}"
        self._seen = found + len(text)

    def type(self, keys: str) -> None:
        os.write(self._leader, keys.encode())

    def finish(self) -> int:
        while self._read():
            pass
        os.close(self._leader)
        return self.process.wait(timeout=WAIT_S)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A paused run whose one interrupt carries markup, escapes and a bidi override."""
    interrupt: dict[str, Any] = {
        "id": "i[/bold]x",
        "reason": "confirm",
        "message": "Approve \x1b]0;pwned\x07 \x1b[2J\u202eevil [red]RED[/red] :thumbs_up:",
        "responseSchema": {
            "type": "object",
            "properties": {"[/x]note": {"type": "string"}, "mode": {"enum": ["a[b]", "c"]}},
            "required": ["[/x]note"],
        },
    }
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r1",
            "outcome": {"type": "interrupt", "interrupts": [interrupt]},
        },
    ]
    path = tmp_path / "hostile.sse"
    path.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    return path


def test_recorded_markup_and_escapes_are_shown_as_text(hostile: Path) -> None:
    terminal = Terminal(["resume", "--from", str(hostile), "--dry-run"])
    try:
        terminal.expect("answer or cancel? [a/c] (a=answer, c=cancel): ")
        terminal.type("a\r")
        terminal.expect("answer.[/x]note (string): ")
        terminal.type("\r")
        terminal.expect("a value is required")
        terminal.expect("answer.[/x]note (string): ")
        terminal.type("hi\r")
        terminal.expect('answer.mode ("a[b]" | "c", blank to skip): ')
        terminal.type("zz\r")
        terminal.expect('not a valid "a[b]" | "c" value')
        terminal.expect('answer.mode ("a[b]" | "c", blank to skip): ')
        terminal.type("a[b]\r")
        status = terminal.finish()
    finally:
        terminal.kill()
    screen = terminal.screen
    assert status == 0, screen
    assert "i[/bold]x" in screen
    assert "Approve \\x1b]0;pwned\\x07 \\x1b[2J\\u202eevil [red]RED[/red] :thumbs_up:" in screen
    assert "\x1b]" not in screen  # no terminal title was set
    assert "\x1b[2J" not in screen  # the screen was not cleared
    assert "\u202e" not in screen
    [body_line] = [line for line in screen.splitlines() if line.startswith("{")]
    [entry] = json.loads(body_line)["resume"]
    assert entry == {
        "interruptId": "i[/bold]x",
        "payload": {"[/x]note": "hi", "mode": "a[b]"},
        "status": "resolved",
    }


def test_choices_and_defaults_are_shown_and_a_wrong_key_is_asked_again() -> None:
    recording = EXAMPLES / "transfer-approval.sse"
    terminal = Terminal(["resume", "--from", str(recording), "--dry-run"])
    try:
        question = "approve, reject, edit or cancel? [a/r/e/c] (a=approve, r=reject, e=edit"
        terminal.expect(question)
        terminal.type("x\r")
        terminal.expect("please type one of a/r/e/c")
        terminal.expect("c=cancel): ")
        terminal.type("e\r")
        terminal.expect("arguments.amount (number, default 42): ")
        terminal.type("\r")
        terminal.expect('arguments.recipient (string, default "Ada"): ')
        terminal.type("Bo\r")
        status = terminal.finish()
    finally:
        terminal.kill()
    assert status == 0, terminal.screen
    [body_line] = [line for line in terminal.screen.splitlines() if line.startswith("{")]
    [entry] = json.loads(body_line)["resume"]
    assert entry["payload"] == {"approved": True, "editedArgs": {"amount": 42, "recipient": "Bo"}}


def test_ctrl_d_sends_nothing_and_says_so_on_its_own_line() -> None:
    recording = EXAMPLES / "transfer-approval.sse"
    terminal = Terminal(["resume", "--from", str(recording), "--dry-run"])
    try:
        terminal.expect("c=cancel): ")
        terminal.type("\x04")
        status = terminal.finish()
    finally:
        terminal.kill()
    assert status == 2
    lines = terminal.screen.splitlines()
    assert "agui: approval_call_transfer_1: no answer given; nothing was sent" in lines
    assert not any(line.startswith("{") for line in lines)  # no body was printed


def test_ctrl_c_sends_nothing() -> None:
    recording = EXAMPLES / "transfer-approval.sse"
    terminal = Terminal(["resume", "--from", str(recording), "--dry-run"])
    try:
        terminal.expect("c=cancel): ")
        terminal.type("e\r")
        terminal.expect("arguments.amount (number, default 42): ")
        terminal.type("\x03")
        status = terminal.finish()
    finally:
        terminal.kill()
    assert status == 130
    assert "agui: interrupted" in terminal.screen
    assert "Traceback" not in terminal.screen
    assert not any(line.startswith("{") for line in terminal.screen.splitlines())


FINISHED = (
    b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r2"}\n\n'
    b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r2"}\n\n'
)


@pytest.mark.parametrize(("reply", "status", "posted"), [("y", 0, 1), ("n", 2, 0), ("\x04", 2, 0)])
def test_answers_typed_are_shown_and_posted_only_when_confirmed(
    reply: str, status: int, posted: int
) -> None:
    recording = EXAMPLES / "transfer-approval.sse"
    with scripted_server({"/chat": Route(FINISHED)}) as server:
        url = server.url("/chat").replace("http://", "http://user:secret@")
        terminal = Terminal(["resume", "--from", str(recording), "--url", url])
        try:
            terminal.expect("c=cancel): ")
            terminal.type("a\r")
            terminal.expect("approval_call_transfer_1: resolved {")
            terminal.expect("post it? [y/n] (y=yes, n=no): ")
            terminal.type(reply + ("" if reply == "\x04" else "\r"))
            code = terminal.finish()
        finally:
            terminal.kill()
        received = len(server.received)
    assert (code, received) == (status, posted), terminal.screen
    assert "secret" not in terminal.screen  # the URL is shown masked
    said = "agui: not posted; nothing was sent" in terminal.screen.splitlines()
    assert said is (posted == 0)
