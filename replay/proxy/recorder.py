"""Write each proxied exchange as a recording agui reads back: `NNN-<runId>.sse` + sidecar.

The response bytes go to a temp file beside the target as they pass and are moved into
place when the stream ends, so a reader never sees a torn file. A stream that ended
early (upstream dropped it, the client left, the proxy stopped) is kept as what
arrived, under `NNN-<runId>.partial.sse`, so a glob of `*.sse` still finds it and
`agui replay --check` reports its missing terminal. The request body goes beside it as
`….request.json` (the sidecar `agui replay` and `agui resume --from` pair up), and the
exchange's status and headers — credentials redacted — as `….exchange.json`.
"""

from __future__ import annotations

import errno
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from replay.proxy.headers import redacted
from replay.resume.client import AtomicFile, write_atomic

_NUMBERED: Final = re.compile(r"^(\d{3,})-")
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
NO_RUN_ID: Final = "no-run-id"


def file_stem(number: int, run_id: str | None) -> str:
    """`003-run-17…`: the exchange number, then the run id made safe for a file name."""
    safe = _UNSAFE.sub("_", run_id or "").strip("._")[:80] or NO_RUN_ID
    return f"{number:03d}-{safe}"


@dataclass(frozen=True, slots=True)
class Saved:
    """Where an exchange was written, and whether its stream was complete."""

    stream: Path
    complete: bool


class Recorder:
    """Numbers exchanges from one past the highest already in the directory."""

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
        numbers = [
            int(match.group(1))
            for entry in directory.iterdir()
            if (match := _NUMBERED.match(entry.name))
        ]
        self._next = max(numbers, default=0) + 1

    def open(self, run_id: str | None, request: bytes) -> RecordedExchange:
        """Start writing one exchange (numbers are taken in the order exchanges start)."""
        number = self._next
        self._next += 1
        return RecordedExchange(self, number, file_stem(number, run_id), request)


class RecordedExchange:
    """One exchange being written; `finish()` moves it into place."""

    def __init__(self, recorder: Recorder, number: int, stem: str, request: bytes) -> None:
        self.recorder = recorder
        self.number = number
        self.stem = stem
        self.request = request
        self._stream = AtomicFile(recorder.directory / f"{stem}.sse")
        self._bytes = 0

    def write(self, chunk: bytes) -> None:
        self._stream.write(chunk)
        self._bytes += len(chunk)

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
        """Move the stream into place (as `.partial.sse` when incomplete) with its sidecars."""
        directory = self.recorder.directory
        stem = self.stem if complete else f"{self.stem}.partial"
        target = directory / f"{stem}.sse"
        self._stream.path = target
        self._stream.commit()
        if _is_object(self.request):
            write_atomic(directory / f"{stem}.request.json", self.request)
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
        write_atomic(directory / f"{stem}.exchange.json", text.encode("utf-8"))
        return Saved(target, complete)

    def discard(self) -> None:
        self._stream.discard()


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8", errors="replace")), dict)
    except (ValueError, RecursionError):
        return False
