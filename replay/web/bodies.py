"""Read a request body with a ceiling and a patience, so one POST can take neither the
process's memory nor one of its connections for ever."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from starlette.requests import Request

MAX_BODY_BYTES: Final = 32 * 1024 * 1024
"""Far above any chat history a client sends; the 413 line names the limit."""
BODY_PATIENCE = 30.0
"""Seconds to wait for the body's next bytes. A client that declares a length and then
sends nothing (gone without closing, or holding connections on purpose) is answered
408; a large body that keeps arriving, however slowly, is read whole."""


class UnreadableBody(Exception):
    """The body cannot be taken: `status` and `answer` are what the client is told."""

    status = 400
    answer = b"request body unreadable\n"


class BodyTooLarge(UnreadableBody):
    """The declared or received body is over the limit."""

    status = 413
    answer = b"request body too large\n"


class BodyStalled(UnreadableBody):
    """The body stopped arriving before its end."""

    status = 408
    answer = b"request body stalled: nothing received for too long\n"


async def read_body(request: Request, limit: int | None = None) -> bytes:
    """The whole body, or `BodyTooLarge` as soon as it is known to exceed `limit`, or
    `BodyStalled` when `BODY_PATIENCE` seconds pass without its next bytes."""
    if limit is None:
        limit = MAX_BODY_BYTES
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise BodyTooLarge("unreadable Content-Length") from None
        if size < 0 or size > limit:
            raise BodyTooLarge(f"Content-Length {size} is over the {limit}-byte limit")
    parts: list[bytes] = []
    received = 0
    chunks = request.stream().__aiter__()
    while True:
        try:
            chunk = await asyncio.wait_for(chunks.__anext__(), BODY_PATIENCE)
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise BodyStalled(
                f"no body bytes for {BODY_PATIENCE:g} s after {received} received"
            ) from None
        received += len(chunk)
        if received > limit:
            raise BodyTooLarge(f"body is over the {limit}-byte limit")
        parts.append(chunk)
    return b"".join(parts)
