"""Which lines of a file the rules need to parse: the statements that mention a trigger.

LibCST's parser, and the code generation after each rule that rewrote something, cost
in proportion to the code they cover, and a file's call sites usually sit in one
function or in a few methods of one class. `ast` (C speed) finds their lines; the
runner parses only those and splices the result back. Methods of a class are parsed
under a stand-in `class _:` line (LibCST accepts indented statements in no other way),
so a long class costs only the methods that mention a legacy name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from codemods.outline import mentions, span

# What indented members are parsed under (plus the file's first line ending).
MEMBER_HEADER = "class _:"


@dataclass(frozen=True, slots=True)
class Region:
    """Lines `start`..`last` (1-based, inclusive) of a file; `member`: class members."""

    start: int
    last: int
    member: bool = False


def locate(
    statements: tuple[ast.stmt, ...], lines: list[int], *, members: bool = True
) -> Region | None:
    """The region holding every statement that mentions one of the sorted trigger `lines`.

    None when no statement does. It starts right after the statement before the first
    one, so comments above it (TODO markers included) belong to the region exactly as
    they belong to the statement in LibCST. With `members`, when the only such top-level
    statement is a class and a member before its first hot one exists (so the region
    starts below the class line), the region is those members alone (`members=False`
    is the plain twin: the whole class).
    """
    top = _hot(statements, lines)
    if top is None:
        return None
    region, hot = top
    if members and len(hot) == 1 and isinstance(hot[0], ast.ClassDef):
        inner = _hot(tuple(hot[0].body), lines)
        if inner is not None and inner[0].start > span(hot[0])[0]:
            return Region(inner[0].start, inner[0].last, member=True)
    return region


def _hot(
    statements: tuple[ast.stmt, ...], lines: list[int]
) -> tuple[Region, list[ast.stmt]] | None:
    spans = [span(statement) for statement in statements]
    hot = [
        s
        for s, (first, last) in zip(statements, spans, strict=True)
        if mentions(lines, first, last)
    ]
    if not hot:
        return None
    first_hot = span(hot[0])[0]
    last_hot = max(span(statement)[1] for statement in hot)
    start = 1 + max((last for _, last in spans if last < first_hot), default=0)
    return Region(start, last_hot), hot
