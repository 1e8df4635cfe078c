"""Where the TODO marker of a legacy name in a component's markup goes, and whether it is there.

The markup is never rewritten, but a site in it can be marked: an HTML comment on its
own line above the line holding the site, so a second run sees the marker and `--check`
passes once every TODO is marked. The comment goes only where `components.scan` found
markup text a comment is valid in; a line that starts inside a tag's attributes or a
`{…}` expression gets its marker above the line where that tag or expression starts.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from codemods import Rule, marker
from codemods.typescript.components import Layout


@dataclass(frozen=True, slots=True)
class Placement:
    """A marker's line: insert `text` at byte `at`, unless `present` (already there)."""

    at: int
    text: bytes
    present: bool


def comment(rule: Rule, todo: str) -> str:
    """The TODO marker as an HTML comment (the script markers' text, same README anchor)."""
    return "<!--" + marker(rule, todo).removeprefix("#") + " -->"


def place(source: bytes, layout: Layout, offset: int, text: str, floor: int) -> Placement | None:
    """Where the marker `text` for the markup site at byte `offset` goes; None where no
    comment can go (raw text, `v-pre`, outside a Vue `<template>`). `floor` is where
    lines may start (past a BOM)."""
    if not (_within(layout.text, offset, True) or _within(layout.tags, offset, False)):
        return None
    point = offset
    while True:
        line = max(floor, _line_start(source, point))
        if _within(layout.text, line, True):
            break
        tag = _containing(layout.tags, line)
        if tag is None or tag[0] >= point:
            return None
        point = tag[0]  # the line starts inside a tag: go to the line the tag starts on
    rest = source[line:]
    indent = rest[: len(rest) - len(rest.lstrip(b" \t"))]
    wanted = text.encode("utf-8")
    end = line
    while end > floor:  # the comment lines directly above
        start = max(floor, _line_start(source, _before_newline(source, end)))
        above = source[start:end].strip()
        if not (above.startswith(b"<!--") and above.endswith(b"-->")):
            break
        if above == wanted:
            return Placement(line, b"", True)
        end = start
    return Placement(line, indent + wanted + _newline(source, line), False)


def _within(ranges: tuple[tuple[int, int], ...], offset: int, closed: bool) -> bool:
    """Whether `offset` is in one of `ranges` (disjoint, in file order); with `closed`,
    an end counts as inside."""
    return _containing(ranges, offset, closed) is not None


def _containing(
    ranges: tuple[tuple[int, int], ...], offset: int, closed: bool = False
) -> tuple[int, int] | None:
    """The range of `ranges` (disjoint, in file order) holding `offset`, if any."""
    index = bisect.bisect_right(ranges, offset, key=lambda r: r[0]) - 1
    if index < 0:
        return None
    start, end = ranges[index]
    inside = start <= offset <= end if closed else start <= offset < end
    return ranges[index] if inside else None


def _line_start(source: bytes, offset: int) -> int:
    """Where the line holding `offset` starts (after `\\n`, `\\r\\n` or a lone `\\r`)."""
    return max(source.rfind(b"\n", 0, offset), source.rfind(b"\r", 0, offset)) + 1


def _before_newline(source: bytes, line: int) -> int:
    """The offset of the line break that ends just before `line` starts."""
    return line - 2 if source[line - 2 : line] == b"\r\n" else line - 1


def _newline(source: bytes, line: int) -> bytes:
    """The line break the marker line ends with: the one of the line it goes above, or
    the file's first one when that line has none."""
    for start in (line, 0):
        end = min(
            (i for i in (source.find(b"\r", start), source.find(b"\n", start)) if i >= 0),
            default=-1,
        )
        if end >= 0:
            if source[end : end + 2] == b"\r\n":
                return b"\r\n"
            return source[end : end + 1]
    return b"\n"
