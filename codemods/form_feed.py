"""The view of a Python file the rules parse when form feeds sit in its indentation, and
the way back from the rewritten view to the file's own bytes.

CPython's tokenizer resets a line's indentation count at a form feed in its leading
whitespace, so whatever precedes the last such form feed never counts. LibCST's
tokenizer does not: it refuses some of those lines outright ("no matching outer block
for dedent", reported at 1:1, for valid Python) and silently drops the form feed from
others, changing the file far from any call site. Cutting that leading part gives a text
Python reads exactly as it reads the file, on the same lines; the cuts are put back on
the lines they came from once the rules ran.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from codemods.line_diff import LINE
from codemods.outline import line_breaks

# A line's leading whitespace up to and including its last form feed, when code follows
# (Python's line ends: CRLF, CR or LF; a BOM is decoded away before this is searched).
# Blank and comment lines are left alone: LibCST reads and writes them back exactly.
CUT = re.compile(r"(?:\A|(?<=[\r\n]))[ \t\x0c]*\x0c(?=[ \t]*[^ \t\x0c\r\n#])")


@dataclass(frozen=True, slots=True)
class FormFeedView:
    """A file's text with the cuts made, and each cut by its 1-based line."""

    text: str
    cuts: dict[int, str]

    def column(self, line: int, column: int) -> int:
        """A 1-based column on `line` of the view, as a column of the file."""
        return column + len(self.cuts.get(line, ""))


def view(text: str) -> FormFeedView | None:
    """The view of `text`, or None when there is nothing to cut (the common case).

    Also None when Python cannot parse `text`: the file is then reported as it is. Lines
    inside a string that spans lines are never cut (their whitespace is the string's).
    """
    if "\x0c" not in text:
        return None
    found = list(CUT.finditer(text))
    if not found:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    inside = _string_lines(tree)
    cuts: dict[int, str] = {}
    parts: list[str] = []
    done = 0
    line, counted = 1, 0
    for match in found:
        line += line_breaks(text, counted, match.start())
        counted = match.start()
        if line in inside:
            continue
        parts.append(text[done : match.start()])
        cuts[line] = match.group()
        done = match.end()
    if not cuts:
        return None
    parts.append(text[done:])
    return FormFeedView("".join(parts), cuts)


def restore(cut: FormFeedView, after: str) -> str | None:
    """`after` (the rules' output for `cut.text`) with every cut put back.

    A cut goes back on its own line when the rules kept that line, else on the line that
    replaced it (or, for a removed line, the line after it): at the start of a line's
    leading whitespace a cut is, for Python, nothing. None when the result does not read,
    for Python, exactly as `after` does (a cut landed in a string, say): the caller then
    leaves the file untouched.
    """
    old = LINE.findall(cut.text)
    new = LINE.findall(after)
    before: dict[int, str] = {}  # index into `new` -> what goes in front of that line
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        for offset, index in enumerate(range(i1, i2)):
            piece = cut.cuts.get(index + 1)
            if piece is None:
                continue
            # A kept line maps one to one; a replaced one to its replacement's line.
            last = j1 + offset if tag == "equal" else j2 - 1
            target = max(j1, min(j1 + offset, last))
            before[target] = before.get(target, "") + piece
    # Cuts from lines removed at the very end go after the last line (still whitespace).
    tail = "".join(piece for target, piece in before.items() if target >= len(new))
    restored = "".join(before.get(index, "") + text for index, text in enumerate(new)) + tail
    try:
        same = ast.dump(ast.parse(restored)) == ast.dump(ast.parse(after))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return restored if same else None


def _string_lines(tree: ast.Module) -> set[int]:
    """Lines that begin inside a string literal spanning more than one line."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr | ast.Constant):
            continue
        if isinstance(node, ast.Constant) and not isinstance(node.value, str | bytes):
            continue
        if node.end_lineno is not None and node.end_lineno > node.lineno:
            lines.update(range(node.lineno + 1, node.end_lineno + 1))
    return lines
