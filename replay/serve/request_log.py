"""What a replay server did with each request: the log record and its JSON-lines file.

The CLI renders `RequestLog` records; `--log` appends them to a file with `JsonLinesLog`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Any

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
    """Append one JSON object per request to a file, flushed each time (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        try:
            self._handle: IO[str] = self._path.open("a", encoding="utf-8")
        except OSError as error:
            raise UnreadableInput(
                f"{path}: cannot write the log ({error.strerror or error})"
            ) from None
        self._lock = threading.Lock()

    def __call__(self, entry: RequestLog) -> None:
        line = json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()

    def close(self) -> None:
        with self._lock:
            self._handle.close()
