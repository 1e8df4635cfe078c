"""Open recordings — SSE or NDJSON files, stdin, HAR exports — as streams of exchanges.

An exchange is one HTTP response body (one or more runs) plus, when known, the request
body that produced it. Files are read in chunks and decoded lazily, so memory stays
flat whatever the file size; only HAR files, which are one JSON document, are parsed
whole.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from replay.wire import bounded_json
from replay.wire.errors import InvalidRequest, UnreadableInput, read_failure
from replay.wire.sse import SseMessage, SseStream, decode_chunks

CHUNK_SIZE = 1 << 16
STDIN = "-"
STDIN_LABEL = "<stdin>"
EVENT_STREAM = "text/event-stream"
NDJSON_TYPES = ("application/x-ndjson", "application/jsonl", "application/json-seq")


@dataclass(frozen=True, slots=True)
class Exchange:
    """One response stream and the request that produced it, when the recording has it."""

    source: str
    """Display name used in locations: a path, `<stdin>`, or `file.har#entry3`."""
    messages: Iterable[SseMessage]
    """The decoded SSE messages, produced lazily (iterate once)."""
    request: dict[str, Any] | None = None
    """The `RunAgentInput` body that was posted, as raw JSON, when known."""
    request_source: str | None = None
    url: str | None = None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers (HAR only); never printed by agui."""


def read_chunks(stream: BinaryIO, first: bytes = b"") -> Iterator[bytes]:
    """Yield a binary stream in fixed-size chunks, starting with already-peeked bytes."""
    if first:
        yield first
    while chunk := stream.read(CHUNK_SIZE):
        yield chunk


def looks_like_har(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"{"):
        return False
    first_line = text.split(b"\n", 1)[0].strip()
    if first_line == b"{":
        return True
    return first_line.startswith(b'{"log"') or first_line.startswith(b'{ "log"')


def refuse_unreadable(name: str, head: bytes) -> None:
    """Raise `UnreadableInput` for a recording that cannot hold one event per line:
    UTF-16 text, or a JSON array (of events, or one of `agui resume`'s files: then the
    line names the option that takes it). Read on, either holds no event at all, and
    "empty recording" would not say what is wrong or what to do."""
    sample = head[:256]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        len(sample) >= 4 and max(sample[0::2].count(0), sample[1::2].count(0)) > len(sample) // 4
    ):
        raise UnreadableInput(
            f"{name}: UTF-16 text; recordings are UTF-8 (convert it: iconv -f UTF-16 -t UTF-8)"
        )
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if _JSON_ARRAY.match(text):
        resume_file = _resume_file(text)
        if resume_file is not None:
            what, option = resume_file
            raise UnreadableInput(
                f"{name}: a JSON array of {what}, not a recording; give it to agui resume {option}"
            )
        raise UnreadableInput(
            f"{name}: a JSON array of events, not one event per line;"
            " write one per line (jq -c '.[]') or as SSE `data:` lines"
        )


_JSON_ARRAY = re.compile(rb"\[\s*(\{|\]\s*$)")
_FIRST_KEY_ID = re.compile(rb'\[\s*\{\s*"id"\s*:')
_ITEM_KEY = re.compile(rb'"(?:reason|definitionId)"\s*:')
_MESSAGE_KEY = re.compile(rb'"role"\s*:')


def _resume_file(text: bytes) -> tuple[str, str] | None:
    """What a JSON array is when it is a hand-built `agui resume`'s file (what `agui
    replay --export` writes), and the option that takes it; None for anything else.

    Events open with `type`; the objects of those files with `id`. Then an interrupt
    descriptor has a `reason` (a short generic item a `definitionId`), a message a
    `role`. (A key spelt inside a string is escaped there, `\\"role\\"`: no match.)
    """
    if not _FIRST_KEY_ID.match(text):
        return None
    if _ITEM_KEY.search(text):
        return "interrupt items", "--items"
    if _MESSAGE_KEY.search(text):
        return "messages", "--messages"
    return None


def sidecar_request_path(path: Path) -> Path | None:
    """The request body saved beside a recording, when there is one.

    `NAME.sse` pairs with `NAME.request.json` (what `agui resume --record` writes); the
    test bed's `CASE.run1.sse` / `CASE.run2.sse` pair with `CASE.request.json` /
    `CASE.resume.json`.
    """
    if not path.name:
        return None  # `.` or `/`: a directory, which the reader refuses with its own words
    candidates = [path.with_name(path.stem + ".request.json")]
    stem = path.stem
    if stem.endswith(".run1"):
        candidates.append(path.with_name(stem[: -len(".run1")] + ".request.json"))
    elif stem.endswith(".run2"):
        candidates.append(path.with_name(stem[: -len(".run2")] + ".resume.json"))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def load_request(path: Path) -> dict[str, Any]:
    """Read a request body JSON file; it must hold one JSON object."""
    try:
        data = bounded_json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except OSError as error:
        raise UnreadableInput(f"{path}: {read_failure(error)}") from None
    except ValueError as error:
        raise UnreadableInput(f"{path}: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise UnreadableInput(f"{path}: a request body must be a JSON object")
    return data


@contextmanager
def open_input(name: str) -> Iterator[BinaryIO]:
    """Open a recording argument for binary reading (`-` is stdin, left open after)."""
    if name == STDIN:
        yield sys.stdin.buffer
        return
    if not name:
        # Path("") is the current directory: `agui replay "$UNSET"` would read as ": is a
        # directory"
        raise UnreadableInput("an empty recording name: give a file path, or - for stdin")
    path = Path(name)
    if path.is_dir():
        raise UnreadableInput(f"{name}: is a directory, expected a recording file")
    try:
        os.stat(path)
    except FileNotFoundError:
        raise UnreadableInput(f"{name}: no such file") from None
    except OSError as error:  # a symlink loop, a name too long: say which
        raise UnreadableInput(f"{name}: {error.strerror or error}") from None
    try:
        handle = path.open("rb")
    except OSError as error:
        raise UnreadableInput(f"{name}: {error.strerror or error}") from None
    with handle:
        yield handle


def open_recording(name: str, *, sidecars: bool = True, pieces: bool = False) -> Iterator[Exchange]:
    """Open one recording argument (`-` is stdin) and yield its exchanges in order.

    `pieces`: a regular SSE file's stream names its path, so `replay.large.read` may read
    it in pieces (`replay.large.piece_reader`: faster, with a helper process for large
    files; results are the same either way).
    """
    if name == STDIN:
        stream = sys.stdin.buffer
        head = stream.read(CHUNK_SIZE)
        if looks_like_har(head):
            yield from har_exchanges(STDIN_LABEL, head + stream.read())
            return
        refuse_unreadable(STDIN_LABEL, head)
        yield Exchange(STDIN_LABEL, decode_chunks(read_chunks(stream, head)))
        return
    path = Path(name)
    with open_input(name) as handle:
        head = handle.read(CHUNK_SIZE)
        if path.suffix.lower() == ".har" or looks_like_har(head):
            yield from har_exchanges(name, head + handle.read())
            return
        refuse_unreadable(name, head)
        request: dict[str, Any] | None = None
        request_source: str | None = None
        sidecar = sidecar_request_path(path) if sidecars else None
        if sidecar is not None:
            request = load_request(sidecar)
            request_source = str(sidecar)
        by_pieces = pieces and path.is_file() and hasattr(os, "pread")
        yield Exchange(
            name,
            SseStream(read_chunks(handle, head), str(path) if by_pieces else None),
            request=request,
            request_source=request_source,
        )


def refuse_stdin_twice(names: Iterable[str]) -> None:
    """Stdin is read to its end the first time `-` is named, so a second `-` would read
    nothing and report an empty recording: refuse the arguments instead."""
    if sum(name == STDIN for name in names) > 1:
        raise InvalidRequest("'-' (stdin) is named more than once; stdin can be read only once")


def open_recordings(names: Iterable[str], *, sidecars: bool = True) -> Iterator[Exchange]:
    """Several recording arguments form one timeline, in the order given."""
    for name in names:
        yield from open_recording(name, sidecars=sidecars)


def _har_text(content: dict[str, Any]) -> bytes:
    text = content.get("text")
    if not isinstance(text, str):
        return b""
    if content.get("encoding") == "base64":
        import base64  # only a HAR's encoded bodies need it

        try:
            return base64.b64decode(text, validate=False)
        except ValueError:
            return b""
    return text.encode("utf-8", errors="replace")


def _header_map(headers: Any) -> dict[str, str]:
    result: dict[str, str] = {}
    if isinstance(headers, list):
        for header in headers:
            if isinstance(header, dict):
                name, value = header.get("name"), header.get("value")
                if isinstance(name, str) and isinstance(value, str):
                    result[name.lower()] = value
    return result


def har_entries(name: str, data: bytes) -> list[Any]:
    """The entries of a HAR file. A JSON document that is not one is refused saying what
    it looks like and what to do: a request body or a pretty-printed event given as the
    recording was told only "not a HAR file (no log.entries)" (and by translate, "a HAR
    file")."""
    try:
        document = bounded_json.loads(data.decode("utf-8", errors="replace"))
    except ValueError as error:
        raise UnreadableInput(f"{name}: not a valid HAR file (invalid JSON: {error})") from None
    log = document.get("log") if isinstance(document, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if isinstance(entries, list):
        return entries
    if isinstance(document, dict) and log is None:
        if isinstance(document.get("type"), str):
            raise UnreadableInput(
                f"{name}: one JSON event spread over several lines, not a recording;"
                " write one event per line (jq -c .) or as SSE `data:` lines"
            )
        if REQUEST_BODY_KEYS & document.keys():
            raise UnreadableInput(
                f"{name}: a request body (RunAgentInput), not a recording; keep it beside"
                " the recording as NAME.request.json (or give it with --request)"
            )
    raise UnreadableInput(f"{name}: not a HAR file (no log.entries)")


# Keys of a `RunAgentInput` body, any one of which tells a request from a HAR file.
REQUEST_BODY_KEYS = frozenset({"threadId", "runId", "messages", "resume", "forwardedProps"})


def har_exchanges(name: str, data: bytes) -> Iterator[Exchange]:
    """Every HAR entry whose response is an event stream (or NDJSON) becomes an exchange."""
    entries = har_entries(name, data)
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        response = entry.get("response")
        request = entry.get("request")
        if not isinstance(response, dict) or not isinstance(request, dict):
            continue
        content = response.get("content")
        if not isinstance(content, dict):
            continue
        mime = str(content.get("mimeType") or "").split(";")[0].strip().lower()
        if mime != EVENT_STREAM and mime not in NDJSON_TYPES:
            continue
        source = f"{name}#entry{number}"
        body = _request_body(request)
        status = response.get("status")
        yield Exchange(
            source,
            decode_chunks([_har_text(content)]),
            request=body,
            request_source=f"{source}.request" if body is not None else None,
            url=str(request.get("url") or "") or None,
            status=status if isinstance(status, int) else None,
            headers=_header_map(response.get("headers")),
        )


def _request_body(request: dict[str, Any]) -> dict[str, Any] | None:
    post = request.get("postData")
    if not isinstance(post, dict):
        return None
    text = post.get("text")
    if not isinstance(text, str):
        return None
    try:
        body = bounded_json.loads(text)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
