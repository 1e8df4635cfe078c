"""JSON decoding with a nesting limit, so hostile input is refused instead of crashing.

`json.loads` raises `RecursionError` (not a `ValueError`) on input nested about a
thousand levels deep, and every recursive step after it (serialising, hashing,
comparing) has its own, lower, limit depending on the stack it runs on. One limit,
checked where JSON enters, keeps all of them out of reach: deeper input is a
`TooDeep` error, a `ValueError` like any other invalid JSON.
"""

from __future__ import annotations

import json
from typing import Any

from replay.wire import event_json

MAX_DEPTH = 256
"""The deepest nesting of arrays and objects agui reads (README "Limits")."""


class TooDeep(ValueError):
    """JSON nested deeper than `MAX_DEPTH`: a `ValueError`, so every caller that reports
    invalid JSON reports this too (a server answers it as any bad body: TanStack's 400)."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")


def loads(text: str | bytes) -> Any:
    """`json.loads` (lone surrogates, `NaN` and all), refusing nesting past `MAX_DEPTH`.

    pydantic-core's parser goes first: it is faster and refuses anything nested more
    than 200 levels on its own. Only what it refuses is parsed again by `json.loads`,
    then measured.
    """
    try:
        return event_json.from_json(text)
    except (ValueError, TypeError):  # TypeError: a lone surrogate, which it cannot read
        pass
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep from None
    if deeper_than(value, MAX_DEPTH):
        raise TooDeep
    return value


def deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` levels in `value` (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
