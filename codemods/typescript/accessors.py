"""Class fields declared with `accessor` (the decorators proposal), where a grammar lacks them.

The tree-sitter JavaScript grammar does not know `accessor x = 1` and reads it as an
error; TypeScript's knows it but not `static accessor x`. Falling back to the TypeScript
grammar for a `.js` file would not do: it fails on `static accessor` too, and reads
JavaScript's `a < b > (c)` as a generic call. So a body with errors gets each such
keyword blanked to spaces of the same length (see `_blank` for the one place a `;` goes
first) and is parsed again with its own grammar: the rules then read exactly the tree
that grammar gives, every byte offset and position stays the same, and the keywords go
back into the result. A blank is kept only where it leaves a class field's name right
after it, so a misplaced `accessor` (`accessor f() {}`) stays the syntax error it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from codemods.typescript.document import FUNCTIONS, Document, Edit

KEYWORD = b"accessor"
BLANK = b" " * len(KEYWORD)
SEPARATOR = b";" + b" " * (len(KEYWORD) - 1)
# `accessor` followed, on the same line, by something that may start a field's name
# (`x`, `#x`, `[key]`, `"x"`); not `accessor = 1`, `accessor;` or a method `accessor()`.
_CANDIDATE = re.compile(rb"(?<![\w$#.])accessor[ \t]+(?=[^\s;=(){},:!?*])")
_SPACES = re.compile(rb"[ \t]*")
# The node of a class field and its name's field, by grammar.
_FIELD = {"javascript": ("field_definition", "property")}
_TYPESCRIPT_FIELD = ("public_field_definition", "name")
# Where looking up from the keyword stops: it is a class member only if the first of
# these above it is the class body.
_SCOPES = FUNCTIONS | {"class_body", "statement_block", "program"}


@dataclass(frozen=True, slots=True)
class Blanked:
    """A body with its `accessor` keywords blanked, parsed, and where they were."""

    document: Document
    keywords: tuple[int, ...]


def blank(document: Document, grammar: str) -> Blanked | None:
    """`document` (a body that has errors, parsed with `grammar`) with its field
    `accessor`s blanked; None when it has none, or when one blank does not sit right
    before a field's name."""
    source = document.source
    keywords = [
        match.start()
        for match in _CANDIDATE.finditer(source)
        if _in_class_body(document, match.start())
    ]
    if not keywords:
        return None
    text = bytearray(source)
    for start in keywords:
        text[start : start + len(KEYWORD)] = _blank(source, start)
    blanked = Document(bytes(text), grammar)
    field = _FIELD.get(grammar, _TYPESCRIPT_FIELD)
    if not all(_before_field_name(blanked, start + len(KEYWORD), *field) for start in keywords):
        return None
    return Blanked(blanked, tuple(keywords))


def restore(text: bytes, keywords: tuple[int, ...], passes: list[list[Edit]]) -> bytes | None:
    """`text`, the blanked body after the rules' passes of edits, with each keyword back
    where it moved to; None when an edit touched one (never expected of a rule: the
    caller then reports the body as the error it was)."""
    starts = list(keywords)
    for edits in passes:
        unique = list(dict.fromkeys(edits))  # as `apply_edits` applies them
        moved = []
        for start in starts:
            end = start + len(KEYWORD)
            if any(edit.start < end and start < edit.end for edit in unique):
                return None
            shift = sum(len(e.text) - (e.end - e.start) for e in unique if e.end <= start)
            moved.append(start + shift)
        starts = moved
    out = bytearray(text)
    for start in starts:
        if out[start : start + len(KEYWORD)] not in (BLANK, SEPARATOR):
            return None
        out[start : start + len(KEYWORD)] = KEYWORD
    return bytes(out)


def _blank(source: bytes, start: int) -> bytes:
    """What replaces the keyword at `start`: spaces, or a `;` and spaces where the keyword
    starts its line and a computed name follows. Only there does its absence change how
    JavaScript reads the line before (`x = []` then `accessor [k] = 1`: without the
    keyword, `[][k]` would be one expression), and `;` is an empty class element."""
    line_start = max(source.rfind(b"\n", 0, start), source.rfind(b"\r", 0, start)) + 1
    space = _SPACES.match(source, start + len(KEYWORD))
    assert space is not None  # `[ \t]*` matches everywhere
    if not source[line_start:start].strip() and source.startswith(b"[", space.end()):
        return SEPARATOR
    return BLANK


def _in_class_body(document: Document, start: int) -> bool:
    node: tree_sitter.Node | None = document.root.descendant_for_byte_range(
        start, start + len(KEYWORD)
    )
    while node is not None and node.type not in _SCOPES:
        node = node.parent
    return node is not None and node.type == "class_body"


def _before_field_name(document: Document, end: int, kind: str, key_field: str) -> bool:
    """Whether the first token after byte `end` (a blank's end) is the name of a field
    that sits directly in a class body."""
    space = _SPACES.match(document.source, end)
    assert space is not None  # `[ \t]*` matches everywhere
    name = space.end()
    node = document.root.descendant_for_byte_range(name, name + 1)
    while node is not None and node.parent is not None and node.parent.type != "class_body":
        node = node.parent
    if node is None or node.type != kind:
        return False
    key = node.child_by_field_name(key_field)
    return key is not None and key.start_byte == name
