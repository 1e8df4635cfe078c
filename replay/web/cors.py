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
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path:
        raise ValueError(
            f"invalid origin {text!r}: use scheme://host[:port], e.g. http://localhost:3000"
        )
    return value
