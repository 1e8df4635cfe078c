"""CORS for one named origin, or none at all.

Off by default: a page on another origin cannot read the answers (the old server
reflected any `Origin`, so any web page could drive it). `--cors ORIGIN` allows exactly
that origin, with the methods and headers a chat client sends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp


def with_cors(app: ASGIApp, origin: str | None) -> ASGIApp:
    """`app` itself without an origin; wrapped by Starlette's CORS middleware with one."""
    if origin is None:
        return app
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(
        app,
        allow_origins=[origin],
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["*"],
        max_age=600,
    )


def check_origin(text: str) -> str:
    """`scheme://host[:port]` exactly as a browser sends it; `ValueError` otherwise."""
    from urllib.parse import urlsplit

    value = text.strip().rstrip("/")
    parts = urlsplit(value)
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # not a number, or over 65535
        port_ok = False
    # A browser's Origin is exactly scheme://host[:port], the host in lower case: anything
    # else (a space, user info, a query, an impossible port) would never match it, and
    # the page would be refused with no word of why.
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or any(char.isspace() for char in value)
        or not port_ok
    ):
        raise ValueError(
            f"invalid origin {text!r}: use scheme://host[:port], e.g. http://localhost:3000"
        )
    return f"{parts.scheme}://{parts.netloc.lower()}"
