"""Line spans of a module's statements from the stdlib `ast` (C speed), for the rules.

A rule only needs to visit the statements whose lines mention one of its trigger
names, and needs each top-level statement's first line to report positions. Both come
from one `ast.parse` of the code a rule receives, far cheaper than LibCST metadata or
code generation; when `ast` disagrees with LibCST the rules fall back to codegen.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
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
    # Names bound by the whole file's top-level imports, when `text` is a region of it.
    imported: frozenset[str] | None = None
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

    def top_level_imports(self) -> frozenset[str]:
        """Names the module's top-level import statements bind."""
        names: set[str] = set()
        for statement in self.statements or ():
            if isinstance(statement, ast.Import | ast.ImportFrom):
                for alias in statement.names:
                    names.add((alias.asname or alias.name).split(".")[0])
        return frozenset(names)

    def lines_with(self, needles: tuple[str, ...]) -> list[int]:
        """Sorted 1-based line numbers where any needle occurs."""
        found: set[int] = set()
        for needle in needles:
            at = self.text.find(needle)
            while at != -1:
                found.add(self.text.count("\n", 0, at) + 1)
                at = self.text.find(needle, at + len(needle))
        return sorted(found)


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
