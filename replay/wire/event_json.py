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

Both parsers also take `NaN`, `Infinity` and `-Infinity`, which are not JSON: TanStack's
client (`JSON.parse`) throws on them. `strict_parser` keeps that rule for the plain
readers (each frame alone, and frames in batches; `replay.wire.events.parse_frames`
spells it inline, as it runs for every frame of a stream); the piece reader
(`replay.large.pieces`) asks pydantic-core to refuse them (`allow_inf_nan=False`), and
tests/replay/wire/test_strict_json.py shows the two accept the same texts.
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


class JavaScriptLiteral(ValueError):
    """A `NaN`, `Infinity` or `-Infinity` literal in a text that otherwise parsed: Python's
    parsers take them (and `json.dumps` writes them by default, so a Python server can
    send them), JavaScript's `JSON.parse` refuses the whole text. (`1e400` is JSON:
    JavaScript reads Infinity.)"""

    def __init__(self, literal: str) -> None:
        super().__init__(f"{literal} is not JSON (TanStack's client, with JSON.parse, throws)")
        self.literal = literal


_STRING_OR_LITERAL: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(-?Infinity|NaN)', re.DOTALL)
"""A string (skipped whole, so a word inside one is no literal) or a literal outside one."""


def javascript_literal(text: str) -> str | None:
    """The first `NaN`, `Infinity` or `-Infinity` literal of a text that parsed, or None.

    Outside its strings a parsed text has no other words than `true`, `false` and
    `null`, so any `NaN` or `Infinity` there is the literal itself; deciding it on the
    text alone keeps the answer the same whichever parser took the text.
    """
    if "NaN" not in text and "Infinity" not in text:  # nearly every text: one C scan each
        return None
    for found in _STRING_OR_LITERAL.finditer(text):
        if found.group(1) is not None:
            return found.group(1)
    return None


def strict_parser(parse: Callable[[str], Any] | None = None) -> Callable[[str], Any]:
    """`parse` (by default `parser()`, for a batch of texts: ask once per batch) held to
    JSON's own rule: a `NaN`/`Infinity`/`-Infinity` literal is refused with
    `JavaScriptLiteral` (a `ValueError` naming it) once the text parsed, so a text that
    does not parse at all is refused in `parse`'s own words first."""
    take = parser() if parse is None else parse

    def strict(text: str) -> Any:
        value = take(text)
        # (the words' test inline: the batch path calls this for every frame)
        if ("NaN" in text or "Infinity" in text) and (
            literal := javascript_literal(text)
        ) is not None:
            raise JavaScriptLiteral(literal)
        return value

    return strict


def strict_from_json(text: str, parse: Callable[[str], Any] = from_json) -> Any:
    """`parse(text)` under JSON's own rule (`strict_parser`): the frame-by-frame reader's."""
    return strict_parser(parse)(text)
