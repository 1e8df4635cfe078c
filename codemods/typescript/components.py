"""Where the scripts of a Vue or Svelte single-file component are, and how edited ones go back.

A `.vue`/`.svelte` file is markup around `<script>` blocks; the rules read only the
blocks' bodies, so this module finds each body's byte range and grammar and splices
edited bodies back, leaving every byte outside them as it was. It reads the file the
way the HTML tokenizer both compilers follow does: comments (`<!-- … -->`) hide tags,
and `<script>`/`<style>` bodies are raw text that ends at the first closing tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# `lang` values whose bodies one of our grammars parses; a block with any other `lang`
# (CoffeeScript, say) is not read. JSX parses with the JavaScript grammar, as in `.jsx`.
GRAMMARS: dict[str, str] = {
    "": "javascript",
    "js": "javascript",
    "javascript": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
}
# What the scanner stops at: a comment, or a tag whose body is raw text.
_OPENING = re.compile(rb"<!--|<(script|style)(?=[\s/>])", re.IGNORECASE)
_ATTRIBUTE = re.compile(rb"""([^\s=/>"']+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>"']+))?""")
_TAG_END = re.compile(rb"(/?)>")
# Whitespace between attributes, skipped once per step so no byte is rescanned.
_SPACE = re.compile(rb"\s*")


@dataclass(frozen=True, slots=True)
class ScriptBlock:
    """The body of one `<script>` block: bytes `start:end` of the file, and the grammar
    to parse it with (None: nothing to migrate, a `src=` block or an unknown `lang`)."""

    start: int
    end: int
    grammar: str | None


@dataclass(frozen=True, slots=True)
class Layout:
    """A component's script blocks and HTML comments (byte ranges), in file order."""

    blocks: tuple[ScriptBlock, ...]
    comments: tuple[tuple[int, int], ...]

    def markup(self, length: int) -> Iterator[tuple[int, int]]:
        """Byte ranges of what is neither a script body nor a comment: the template, the
        styles and the tags themselves."""
        hidden = sorted([(b.start, b.end) for b in self.blocks] + list(self.comments))
        position = 0
        for start, end in hidden:
            if start > position:
                yield position, start
            position = max(position, end)
        if position < length:
            yield position, length


class UnclosedBlock(ValueError):
    """A `<script>` or `<style>` without its closing tag; `offset` is where it opens."""

    def __init__(self, tag: str, offset: int) -> None:
        super().__init__(f"<{tag}> is never closed")
        self.offset = offset


def scan(source: bytes) -> Layout:
    """Find the script bodies and comments of a component file.

    Raises `UnclosedBlock` when a block has no closing tag: where its body ends is then
    anyone's guess, and Vue and Svelte refuse such a file too.
    """
    blocks: list[ScriptBlock] = []
    comments: list[tuple[int, int]] = []
    position = 0
    while (match := _OPENING.search(source, position)) is not None:
        if match.group(1) is None:  # a comment runs to `-->`, or to the end of the file
            end = source.find(b"-->", match.end())
            end = len(source) if end < 0 else end + 3
            comments.append((match.start(), end))
            position = end
            continue
        tag = match.group(1).lower()
        attributes, body_start, closed = _open_tag(source, match.end())
        if closed:  # `<script src="…" />`: no body at all
            position = body_start
            continue
        closing = re.compile(rb"</" + tag + rb"(?=[\s/>])", re.IGNORECASE)
        close = closing.search(source, body_start)
        if close is None:
            raise UnclosedBlock(tag.decode(), match.start())
        if tag == b"script":
            blocks.append(ScriptBlock(body_start, close.start(), _grammar(attributes)))
        position = close.end()
    return Layout(tuple(blocks), tuple(comments))


def _open_tag(source: bytes, position: int) -> tuple[dict[str, str], int, bool]:
    """The attributes of a tag whose name ends at `position`, where its body starts,
    and whether it closed itself (`/>`)."""
    attributes: dict[str, str] = {}
    while True:
        space = _SPACE.match(source, position)
        assert space is not None  # `\s*` matches everywhere
        position = space.end()
        end = _TAG_END.match(source, position)
        if end is not None:
            return attributes, end.end(), bool(end.group(1))
        attribute = _ATTRIBUTE.match(source, position)
        if attribute is None or attribute.end() == position:
            # A stray character (`<script / lang="ts">`): step over it, as HTML does.
            if position >= len(source):
                return attributes, position, False
            position += 1
            continue
        name = attribute.group(1).decode("utf-8", "replace").lower()
        value = (attribute.group(2) or b"").strip(b"\"'")
        attributes.setdefault(name, value.decode("utf-8", "replace"))
        position = attribute.end()


def _grammar(attributes: dict[str, str]) -> str | None:
    if "src" in attributes:
        return None
    return GRAMMARS.get(attributes.get("lang", "").strip().lower())


def splice(source: bytes, bodies: Sequence[tuple[ScriptBlock, bytes]]) -> bytes:
    """`source` with each block's body replaced (blocks in file order, as `scan` gives)."""
    out: list[bytes] = []
    position = 0
    for block, body in bodies:
        out.append(source[position : block.start])
        out.append(body)
        position = block.end
    out.append(source[position:])
    return b"".join(out)
