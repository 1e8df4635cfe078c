"""Write each proxied exchange as a recording agui reads back: `NNN-<runId>.sse` + sidecar.

The response bytes go to a temp file beside the target as they pass and are moved into
place when the stream ends, so a reader never sees a torn file. A stream that ended
early (upstream dropped it, the client left, the proxy stopped) is kept as what
arrived, under `NNN-<runId>.partial.sse`, so a glob of `*.sse` still finds it and
`agui replay --check` reports its missing terminal. The request body goes beside it as
`….request.json` (the sidecar `agui replay` and `agui resume --from` pair up), and the
exchange's status and headers — credentials redacted — as `….exchange.json`.

Recording is a tap: a disk that fills up or a directory that disappears never breaks
the exchange it records. The failure is kept as `Saved.error` (the proxy prints it with
the exchange), the half-written temp file is removed, and the client's stream goes on.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from replay.proxy.headers import redacted
from replay.resume.client import AtomicFile, write_atomic

_NUMBERED: Final = re.compile(r"^\.?(\d{3,})-")
"""A recorded file's number; the leading dot is a temp file still being written."""
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
NO_RUN_ID: Final = "no-run-id"


def file_stem(number: int, run_id: str | None) -> str:
    """`003-run-17…`: the exchange number, then the run id made safe for a file name."""
    safe = _UNSAFE.sub("_", run_id or "").strip("._")[:80] or NO_RUN_ID
    return f"{number:03d}-{safe}"


@dataclass(frozen=True, slots=True)
class Saved:
    """Where an exchange was written, and whether its stream was complete."""

    stream: Path | None
    """None when the stream could not be written (`error` says why)."""
    complete: bool
    error: str | None = None
    """`not recorded: …` or `recorded without its sidecars: …`; None when all went well."""


def _reason(error: OSError) -> str:
    """`PATH: what went wrong`, the way the rest of agui words a file it cannot write."""
    what = error.strerror or str(error)
    return f"{error.filename}: {what}" if error.filename else what


class Recorder:
    """Numbers exchanges from one past the highest already in the directory.

    Another proxy (or a second `agui proxy` started by mistake) may record into the same
    directory at the same time: each number is claimed under a lock on the directory,
    from what is there at that moment — other writers' temp files, which carry the
    number, included — so two exchanges never share a name and neither replaces the
    other.
    """

    def __init__(self, directory: Path, *, redact: Iterable[str] = ()) -> None:
        if directory.exists() and not directory.is_dir():
            # mkdir's own word for this is "File exists", which does not say what is wrong
            raise NotADirectoryError(
                errno.ENOTDIR,
                "not a directory; exchanges are recorded into a directory",
                str(directory),
            )
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.redact = tuple(redact)
        self._next = 1  # (`open` looks at what the directory holds each time)

    def _highest(self) -> int:
        """The highest number in the directory, a pending temp file's included."""
        try:
            names = [entry.name for entry in os.scandir(self.directory)]
        except OSError:
            return 0  # the directory is gone: opening the exchange will say so
        numbers = [int(match.group(1)) for name in names if (match := _NUMBERED.match(name))]
        return max(numbers, default=0)

    def open(self, run_id: str | None, request: bytes) -> RecordedExchange:
        """Start writing one exchange (numbers are taken in the order exchanges start)."""
        with _locked(self.directory):
            number = max(self._next, self._highest() + 1)
            self._next = number + 1
            # created under the lock: its temp file is what shows the number is taken
            return RecordedExchange(self, number, file_stem(number, run_id), request)


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on `directory` (none where the system has no flock)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: numbers still come from what the directory holds
        yield
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        yield  # the directory is gone: opening the exchange will say so
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class RecordedExchange:
    """One exchange being written; `finish()` moves it into place."""

    def __init__(self, recorder: Recorder, number: int, stem: str, request: bytes) -> None:
        self.recorder = recorder
        self.number = number
        self.stem = stem
        self.request = request
        self._bytes = 0
        self._failure: str | None = None
        self._stream: AtomicFile | None = None
        try:
            self._stream = AtomicFile(recorder.directory / f"{stem}.sse")
        except OSError as error:
            self._failure = _reason(error)

    def write(self, chunk: bytes) -> None:
        if self._stream is None:
            return
        try:
            self._stream.write(chunk)
        except OSError as error:
            self._fail(error)
            return
        self._bytes += len(chunk)

    def _fail(self, error: OSError) -> None:
        """Give up on this recording: note why and remove the half-written temp file."""
        self._failure = _reason(error)
        if self._stream is not None:
            self._stream.discard()
            self._stream = None

    def finish(
        self,
        *,
        complete: bool,
        method: str,
        path: str,
        status: int,
        request_headers: Iterable[tuple[str, str]],
        response_headers: Iterable[tuple[str, str]],
        end: str,
    ) -> Saved:
        """Move the stream into place (as `.partial.sse` when incomplete) with its sidecars.

        Never raises for the disk: what could not be written is `Saved.error`.
        """
        directory = self.recorder.directory
        stem = self.stem if complete else f"{self.stem}.partial"
        target = directory / f"{stem}.sse"
        if self._stream is not None:
            try:
                self._stream.path = target
                self._stream.commit()
            except OSError as error:
                self._fail(error)
        if self._stream is None:
            return Saved(None, complete, f"not recorded: {self._failure}")
        meta: dict[str, Any] = {
            "exchange": self.number,
            "method": method,
            "path": path,
            "status": status,
            "complete": complete,
            "end": end,
            "bytes": self._bytes,
            "requestHeaders": redacted(request_headers, self.recorder.redact),
            "responseHeaders": redacted(response_headers, self.recorder.redact),
        }
        text = json.dumps(meta, indent=2, ensure_ascii=False) + "\n"
        try:
            if _is_object(self.request):
                write_atomic(directory / f"{stem}.request.json", self.request)
            write_atomic(directory / f"{stem}.exchange.json", text.encode("utf-8"))
        except OSError as error:
            # the stream itself is in place and replays on its own
            return Saved(target, complete, f"recorded without its sidecars: {_reason(error)}")
        return Saved(target, complete)

    def discard(self) -> None:
        if self._stream is not None:
            self._stream.discard()


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8", errors="replace")), dict)
    except (ValueError, RecursionError):
        return False
