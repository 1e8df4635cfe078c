"""What the client sees when the upstream fails: one `RUN_ERROR` frame with one-line reason.

The proxy's httpx errors and the pass-through pipe's are mapped here, most specific
first (an `httpx_sse` error would be a `TransportError` too). The frame is what a
TanStack server streams for a failed run, so every AG-UI client shows the reason
instead of hanging.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from replay.proxy.upstream import Failure, UpstreamError
from replay.resume.client import not_http
from replay.wire.canonical import wire_json
from replay.wire.sse import encode_event

UPSTREAM_ERROR: Final = "upstream-error"
"""`RUN_ERROR.code` of every failure the proxy reports itself."""


REASONS: Final = {
    Failure.CONNECT_TIMEOUT: "did not accept the connection in time",
    Failure.READ_TIMEOUT: "sent nothing for too long",
    Failure.REFUSED: "refused the connection; is it running?",
    Failure.NO_ANSWER: "closed the connection without answering",
    Failure.GARBLED: "answered with something that is not HTTP; is it the right port?",
    Failure.CLOSED: "closed the stream before its end",
}
"""The same words whichever client (httpx, or the pass-through pipe) met the failure."""


def upstream_reason(error: Exception, url: str, *, answered: bool = True) -> str:
    """One line for an httpx or pipe failure talking to `url`; `answered` says whether
    the upstream's status line had come (a failure after it cuts the stream)."""
    import httpx

    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError):
        if not_http(error):
            return f"upstream {url} {REASONS[Failure.GARBLED]}"
        if not answered:
            return f"upstream {url} {REASONS[Failure.NO_ANSWER]}"
    if isinstance(error, UpstreamError):
        return f"upstream {url} {REASONS[error.failure]}"
    if isinstance(error, httpx.ConnectTimeout):
        return f"upstream {url} {REASONS[Failure.CONNECT_TIMEOUT]}"
    if isinstance(error, httpx.ReadTimeout):
        return f"upstream {url} {REASONS[Failure.READ_TIMEOUT]}"
    if isinstance(error, httpx.TimeoutException):
        return f"upstream {url} timed out"
    if isinstance(error, httpx.ConnectError):
        return f"upstream {url} {REASONS[Failure.REFUSED]}"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError):
        return f"upstream {url} {REASONS[Failure.CLOSED]}"
    detail = (str(error).splitlines() or [""])[0]
    return f"upstream {url} failed ({type(error).__name__}{': ' + detail if detail else ''})"


def run_error_frame(
    message: str, *, code: str = UPSTREAM_ERROR, clock: Callable[[], float] = time.time
) -> bytes:
    """`data: {"type":"RUN_ERROR",…}` and its blank line, as bytes."""
    event = {
        "type": "RUN_ERROR",
        "message": f"agui proxy: {message}",
        "code": code,
        "timestamp": int(clock() * 1000),
    }
    return encode_event(wire_json(event)).encode("utf-8")
