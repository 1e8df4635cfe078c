"""The path of a request as its client sent it, for logs.

Starlette's `request.url.path` is decoded and then re-parsed as a URL, which drops an
encoded line break (`/a%0D%0Ab` logs as `/ab`) and hands a `%00` or `%1B` on as the
control character itself. A log is evidence of what was asked: it keeps the target's own
bytes, still percent-encoded, so every character survives and none can act on a terminal
or split a line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

SENT_AS_IS = frozenset(range(0x21, 0x7F))
"""Bytes a log shows as they are: visible ASCII. Any other byte (none an HTTP/1.1
request line can carry, but ASGI servers differ) is written percent-encoded."""

PATH_SAFE = "/!$&'()*+,;=:@-._~"
"""What `quote` leaves alone when only the decoded path is known (RFC 3986 `pchar`)."""


def sent_path(scope: Mapping[str, Any]) -> str:
    """The request's path (no query) as sent: `raw_path` when the server gives it."""
    raw = scope.get("raw_path")
    if not isinstance(raw, bytes) or not raw:
        # (`surrogatepass`: a server that decoded undecodable bytes to lone surrogates
        # still gets a line, not a UnicodeEncodeError in the middle of logging)
        return quote(str(scope.get("path", "")), safe=PATH_SAFE, errors="surrogatepass")
    return "".join(chr(byte) if byte in SENT_AS_IS else f"%{byte:02X}" for byte in raw)
