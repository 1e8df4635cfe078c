"""One endpoint for every request, whatever its path or method.

A `Route("/{path:path}")` does not match a path holding a line break (`%0A`, decoded
before matching) nor a method it does not list: Starlette then answered a bare 404 or
405 that neither server logged. Served as the router's default instead, every request
reaches the endpoint, which answers and logs it in its own words.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.types import ASGIApp, Receive, Scope, Send

Endpoint = Callable[["Request"], Awaitable["ASGIApp"]]


def every_request_app(
    endpoint: Endpoint,
    *,
    lifespan: Callable[[Any], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    """A Starlette app that hands every HTTP request to `endpoint`."""
    from starlette.applications import Starlette
    from starlette.requests import Request

    app = Starlette(lifespan=lifespan)
    fallback = app.router.default  # what other kinds of connection (websocket) get

    async def every(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await fallback(scope, receive, send)
            return
        response = await endpoint(Request(scope, receive))
        await response(scope, receive, send)

    app.router.default = every
    return app
