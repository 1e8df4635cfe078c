"""Line spans of a module's statements from the stdlib `ast` (C speed), for the rules.

A rule only needs to visit the statements whose lines mention one of its trigger
names, and needs each top-level statement's first line to report positions. Both come
from one `ast.parse` of the code a rule receives, far cheaper than LibCST metadata or
code generation; when `ast` disagrees with LibCST the rules fall back to codegen.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

# CPython's messages for code nested deeper than its parser allows (Python itself
# refuses such a file, so nothing is lost by never handing it to LibCST).
TOO_DEEP = frozenset(
    {
        "too many nested parentheses",
        "too many nested blocks",
        "too many levels of indentation",
        "too many statically nested blocks",
    }
)
# Statements whose nested body the rules may prune one by one.
NESTED = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# Line ends as Python's tokenizer (and so `ast` line numbers) counts them.
NEWLINE = re.compile(r"\r\n|\r|\n")
# LibCST's `default_indent` when a module has no indented block.
NO_INDENT = "    "


@dataclass(frozen=True, slots=True)
class Outline:
    """The code a rule receives, with its top-level `ast` statements (None: unparsable)."""

    text: str
    statements: tuple[ast.stmt, ...] | None
    # True when `text` is a region of a larger module (see `runner`): rules that need
    # the whole file (imports, module-level names) raise `NeedsWholeModule`.
    partial: bool = False
    # The file's encoding: what TODO markers must be writable in.
    encoding: str = "utf-8"
    # The rest of the file's text, when `text` is a region of it: a rule that must know
    # of a name bound anywhere in the file can tell whether it is spelled out there.
    outside: str | None = None
    # Why `ast` could not parse the code when LibCST must not try either: nesting deeper
    # than Python allows crashes LibCST's native parser (SIGSEGV, the whole process).
    unparsable: str | None = None

    @classmethod
    def of(cls, text: str, *, partial: bool = False, encoding: str = "utf-8") -> Outline:
        tree, unparsable = _parse(text.removeprefix("\ufeff"))
        if tree is None or ("\r" in text and "\n" not in text):
            # Old Mac line endings: the rules count lines the slow way.
            return cls(text, None, partial, encoding, unparsable=unparsable)
        return cls(text, tuple(tree.body), partial, encoding)

    def spelled_outside(self, word: str) -> bool:
        """Whether `word` occurs in the file outside this region (never, when the
        outline is the whole file)."""
        return self.outside is not None and word in self.outside

    def first_indent(self) -> str | None:
        """The module's first block indentation: LibCST's `default_indent` for this code.

        LibCST takes its first INDENT token and indents the blocks a rule generates with
        it, so a region of the file parsed alone must find the same one. None when `ast`
        cannot tell for sure (a top-level `match`, a backslash continuation).
        """
        if self.statements is None or re.search(r"\\\r?\n|\\\r", self.text):
            return None
        lines = NEWLINE.split(self.text)
        try:
            found = _first_indent(self.statements, lines)
        except _Undecided:
            return None
        return NO_INDENT if found is None else found

    def lines_with(self, needles: tuple[str, ...]) -> list[int]:
        """Sorted 1-based line numbers where any needle occurs, as `ast` numbers lines."""
        found: set[int] = set()
        text = self.text
        for needle in needles:
            at = text.find(needle)
            while at != -1:
                found.add(line_breaks(text, 0, at) + 1)
                at = text.find(needle, at + len(needle))
        return sorted(found)


def line_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """How many line ends (`NEWLINE`: CRLF, CR or LF) `text[start:end]` holds.

    Python's tokenizer ends a line at a lone CR too, so a file mixing one into LF lines
    (a paste from an old Mac file, a stray `\\r`) has more lines than LFs; counting LFs
    alone put every later statement on the wrong line. `str.count` keeps it C-speed.
    """
    end = len(text) if end is None else end
    lf = text.count("\n", start, end)
    if "\r" not in text:
        return lf
    return lf + text.count("\r", start, end) - text.count("\r\n", start, end)


def _parse(text: str) -> tuple[ast.Module | None, str | None]:
    """The `ast` tree, or None and why LibCST must not be tried (None: let it try)."""
    try:
        return ast.parse(text), None
    except SyntaxError as error:
        return None, f"syntax error: {error.msg}" if error.msg in TOO_DEEP else None
    except ValueError:
        return None, None
    except RecursionError:
        return None, "cannot parse: nested too deeply"
    except MemoryError:
        return None, "cannot parse: out of memory (nested too deeply?)"


class _Undecided(Exception):
    """`ast` cannot say where the first INDENT token is."""


def _first_indent(statements: Sequence[ast.stmt], lines: list[str]) -> str | None:
    """The indentation of the first statement, in source order, that opens an indented
    block, or None when no block under `statements` is indented."""
    for statement in statements:
        if isinstance(statement, ast.Match):
            raise _Undecided
        blocks = [getattr(statement, "body", None)]
        blocks += [handler.body for handler in getattr(statement, "handlers", ())]
        blocks += [getattr(statement, "orelse", None), getattr(statement, "finalbody", None)]
        for block in blocks:
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            first = block[0]
            prefix = lines[first.lineno - 1][: first.col_offset]
            if prefix and not prefix.strip():
                return prefix
            if isinstance(first, ast.If) and not prefix:  # `elif`: its blocks come next
                found = _first_indent([first], lines)
                if found is not None:
                    return found
    return None


def span(node: ast.stmt) -> tuple[int, int]:
    """First line (decorators included) and last line of a statement."""
    start = node.lineno
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, decorator.lineno)
    return start, node.end_lineno or node.lineno


def mentions(lines: list[int], start: int, end: int) -> bool:
    """Whether any of the sorted `lines` falls in [start, end]."""
    index = bisect_right(lines, end)
    return index > 0 and lines[index - 1] >= start
