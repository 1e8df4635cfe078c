"""Read a request body with a ceiling, so one POST cannot take the process's memory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from starlette.requests import Request

MAX_BODY_BYTES: Final = 32 * 1024 * 1024
"""Far above any chat history a client sends; the 413 line names the limit."""


class BodyTooLarge(Exception):
    """The declared or received body is over the limit."""


async def read_body(request: Request, limit: int | None = None) -> bytes:
    """The whole body, or `BodyTooLarge` as soon as it is known to exceed `limit`."""
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
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise BodyTooLarge(f"body is over the {limit}-byte limit")
        parts.append(chunk)
    return b"".join(parts)
