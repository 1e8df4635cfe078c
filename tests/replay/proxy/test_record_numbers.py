"""Exchange numbers in a recording directory several proxies write into: every exchange
gets its own number and every recording survives, whatever the directory is.

Before, a number was held only by the exchange's temp file, and that file is not in the
directory when the directory is not the user's own (`OutputFile` then keeps the bytes
in an unnamed temp file): a second proxy saw nothing, took the same number, and its
`rename` replaced the first proxy's recording. Without `flock` the scan alone raced the
same way, and a file that appeared at the recording's name was replaced too.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from replay.proxy.recorder import Recorder, Saved, recover_killed
from tests.recorded_exchanges import finish_complete

ROOT = Path(__file__).resolve().parents[3]
NOBODY = 65534

# A recorder in its own process. Commands on stdin, one a line; answers on stdout:
#   open TAG   -> the exchange's number (TAG is written as its whole stream)
#   finish TAG -> the recording's path
#   many N K   -> N exchanges, K open at a time; the numbers, as one JSON list
#   write TAG  -> writes TAG again into the open exchange, then `ok`
# `AGUI_TEST_NO_FLOCK=1` makes `import fcntl` fail, as on a system without flock;
# `AGUI_TEST_NO_LINKS=rename` makes `os.link` fail as on a file system without hard links
# (EPERM), `=copy` hides the exclusive rename too (`replay.proxy.new_name`).
WORKER = r"""
import errno, json, os, sys
if os.environ.get("AGUI_TEST_NO_FLOCK"):
    sys.modules["fcntl"] = None
if os.environ.get("AGUI_TEST_NO_LINKS"):
    def no_link(source, target, **_):
        raise OSError(errno.EPERM, "Operation not permitted", str(source), None, str(target))
    os.link = no_link
    if os.environ["AGUI_TEST_NO_LINKS"] == "copy":
        import replay.proxy.new_name
        replay.proxy.new_name.exclusive_rename = lambda: None
from pathlib import Path
from replay.proxy.recorder import Recorder

recorder = Recorder(Path(sys.argv[1]))
tag = sys.argv[2]
open_now = {}

def finish(exchange):
    saved = exchange.finish(complete=True, method="POST", path="/chat", status=200,
                            request_headers=[], response_headers=[], end="complete")
    assert saved.error is None, saved.error
    return str(saved.stream)

for line in sys.stdin:
    command, *args = line.split()
    if command == "open":
        exchange = recorder.open("r1", json.dumps({"tag": args[0]}).encode())
        exchange.write(args[0].encode())
        open_now[args[0]] = exchange
        print(exchange.number, flush=True)
    elif command == "write":
        open_now[args[0]].write(args[0].encode())
        print("ok", flush=True)
    elif command == "finish":
        print(finish(open_now.pop(args[0])), flush=True)
    elif command == "many":
        count, width = int(args[0]), int(args[1])
        numbers, batch = [], []
        for index in range(count):
            name = f"{tag}-{index}"
            exchange = recorder.open("r1", json.dumps({"tag": name}).encode())
            exchange.write(name.encode())
            batch.append(exchange)
            numbers.append(exchange.number)
            if len(batch) == width:
                for held in batch:
                    finish(held)
                batch = []
        for held in batch:
            finish(held)
        print(json.dumps(numbers), flush=True)
"""


class Worker:
    """One recorder process, driven line by line."""

    def __init__(
        self, directory: Path, tag: str, *, flock: bool = True, no_links: str = ""
    ) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if not flock:
            env["AGUI_TEST_NO_FLOCK"] = "1"
        if no_links:
            env["AGUI_TEST_NO_LINKS"] = no_links
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(directory), tag],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            _, errors = self.process.communicate(timeout=30)
            raise AssertionError(f"the worker stopped: {errors}")
        return line.strip()

    def ask(self, line: str) -> str:
        self.send(line)
        return self.answer()

    def close(self) -> None:
        streams = (self.process.stdin, self.process.stdout, self.process.stderr)
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()  # the end of the commands: the worker stops
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for stream in streams:
            if stream is not None:
                stream.close()


@contextmanager
def workers(
    directory: Path, *tags: str, flock: bool = True, no_links: str = ""
) -> Iterator[list[Worker]]:
    started = [Worker(directory, tag, flock=flock, no_links=no_links) for tag in tags]
    try:
        yield started
    finally:
        for worker in started:
            worker.close()


def not_our_own(directory: Path) -> Path:
    """A directory another user owns (and root may write into): where `OutputFile` keeps
    the bytes out of the directory until the end."""
    directory.mkdir()
    os.chown(directory, NOBODY, NOBODY)
    return directory


def recordings(directory: Path) -> dict[int, str]:
    """Number → what its stream holds, checked against its sidecars."""
    found: dict[int, str] = {}
    for stream in sorted(directory.glob("*.sse")):
        number = int(stream.name.split("-")[0])
        assert number not in found, f"number {number} recorded twice"
        stem = stream.name.removesuffix(".sse")
        meta = json.loads((directory / f"{stem}.exchange.json").read_text())
        request = json.loads((directory / f"{stem}.request.json").read_text())
        text = stream.read_text()
        assert meta["exchange"] == number
        assert request["tag"] * (len(text) // len(request["tag"])) == text
        found[number] = request["tag"]
    return found


def hidden(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.name.startswith("."))


needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="a directory another user owns that this user may write into needs root",
)


@pytest.mark.parametrize(
    ("where", "flock"),
    [
        pytest.param("own", True, id="own-directory"),
        pytest.param("own", False, id="no-flock"),
        pytest.param("shared", True, id="another-users-directory", marks=needs_root),
    ],
)
def test_two_processes_recording_at_once_never_share_a_number(
    tmp_path: Path, where: str, flock: bool
) -> None:
    record = not_our_own(tmp_path / "rec") if where == "shared" else tmp_path / "rec"
    count = 150
    with workers(record, "a", "b", flock=flock) as both:
        for worker in both:
            worker.send(f"many {count} 3")  # both start at once, each 3 open at a time
        numbers = [json.loads(worker.answer()) for worker in both]
    assert not set(numbers[0]) & set(numbers[1])
    assert len(set(numbers[0]) | set(numbers[1])) == 2 * count
    found = recordings(record)
    assert sorted(found) == sorted(numbers[0] + numbers[1])
    assert sorted(found.values()) == sorted(f"{tag}-{n}" for tag in "ab" for n in range(count))
    assert hidden(record) == []


@pytest.mark.parametrize("fallback", ["rename", "copy"])
@pytest.mark.parametrize("flock", [True, False], ids=["flock", "no-flock"])
def test_two_processes_recording_without_hard_links_keep_every_recording(
    tmp_path: Path, fallback: str, flock: bool
) -> None:
    # The fallbacks for a file system without hard links, under two real writers at once.
    count = 100
    with workers(tmp_path, "a", "b", flock=flock, no_links=fallback) as both:
        for worker in both:
            worker.send(f"many {count} 3")
        numbers = [json.loads(worker.answer()) for worker in both]
    assert not set(numbers[0]) & set(numbers[1])
    found = recordings(tmp_path)
    assert sorted(found) == sorted(numbers[0] + numbers[1])
    assert sorted(found.values()) == sorted(f"{tag}-{n}" for tag in "ab" for n in range(count))
    assert hidden(tmp_path) == []


@needs_root
def test_an_exchange_open_in_another_process_keeps_its_number_in_a_shared_directory(
    tmp_path: Path,
) -> None:
    # The first proxy's bytes wait outside the directory: before, nothing showed that
    # 001 was taken, the second proxy took it too and its rename replaced the first's file.
    record = not_our_own(tmp_path / "rec")
    with workers(record, "a", "b") as (first, second):
        assert first.ask("open first") == "1"
        assert second.ask("open second") == "2"
        assert second.ask("finish second") == str(record / "002-r1.sse")
        assert first.ask("finish first") == str(record / "001-r1.sse")
    assert recordings(record) == {1: "first", 2: "second"}
    assert hidden(record) == []


def test_a_file_put_at_the_recordings_name_meanwhile_is_never_replaced(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    exchange = recorder.open("r1", b'{"tag": "ours"}')
    exchange.write(b"ours")
    assert exchange.number == 1
    (tmp_path / "001-r1.sse").write_text("the user's\n")
    saved = finish_complete(exchange)
    assert saved == Saved(tmp_path / "002-r1.sse", True)
    assert (tmp_path / "001-r1.sse").read_text() == "the user's\n"
    assert (tmp_path / "002-r1.sse").read_text() == "ours"
    assert json.loads((tmp_path / "002-r1.exchange.json").read_text())["exchange"] == 2
    assert hidden(tmp_path) == []


def test_a_move_to_the_next_number_that_fails_leaves_no_placeholder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The recording's name is taken meanwhile; moving its bytes to the next number fails
    # (an I/O error): neither number's placeholder stays behind.
    exchange = Recorder(tmp_path).open("r1", b'{"tag": "ours"}')
    exchange.write(b"ours")
    (tmp_path / "001-r1.sse").write_text("the user's\n")

    def refuse(source: object, target: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", refuse)
    saved = finish_complete(exchange)
    monkeypatch.undo()
    assert saved == Saved(
        None, True, f"not recorded: {tmp_path / '001-r1.sse'}: Input/output error"
    )
    assert (tmp_path / "001-r1.sse").read_text() == "the user's\n"
    assert hidden(tmp_path) == []


def test_a_sidecar_put_at_its_name_meanwhile_is_never_replaced(tmp_path: Path) -> None:
    exchange = Recorder(tmp_path).open("r1", b'{"tag": "ours"}')
    (tmp_path / "001-r1.request.json").write_text("the user's\n")
    saved = finish_complete(exchange)
    assert saved.stream == tmp_path / "001-r1.sse"
    assert saved.error == (
        f"recorded without its sidecars: {tmp_path / '001-r1.request.json'}: File exists"
    )
    assert (tmp_path / "001-r1.request.json").read_text() == "the user's\n"
    assert hidden(tmp_path) == []


def test_a_discarded_exchange_leaves_nothing_and_its_number_is_not_reused(
    tmp_path: Path,
) -> None:
    recorder = Recorder(tmp_path)
    exchange = recorder.open("r1", b"{}")
    exchange.write(b"data: {}\n\n")
    exchange.discard()
    assert list(tmp_path.iterdir()) == []
    assert finish_complete(recorder.open("r1", b"{}")).stream == tmp_path / "002-r1.sse"


def test_only_recordings_and_placeholders_carry_a_number(tmp_path: Path) -> None:
    # A user's own files beside the recordings are no exchanges to count from.
    for name in ("2026.notes.txt", "500.sse", "123", "0042x-r1.sse"):
        (tmp_path / name).write_text("the user's\n")
    assert finish_complete(Recorder(tmp_path).open("r1", b"{}")).stream == tmp_path / "001-r1.sse"
    (tmp_path / ".007.request.json.claim").write_text("")  # another writer's sidecar
    assert finish_complete(Recorder(tmp_path).open("r1", b"{}")).stream == tmp_path / "008-r1.sse"


def test_a_killed_recorder_leaves_only_a_hidden_placeholder(tmp_path: Path) -> None:
    with workers(tmp_path, "a") as (worker,):
        assert worker.ask("open killed") == "1"
        assert worker.ask("write killed") == "ok"
        worker.process.send_signal(signal.SIGKILL)
        worker.process.wait()
    assert [path.name for path in tmp_path.iterdir()] == [".001.claim"]
    # what the process wrote before it was killed is there: nothing waited in a buffer
    assert (tmp_path / ".001.claim").read_bytes() == b"killedkilled"
    # what had reached the disk stays where no `*.sse` glob finds it; its number is not reused
    assert finish_complete(Recorder(tmp_path).open("r1", b"{}")).stream == tmp_path / "002-r1.sse"


def test_a_killed_recorders_placeholder_is_kept_under_its_number(tmp_path: Path) -> None:
    stream = 'data:{"type":"RUN_STARTED","threadId":"t","runId":"run/7"}'
    with workers(tmp_path, "a", "b") as (killed, live):
        assert killed.ask(f"open {stream}") == "1"
        assert live.ask("open alive") == "2"
        killed.process.send_signal(signal.SIGKILL)
        killed.process.wait()
        (found,) = recover_killed(tmp_path)
        # the run id of its first event names it; the live one's placeholder stays
        kept = tmp_path / "001-run_7.partial.sse"
        assert (found.placeholder, found.kept, found.size) == (
            tmp_path / ".001.claim",
            kept,
            len(stream),
        )
        assert kept.read_text() == stream
        assert sorted(path.name for path in tmp_path.iterdir()) == [
            ".002.claim",
            "001-run_7.partial.sse",
        ]
        assert live.ask("finish alive") == str(tmp_path / "002-r1.sse")
    assert recover_killed(tmp_path) == []


def test_a_killed_continuations_placeholder_is_named_by_its_run_started(tmp_path: Path) -> None:
    # A continuation streams events that name no run before its RUN_STARTED: the first
    # event alone named none, and the recording was kept as `001-no-run-id.partial.sse`.
    stream = (
        b'data: {"type":"TOOL_CALL_RESULT","toolCallId":"c1","messageId":"m","content":"1"}\n\n'
        b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r2"}\n\n'
    )
    (tmp_path / ".001.claim").write_bytes(stream)
    (found,) = recover_killed(tmp_path)
    assert found.kept == tmp_path / "001-r2.partial.sse"
    assert found.kept.read_bytes() == stream


def test_an_empty_placeholder_of_a_killed_recorder_is_removed(tmp_path: Path) -> None:
    (tmp_path / ".004.claim").write_bytes(b"")  # nobody holds it: as a killed proxy leaves it
    (found,) = recover_killed(tmp_path)
    assert (found.kept, found.size, found.error) == (None, 0, None)
    assert list(tmp_path.iterdir()) == []  # it carried nothing: its number goes with it


def test_a_stream_closed_but_not_yet_in_place_is_not_taken(tmp_path: Path) -> None:
    # The stream is closed (to see the last write's error) before it is linked into
    # place; closing it must not unlock the placeholder for a proxy starting meanwhile.
    exchange = Recorder(tmp_path).open("r1", b"{}")
    exchange.write(b"data: {}\n\n")
    stream = exchange._stream
    assert stream is not None
    stream.close()
    assert recover_killed(tmp_path) == []
    assert finish_complete(exchange).stream == tmp_path / "001-r1.sse"


@pytest.mark.skipif(os.name != "posix", reason="hard links")
def test_a_placeholder_already_linked_into_place_is_only_removed(tmp_path: Path) -> None:
    # Killed between linking the stream into place and removing its placeholder: the
    # bytes have their name already; a `.partial.sse` beside it recorded them twice.
    stream = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
    (tmp_path / "001-r1.sse").write_bytes(stream)
    os.link(tmp_path / "001-r1.sse", tmp_path / ".001.claim")
    (found,) = recover_killed(tmp_path)
    assert (found.kept, found.size, found.error, found.placed) == (
        tmp_path / "001-r1.sse",
        len(stream),
        None,
        True,
    )
    assert [path.name for path in tmp_path.iterdir()] == ["001-r1.sse"]
    assert (tmp_path / "001-r1.sse").read_bytes() == stream


def test_recovery_never_replaces_a_file_it_takes_a_new_number(tmp_path: Path) -> None:
    # The placeholder's own name is taken: its bytes are kept under the next free number
    # (past every number in the directory), not left hidden to be warned about again.
    (tmp_path / ".003.claim").write_bytes(b"data: {}\n\n")
    (tmp_path / "003-no-run-id.partial.sse").write_text("the user's\n")
    (tmp_path / "005-r5.sse").write_text("recorded\n")
    (found,) = recover_killed(tmp_path)
    kept = tmp_path / "006-no-run-id.partial.sse"
    assert (found.placeholder, found.kept, found.size, found.error) == (
        tmp_path / ".003.claim",
        kept,
        10,
        None,
    )
    assert kept.read_bytes() == b"data: {}\n\n"
    assert (tmp_path / "003-no-run-id.partial.sse").read_text() == "the user's\n"
    assert hidden(tmp_path) == []
    assert recover_killed(tmp_path) == []
    assert finish_complete(Recorder(tmp_path).open("r1", b"{}")).stream == tmp_path / "007-r1.sse"


def test_a_killed_recorders_taken_name_beside_a_live_one_skips_its_number(
    tmp_path: Path,
) -> None:
    # Real processes: the killed one's name is taken, the live one holds the next number;
    # the bytes go past it, and the live one's placeholder is never touched.
    stream = 'data:{"type":"RUN_STARTED","threadId":"t","runId":"r1"}'
    with workers(tmp_path, "a", "b") as (killed, live):
        assert killed.ask(f"open {stream}") == "1"
        assert live.ask("open alive") == "2"
        killed.process.send_signal(signal.SIGKILL)
        killed.process.wait()
        (tmp_path / "001-r1.partial.sse").write_text("the user's\n")
        (found,) = recover_killed(tmp_path)
        assert found.kept == tmp_path / "003-r1.partial.sse"
        assert found.kept.read_text() == stream
        assert hidden(tmp_path) == [".002.claim"]
        assert live.ask("finish alive") == str(tmp_path / "002-r1.sse")
    assert recover_killed(tmp_path) == []


def test_without_locks_no_placeholder_is_taken_for_a_killed_ones_placeholder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A live writer's placeholder cannot be told from a dead one's without locks.
    (tmp_path / ".001.claim").write_bytes(b"data: {}\n\n")
    monkeypatch.setitem(sys.modules, "fcntl", None)
    assert recover_killed(tmp_path) == []
    assert (tmp_path / ".001.claim").exists()


def test_no_descriptor_left_means_not_recorded_and_nothing_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The placeholder's lock needs a second descriptor; without one (EMFILE) the
    # exchange is not recorded, and neither the placeholder nor its descriptor is left.
    def no_descriptor(fd: int) -> int:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(os, "dup", no_descriptor)
    exchange = Recorder(tmp_path).open("r1", b"{}")
    exchange.write(b"data: {}\n\n")
    saved = finish_complete(exchange)
    assert saved.stream is None
    assert saved.error == f"not recorded: {tmp_path / '001-r1.sse'}: Too many open files"
    assert list(tmp_path.iterdir()) == []
