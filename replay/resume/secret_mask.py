"""Configured secrets (header values, tokens, URL passwords) and the one place that hides them.

A server may echo a credential back (an HTTP 401 body, a `RUN_ERROR` message), so every
message agui prints about an exchange passes through `SecretMask.apply`. Header values
are also checked here before any I/O: httpx would otherwise fail on a line break or a
non-ASCII character with a message (or a traceback) that quotes the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from replay.wire.errors import InvalidRequest

MASK = "***"
MIN_SECRET_LENGTH = 3
"""Shorter values are not masked: hiding every `1` or `on` in a message would hide the message."""
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP field name (RFC 9110 `token`)."""


def header_name_problem(name: str) -> str | None:
    """Why `name` cannot be a header name, or None when it can."""
    if _TOKEN.fullmatch(name) is None:
        return "the header name must be ASCII letters, digits or !#$%&'*+-.^_`|~"
    return None


def header_value_problem(value: str) -> str | None:
    """Why `value` cannot be sent as a header value, or None; never quotes the value."""
    if "\r" in value or "\n" in value:
        return "holds a line break (CR or LF)"
    if not value.isascii():
        return "holds a non-ASCII character"
    if any((ord(c) < 0x20 and c != "\t") or c == "\x7f" for c in value):
        return "holds a control character"
    return None


def check_header(name: str, value: str, where: str, *, value_is: str = "the value") -> None:
    """Refuse a header agui could not send; the message names `where`, never the value."""
    problem = header_name_problem(name)
    if problem is not None:
        raise InvalidRequest(f"{where}: {problem}")
    problem = header_value_problem(value)
    if problem is not None:
        raise InvalidRequest(
            f"{where}: {value_is} {problem}; header values must be one line of printable "
            "ASCII (a .env file with CRLF line endings leaves a CR behind)"
        )


@dataclass(frozen=True, slots=True)
class SecretMask:
    """The secret values of one run; `apply` replaces each of them with `***`."""

    secrets: tuple[str, ...] = ()

    @classmethod
    def of(cls, values: Iterable[str | None]) -> SecretMask:
        """A mask for these values and their last word (the credentials of
        `Bearer TOKEN`, which a server may echo alone), longest first so a secret
        containing another is masked whole."""
        found: set[str] = set()
        for value in values:
            words = value.split() if value else []
            for candidate in (value or "", (value or "").strip(), *words[-1:]):
                if len(candidate) >= MIN_SECRET_LENGTH:
                    found.add(candidate)
        return cls(tuple(sorted(found, key=lambda s: (-len(s), s))))

    def apply(self, text: str) -> str:
        """`text` with every secret replaced by `***`."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text


class MaskedWriter:
    """A text stream that masks secrets in what is written, for rich consoles.

    rich renders one `print` into one `write`, so a secret is never split across calls.
    Everything else (isatty, fileno, encoding) is the wrapped stream's.
    """

    def __init__(self, stream: TextIO, mask: SecretMask) -> None:
        self._stream = stream
        self._mask = mask

    def write(self, text: str) -> int:
        self._stream.write(self._mask.apply(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)
