"""Which headers cross the proxy, and which never reach disk or the terminal.

Hop-by-hop headers describe one connection, not the message (RFC 9110 §7.6.1), so each
side gets its own. Credentials (`Authorization`, `Cookie`, `Set-Cookie`, and whatever
`--redact` names) are forwarded — the upstream needs them — but are replaced by
`[redacted]` wherever agui writes headers down.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
SECRET_HEADERS: Final = frozenset({"authorization", "cookie", "set-cookie", "proxy-authorization"})
REDACTED: Final = "[redacted]"


def end_to_end(
    headers: Iterable[tuple[str, str]], *, drop: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """The headers that travel on, minus hop-by-hop ones, those `Connection` names, `drop`."""
    pairs = list(headers)
    named = {
        token.strip().lower()
        for key, value in pairs
        if key.lower() == "connection"
        for token in value.split(",")
    }
    skip = HOP_BY_HOP | named | {name.lower() for name in drop}
    return [(key, value) for key, value in pairs if key.lower() not in skip]


def redacted(headers: Iterable[tuple[str, str]], extra: Iterable[str] = ()) -> dict[str, str]:
    """Headers safe to write down: every secret one's value replaced by `[redacted]`."""
    secret = SECRET_HEADERS | {name.lower() for name in extra}
    out: dict[str, str] = {}
    for key, value in headers:
        name = key.lower()
        shown = REDACTED if name in secret else value
        out[name] = f"{out[name]}, {shown}" if name in out else shown
    return out


def header(headers: Mapping[str, str] | Iterable[tuple[str, str]], name: str) -> str | None:
    """One header's value, case-insensitively, or None."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    wanted = name.lower()
    for key, value in pairs:
        if key.lower() == wanted:
            return value
    return None
