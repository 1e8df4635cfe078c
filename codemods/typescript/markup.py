"""Where the TODO marker of a legacy name in a component's markup goes, and whether it is there.

The markup is never rewritten, but a site in it can be marked: an HTML comment on its
own line above the line holding the site, so a second run sees the marker and `--check`
passes once every TODO is marked. The comment goes only where `components.scan` found
markup text a comment is valid in; a line that starts inside a tag's attributes or a
`{…}` expression gets its marker above the line where that tag or expression starts.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from codemods import Rule, marker
from codemods.typescript.components import Layout

_INDENT = re.compile(rb"[ \t]*")


@dataclass(frozen=True, slots=True)
class Placement:
    """A marker's line: insert `text` at byte `at`, unless `present` (already there)."""

    at: int
    text: bytes
    present: bool


def comment(rule: Rule, todo: str) -> str:
    """The TODO marker as an HTML comment (the script markers' text, same README anchor)."""
    return "<!--" + marker(rule, todo).removeprefix("#") + " -->"


def marker_line(layout: Layout, starts: list[int], offset: int) -> int | None:
    """The index (in `starts`, from `document.line_starts`) of the line the marker for
    the markup site at byte `offset` goes above; None where no comment can go (raw
    text, `v-pre`, outside a Vue `<template>`)."""
    if not (_within(layout.text, offset, True) or _within(layout.tags, offset, False)):
        return None
    point = offset
    while True:
        index = max(0, bisect.bisect_right(starts, point) - 1)
        if _within(layout.text, starts[index], True):
            return index
        tag = _containing(layout.tags, starts[index])
        if tag is None or tag[0] >= point:
            return None
        point = tag[0]  # the line starts inside a tag: go to the line the tag starts on


def place(source: bytes, starts: list[int], index: int, text: str) -> Placement:
    """The marker `text` above line `index`, indented like it, unless the comment lines
    directly above already hold it."""
    line = starts[index]
    indent = _INDENT.match(source, line)
    assert indent is not None  # the pattern matches the empty string
    wanted = text.encode("utf-8")
    for above_index in range(index - 1, -1, -1):  # the comment lines directly above
        above = source[starts[above_index] : starts[above_index + 1]].strip()
        if not (above.startswith(b"<!--") and above.endswith(b"-->")):
            break
        if above == wanted:
            return Placement(line, b"", True)
    return Placement(line, indent.group(0) + wanted + _newline(source, starts, index), False)


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


def _newline(source: bytes, starts: list[int], index: int) -> bytes:
    """The line break the marker line ends with: the one ending line `index`, or the
    file's first one when that line has none (the last line)."""
    for line in (index, 0):
        if line + 1 < len(starts):
            end = starts[line + 1]
            return b"\r\n" if source[end - 2 : end] == b"\r\n" else source[end - 1 : end]
    return b"\n"
