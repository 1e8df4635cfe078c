"""What a replay server did with each request: the log record and its JSON-lines file.

The CLI renders `RequestLog` records; `--log` appends them to a file with `JsonLinesLog`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from replay.wire.errors import UnreadableInput


class Result(StrEnum):
    """What the server did with a request, as the log shows it."""

    SERVED = "served"
    """A recorded run was streamed."""
    ACCEPTED = "accepted"
    """A continuation passed validation (and its recorded or synthetic run was streamed)."""
    REJECTED = "rejected"
    """A continuation failed validation: one `RUN_ERROR` was streamed."""
    INVALID = "invalid"
    """The body is not a `RunAgentInput`: HTTP 400."""
    HEALTH = "health"
    NOT_FOUND = "not-found"
    NOT_ALLOWED = "not-allowed"


@dataclass(frozen=True, slots=True)
class RequestLog:
    """One request as agui logs it (the CLI renders it; `--log` writes it as JSON)."""

    time: str
    method: str
    path: str
    status: int
    result: Result
    run_id: str | None = None
    thread_id: str | None = None
    parent_run_id: str | None = None
    code: str | None = None
    """The `RUN_ERROR` code of a rejected continuation."""
    detail: str | None = None
    """Why a body was invalid, or what was served (`run 2`, `synthetic`)."""
    resume: tuple[str, ...] = ()
    """The interrupt ids the request answered."""
    body: Any = None
    """The posted body (parsed JSON, or its text when it is not JSON). Never headers."""

    def to_json(self) -> dict[str, Any]:
        """The JSON-lines record: every field, body included."""
        return {
            "time": self.time,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "result": str(self.result),
            "runId": self.run_id,
            "threadId": self.thread_id,
            "parentRunId": self.parent_run_id,
            "code": self.code,
            "detail": self.detail,
            "resume": list(self.resume),
            "body": self.body,
        }


class JsonLinesLog:
    """Append one JSON object per request to a file, written at once (thread-safe).

    Each line goes out whole or not at all: a write the disk refuses halfway (full, a
    size limit) is cut back to where the line began before the error is raised, so the
    file stays valid JSON lines for whoever reads it.
    """

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()
        if str(path) == "-":
            # `-` is stdout, as everywhere in agui; nothing else of the server goes there
            self._fd = os.dup(1)
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                info = os.stat(self._path)
                if stat.S_ISREG(info.st_mode) and not stat.S_IMODE(info.st_mode) & 0o222:
                    # Refused even by root (who could), as every output agui writes is.
                    raise PermissionError(errno.EACCES, "read-only file")
            self._fd = _open_for_append(self._path)
        except OSError as error:
            if error.errno == errno.ENXIO and _is_fifo(self._path):
                raise UnreadableInput(
                    f"{path}: a FIFO with no reader; start the reader first"
                ) from None
            raise UnreadableInput(
                f"{path}: cannot write the log ({error.strerror or error})"
            ) from None

    def __call__(self, entry: RequestLog) -> None:
        line = json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":"))
        data = memoryview((line + "\n").encode("utf-8"))
        with self._lock:
            try:
                start: int | None = os.lseek(self._fd, 0, os.SEEK_END)
            except OSError:
                start = None  # a pipe or a terminal: nothing to cut back
            try:
                while data:
                    data = data[os.write(self._fd, data) :]
            except OSError:
                if start is not None:
                    with contextlib.suppress(OSError):
                        os.ftruncate(self._fd, start)
                raise

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def _open_for_append(path: Path) -> int:
    """Open `path` for appending without waiting for anything.

    A plain open of a FIFO waits until a reader opens it, which with no reader is
    forever, before the server has even started. Opened non-blocking it fails at once
    (ENXIO) instead; once open, writes block again as they do on any file, so a slow
    reader delays a line rather than losing it.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
    fd = os.open(path, flags, 0o666)
    try:
        os.set_blocking(fd, True)
    except OSError:
        os.close(fd)
        raise
    return fd


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False
