"""How the lines of a rewritten file relate to the original's: where each new line came
from, and which line ending it should carry.

The rules rewrite whole trees; users read sites by the lines they see and expect a
file's line endings to survive. Both answers come from one line diff of the text
before and after a rule ran.
"""

from __future__ import annotations

import difflib
import re

# A line feed not preceded by a carriage return: with a CRLF elsewhere, a mixed file.
MIXED_LF = re.compile(r"(?<!\r)\n")
# One line with its ending (the last one may have none), as Python's tokenizer splits.
LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def follow_line_ends(before: str, after: str) -> str:
    """In a file mixing CRLF and LF, give each new line the ending of the line it replaces.

    LibCST writes every new line with the module's first line ending; in a mixed file
    that is wrong for lines that replace (or sit among) lines ending the other way.
    Files with one kind of line ending come back untouched.
    """
    if "\r\n" not in before or not MIXED_LF.search(before):
        return after
    old = LINE.findall(before)
    new = LINE.findall(after)
    matcher = difflib.SequenceMatcher(
        None,
        [line.rstrip("\r\n") for line in old],
        [line.rstrip("\r\n") for line in new],
        autojunk=False,
    )
    out: list[str] = []
    for tag, i1, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(new[j1:j2])
            continue
        # The replaced line's ending; for an insertion, the ending of the line after it.
        model = old[i1] if i1 < len(old) else (old[-1] if old else "\n")
        ending = model[len(model.rstrip("\r\n")) :] or "\n"
        for line in new[j1:j2]:
            body = line.rstrip("\r\n")
            out.append(body + ending if body != line else line)
    return "".join(out)


def line_map(before: str, after: str, previous: list[int] | None) -> list[int]:
    """For each line of `after`, the original line it came from (edits map to their start)."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    origin = previous if previous is not None else list(range(1, len(old) + 2))
    mapped: list[int] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            mapped.extend(origin[i1:i2])
        else:
            start = origin[min(i1, len(origin) - 1)]
            mapped.extend([start] * (j2 - j1))
    mapped.append(origin[-1])  # a site on a final line without newline
    return mapped
