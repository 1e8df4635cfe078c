"""A helper process that validates a large recording file's events ahead of the reader.

Validation is the biggest single cost of reading a recording, and it depends on nothing
but the event text, so on a machine with a spare core it can run beside the reader:
a forked child decodes the same file with the same code and, per batch (one read
chunk), reports whether all of its plain events are valid, with its parse of them
(pickled) and whether their texts are already compact JSON (which `--json` then writes
as they are). The reader then skips parsing and validating those batches itself
(`replay.events.decode_events`). Anything unexpected — no verdict yet at end of file,
a child that died, a verdict that does not match the batch — only means the reader
parses and validates that batch as usual, so results never depend on the helper; it
can only save time.

Used only for regular files of at least `MIN_SIZE` bytes on systems with `fork`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
from collections.abc import Iterator
from pathlib import Path

from replay.events import Verdict, plain_events, validate_batch
from replay.normalize import texts_are_compact
from replay.recording import read_chunks
from replay.sse import decode_chunks

MIN_SIZE = 8 << 20
"""Smaller files are read faster than a helper pays for itself."""
_HEAD = struct.Struct("<qqqq")
"""count, end, compact, payload size; then the pickled `plain_events` result."""
_PROTOCOL = pickle.HIGHEST_PROTOCOL


class Verdicts:
    """The reader's end: per batch, in order, a `replay.events.Verdict`."""

    __slots__ = ("_fd", "_pid", "_reader")

    def __init__(self, pid: int, fd: int) -> None:
        self._pid = pid
        self._fd: int | None = fd
        self._reader = os.fdopen(fd, "rb", buffering=1 << 20, closefd=False)

    def __iter__(self) -> Iterator[Verdict]:
        return self

    def __next__(self) -> Verdict:
        if self._fd is None:
            raise StopIteration
        try:
            head = self._reader.read(_HEAD.size)
            count, end, compact, size = _HEAD.unpack(head)
            payload = self._reader.read(size) if size else b""
            parsed = pickle.loads(payload) if size else None
        except (OSError, struct.error, ValueError, EOFError, pickle.UnpicklingError):
            self.close()  # a short read at the end, or a helper that died
            raise StopIteration from None
        return count, end, bool(compact), parsed

    def close(self) -> None:
        """Stop the helper (if still running) and reap it."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        self._reader.close()
        os.close(fd)
        with contextlib.suppress(ChildProcessError):
            pid, _ = os.waitpid(self._pid, os.WNOHANG)
            if pid == 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)

    def __del__(self) -> None:
        self.close()


def start(path: Path) -> Verdicts | None:
    """Fork a helper validating `path`, when it is worth it (else None)."""
    if not hasattr(os, "fork"):
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    if not path.is_file() or stat.st_size < MIN_SIZE or (os.cpu_count() or 1) < 2:
        return None
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the helper: never returns
        code = 0
        try:
            os.close(read_end)
            _verify(path, write_end)
        except BaseException:  # the reader validates whatever is missing
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return Verdicts(pid, read_end)


def _verify(path: Path, fd: int) -> None:
    """Decode, parse and validate `path` batch by batch; write one verdict per batch.

    A valid batch's verdict carries its parse (pickled), so the reader need not parse
    it either; an invalid one carries nothing (the reader does it all, with findings).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the reader's to handle
    with contextlib.suppress(OSError, AttributeError):  # Linux: fewer, larger writes
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    with path.open("rb") as handle:
        for batch in decode_chunks(read_chunks(handle)).batches():
            datas, frames, irregular = plain_events(batch)
            if not datas:
                payload = pickle.dumps((datas, irregular), _PROTOCOL)
                out = _HEAD.pack(0, 0, 0, len(payload)) + payload
            elif validate_batch(datas):
                compact = texts_are_compact(datas, [frame[0] for frame in frames])
                payload = pickle.dumps((datas, irregular), _PROTOCOL)
                out = _HEAD.pack(len(datas), frames[-1][3], compact, len(payload)) + payload
            else:
                out = _HEAD.pack(-1, 0, 0, 0)
            _write_all(fd, out)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
