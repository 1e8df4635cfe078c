"""Parse JSON text as pydantic-core's `from_json` does, without importing it for a small
stream.

pydantic-core's parser is agui's (about three times faster than `json.loads`), but
importing pydantic-core costs about 12 ms, an eighth of a small recording's check. So
the first `JSON_BUDGET` texts of a run go to `json.loads`, whose value is `from_json`'s
wherever both accept a text (same numbers, strings and duplicate-key rule); a text
`from_json` would refuse while `json.loads` takes it (a lone surrogate, escaped or
not, nesting past pydantic-core's 200 levels, a float of over 4,300 digits), a text
`json.loads` refuses, and bytes (which `json.loads` may read as UTF-16) all go to
`from_json` itself, as does everything once the budget is spent or pydantic-core is
loaded anyway. tests/replay/wire/test_event_json.py compares `from_json` here with
pydantic-core's on random and hostile texts.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, Final

JSON_BUDGET: Final = 4096
"""Texts parsed by `json.loads` before pydantic-core's faster parser pays for its import."""
NESTING: Final = 200
"""pydantic-core's nesting limit: a text with more brackets than this may exceed it."""
LONGEST_NUMBER: Final = 4300
"""pydantic-core refuses a number with more digits than this before its point ("number
out of range"), where `json.loads` reads a float of them as infinity."""
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
_LONG_DIGITS: Final = re.compile(f"(?<![0-9])[0-9]{{{LONGEST_NUMBER + 1}}}")
"""A run of digits is tried once, from its first digit (a search from every digit of a
long run costs its length squared)."""
_budget = [JSON_BUDGET]


_loaded: list[Callable[[str | bytes], Any]] = []


def pydantic_from_json() -> Callable[[str | bytes], Any]:
    """pydantic-core's `from_json` (importing pydantic-core), the plain twin."""
    if not _loaded:
        from pydantic_core import from_json

        _loaded.append(from_json)
    _budget[0] = 0
    return _loaded[0]


def json_first() -> bool:
    """Whether `json.loads` goes first: budget left, and pydantic-core not loaded anyway."""
    return _budget[0] > 0 and "pydantic_core" not in sys.modules


def parser() -> Callable[[str | bytes], Any]:
    """The parser for the next texts: `from_json` below while `json_first()`, else
    pydantic-core's. Callers with many texts ask once per batch."""
    return from_json if json_first() else pydantic_from_json()


def from_json(text: str | bytes) -> Any:
    """Exactly pydantic-core's `from_json(text)`: its value, or the `ValueError` it raises."""
    if type(text) is not str or not json_first() or not has_utf8_form(text):
        return pydantic_from_json()(text)
    _budget[0] -= 1
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return pydantic_from_json()(text)  # its own error (or, if it takes it, its value)
    if (
        text.count("[") + text.count("{") > NESTING
        or ("\\u" in text and _SURROGATE_ESCAPE.search(text))
        or (len(text) > LONGEST_NUMBER and _LONG_DIGITS.search(text))
    ):
        return pydantic_from_json()(text)
    return value


def has_utf8_form(text: str) -> bool:
    """Whether the text has a UTF-8 form (no lone surrogate), as pydantic-core needs."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
