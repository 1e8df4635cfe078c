"""One parsed TypeScript/JavaScript file: its bytes, its tree-sitter tree, and edits by byte range.

tree-sitter reports exact byte offsets into the bytes it was given, so a rewrite is a
list of `Edit`s applied to those bytes and every byte outside them stays as it was
(CRLF, odd spacing, comments). The BOM is kept out of the parse and put back by the
engine. The grammars are handed a view of the bytes in which each lone CR reads as LF
(JavaScript's line break, whitespace to tree-sitter); offsets are the same in both, and
edits and output keep the file's own bytes and line ends.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

# Node types whose children are statements: a TODO marker goes on its own line above
# the child that holds a site.
STATEMENT_CONTAINERS = frozenset({"program", "statement_block", "switch_case", "switch_default"})
FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
    }
)
# Where a name is read, as opposed to a property key or a type.
REFERENCES = frozenset({"identifier", "shorthand_property_identifier"})
# What sits in a JSX element's children and may start a line of its own: elements and
# `{…}` containers (a fragment `<>…</>` is a `jsx_element` too).
JSX_CHILDREN = frozenset({"jsx_element", "jsx_self_closing_element", "jsx_expression"})
# Wrappers that only tell the type checker about a value: `{ … } satisfies Answer`,
# `chat as Chat`, `chat!`, `(chat)`. The value inside is what the code uses.
TYPE_WRAPPERS = frozenset(
    {"satisfies_expression", "as_expression", "non_null_expression", "parenthesized_expression"}
)
# Line ends as JavaScript, editors and `codemods.outline.NEWLINE` count them.
_NEWLINE = re.compile(rb"\r\n|\r|\n")
# A carriage return alone (old Mac line ends): a LineTerminator to ECMAScript, but mere
# whitespace to the tree-sitter grammars, so `// note\r` would swallow the rest of a
# CR-only file.
_LONE_CR = re.compile(rb"\r(?!\n)")


def unwrapped(node: tree_sitter.Node) -> tree_sitter.Node:
    """`node` without the type-only wrappers around it."""
    while node.type in TYPE_WRAPPERS and node.named_children:
        node = node.named_children[0]
    return node


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace bytes `start:end` of the parsed text with `text` (an insertion when empty)."""

    start: int
    end: int
    text: bytes


def parser_view(source: bytes) -> bytes:
    """`source` with each lone CR read as LF: what the grammars parse, and where line
    starts are searched. Same length, so every byte offset into it is one into `source`,
    whose own bytes (and line ends) are what edits and output keep."""
    return _LONE_CR.sub(b"\n", source)


def line_starts(source: bytes, first: int = 0) -> list[int]:
    """Where each line of `source` starts, for `position_in`; built once per text so a
    position costs a bisect instead of a rescan of everything before it. The first line
    starts at `first` (past a component's BOM, which is no column)."""
    return [first, *(m.end() for m in _NEWLINE.finditer(source))]


def position_in(source: bytes, starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and character column of byte `offset`, given `line_starts(source)`."""
    index = bisect.bisect_right(starts, offset) - 1
    start = starts[index]
    return index + 1, len(source[start:offset].decode("utf-8", "replace")) + 1


class EditConflict(Exception):
    """Two edits of one pass overlap: a rule bug, reported as that file's internal error."""


@cache
def _parser(grammar: str) -> tree_sitter.Parser:
    if grammar == "typescript":
        language = tree_sitter_typescript.language_typescript()
    elif grammar == "tsx":
        language = tree_sitter_typescript.language_tsx()
    else:
        language = tree_sitter_javascript.language()
    return tree_sitter.Parser(tree_sitter.Language(language))


def grammar_for(path: str) -> str:
    """`.ts`/`.mts`/`.cts` parse as TypeScript (where `<T>x` is a cast, not JSX), `.tsx`
    as TSX, and every JavaScript flavour with the JavaScript grammar (which knows JSX)."""
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    if path.endswith(".tsx"):
        return "tsx"
    return "javascript"


class Document:
    """A parsed file body (no BOM) with the lookups rules need."""

    def __init__(self, body: bytes, grammar: str) -> None:
        self.source = body
        # Every line of the view ends with an LF, at the offsets of `body`'s line ends.
        self.view = parser_view(body)
        self.tree = _parser(grammar).parse(self.view)
        self.root = self.tree.root_node
        first = body.find(b"\n")
        if first < 0 and b"\r" in body:  # CR-only: a marker line ends as the file's do
            self.newline = b"\r"
        else:
            self.newline = b"\r\n" if first > 0 and body[first - 1 : first] == b"\r" else b"\n"
        self._line_starts: list[int] | None = None

    # -- text -------------------------------------------------------------------------

    def text(self, node: tree_sitter.Node) -> str:
        """The node's source text (undecodable bytes survive a round trip through `encode`)."""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    @staticmethod
    def encode(text: str) -> bytes:
        return text.encode("utf-8", "surrogateescape")

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and character column of a byte offset.

        Lines end at LF, CRLF and a lone CR, as JavaScript, editors and the Python side
        (`codemods.outline.NEWLINE`) count them: counting LFs alone put every site after
        a stray CR on the line above the one the user sees.
        """
        if self._line_starts is None:
            self._line_starts = line_starts(self.source)
        return position_in(self.source, self._line_starts, offset)

    # -- finding nodes ------------------------------------------------------------------

    def occurrences(
        self, name: str, within: tree_sitter.Node | None = None
    ) -> Iterator[tree_sitter.Node]:
        """The smallest node exactly spanning each whole-word occurrence of `name`.

        A byte search plus `descendant_for_byte_range` finds the few nodes a rule cares
        about without walking the whole tree in Python.
        """
        scope = within if within is not None else self.root
        pattern = re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
        for match in pattern.finditer(self.source, scope.start_byte, scope.end_byte):
            node = self.root.descendant_for_byte_range(match.start(), match.end())
            if node is not None and (node.start_byte, node.end_byte) == match.span():
                yield node

    def references(self, name: str, within: tree_sitter.Node) -> list[tree_sitter.Node]:
        """Every read of the variable `name` inside `within` (keys and types excluded)."""
        return [node for node in self.occurrences(name, within) if node.type in REFERENCES]

    def ancestors(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """`node`'s parent, its parent, and so on up to the root (`parents` is the plain twin).

        `Node.parent` is not a pointer: tree-sitter finds it by descending from the root,
        so walking up from a site N levels deep costs N² and a file of N nested JSX
        sites N³. One descent from the root with `child_with_descendant` (the step
        `Node.parent` itself takes) yields the whole chain in one pass instead.
        """
        chain: list[tree_sitter.Node] = []
        current: tree_sitter.Node | None = self.root
        while current is not None and current != node:
            chain.append(current)
            current = current.child_with_descendant(node)
        if current is None:  # not a node of this document's tree
            return list(parents(node))
        chain.reverse()
        return chain

    def statement_of(self, node: tree_sitter.Node) -> tree_sitter.Node:
        """The statement holding `node` that sits directly in a block (or the program)."""
        current = node
        for parent in self.ancestors(node):
            if parent.type in STATEMENT_CONTAINERS:
                break
            current = parent
        return current

    def function_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The innermost function around `node`, or None at module level."""
        return next((a for a in self.ancestors(node) if a.type in FUNCTIONS), None)

    def scope_of(self, node: tree_sitter.Node) -> tree_sitter.Node:
        """The function around `node`, or the whole program."""
        return self.function_of(node) or self.root

    def first_error(self) -> tuple[int, int, str] | None:
        """Line, column and description of the first syntax error; None when it parses."""
        if not self.root.has_error:
            return None
        node = self.root
        while not (node.is_error or node.is_missing):
            child = next((c for c in node.children if c.has_error or c.is_missing), None)
            if child is None:
                break
            node = child
        line, column = self.position(node.start_byte)
        if node.is_missing:
            return line, column, f"missing {node.type!r}"
        # Shown to a person: bytes that are not UTF-8 read as U+FFFD, not as escapes.
        raw = self.source[node.start_byte : node.end_byte]
        text = raw.decode("utf-8", "replace").strip().splitlines()
        near = text[0][:30] if text else ""
        return line, column, f"unexpected {near!r}" if near else "unexpected end of file"

    # -- markers --------------------------------------------------------------------------

    def marker_edit(self, node: tree_sitter.Node, comment: str, jsx: bool = False) -> Edit | None:
        """An edit putting `comment` on its own line above the statement holding `node`,
        indented like it; None when exactly that line is already there.

        With `jsx`, a `//` comment whose site sits in JSX children below that statement
        goes as `{/* … */}` on its own line above the JSX child that holds the site,
        when that child starts its line: close to the site in a long `return (…)`, and
        invisible, since JSX drops an expression container holding only a comment and
        the whitespace lines around it.
        """
        statement = self.statement_of(node)
        line_start = self.view.rfind(b"\n", 0, statement.start_byte) + 1
        # A statement that starts mid-line (`onClick={() => { … }}` inside JSX, say) gets
        # the marker above the statement around it: a line inserted there could land in
        # JSX children, where it would render as text.
        while self.source[line_start : statement.start_byte].strip() and statement.parent:
            parent = statement.parent
            # `a(); b()` on one line: the line starts with a statement of the same
            # block, so the marker goes above that line, not above the whole function.
            before = self.source[line_start : statement.start_byte]
            first = line_start + len(before) - len(before.lstrip(b" \t"))
            sibling = next((c for c in parent.children if c.start_byte == first), None)
            if parent.type in STATEMENT_CONTAINERS and sibling is not None:
                statement = sibling
                break
            # A `case` line is a line of its own: the marker goes right above it.
            cases = ("switch_case", "switch_default")
            statement = parent if parent.type in cases else self.statement_of(parent)
            line_start = self.view.rfind(b"\n", 0, statement.start_byte) + 1
        line = self.source[line_start : statement.start_byte]
        indent = line[: len(line) - len(line.lstrip(b" \t"))]
        wanted = self.encode(comment)
        end = line_start
        while end > 0:  # the comment lines directly above
            start = self.view.rfind(b"\n", 0, end - 1) + 1
            above = self.source[start:end].strip()
            if not above.startswith(b"//"):
                break
            if above == wanted:
                # Also for a JSX site: earlier versions put its marker here.
                return None
            end = start
        child = self._jsx_child(node, statement) if jsx and "*/" not in comment else None
        if child is not None:
            return self._jsx_marker_edit(child, "{/*" + comment.removeprefix("//") + " */}")
        return Edit(line_start, line_start, indent + wanted + self.newline)

    def _jsx_child(self, node: tree_sitter.Node, stop: tree_sitter.Node) -> tree_sitter.Node | None:
        """The innermost JSX child (an element or `{…}` in another element's children)
        holding `node` below `stop` that starts its line; None when there is none."""
        current = node
        for parent in self.ancestors(node):
            if current == stop:
                break
            if (
                parent.type == "jsx_element"
                and current.type in JSX_CHILDREN
                and not self._before_on_line(current).strip()
            ):
                return current
            current = parent
        return None

    def _before_on_line(self, node: tree_sitter.Node) -> bytes:
        return self.source[self.view.rfind(b"\n", 0, node.start_byte) + 1 : node.start_byte]

    def _jsx_marker_edit(self, child: tree_sitter.Node, comment: str) -> Edit | None:
        """`comment` (a JSX comment) on its own line above `child`, unless the JSX comment
        lines directly above already hold it."""
        indent = self._before_on_line(child)
        line_start = child.start_byte - len(indent)
        wanted = self.encode(comment)
        end = line_start
        while end > 0:  # the JSX comment lines directly above
            start = self.view.rfind(b"\n", 0, end - 1) + 1
            above = self.source[start:end].strip()
            if not (above.startswith(b"{/*") and above.endswith(b"*/}")):
                break
            if above == wanted:
                return None
            end = start
        return Edit(line_start, line_start, indent + wanted + self.newline)


def parents(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """`node`'s ancestors by `Node.parent`, innermost first: `Document.ancestors`'s plain twin."""
    current = node.parent
    while current is not None:
        yield current
        current = current.parent


def apply_edits(source: bytes, edits: list[Edit]) -> bytes:
    """`source` with the edits applied; insertions at one offset keep their order, and an
    edit proposed twice (two bindings renaming one read, say) applies once."""
    unique = list(dict.fromkeys(edits))
    ordered = sorted(enumerate(unique), key=lambda pair: (pair[1].start, pair[1].end, pair[0]))
    out: list[bytes] = []
    position = 0
    for _, edit in ordered:
        if edit.start < position:
            raise EditConflict(f"overlapping edits at byte {edit.start}")
        out.append(source[position : edit.start])
        out.append(edit.text)
        position = edit.end
    out.append(source[position:])
    return b"".join(out)


def original_offset(offset: int, edits: list[Edit]) -> int:
    """Where a byte offset of the edited text was before `edits` (an edit maps to its start)."""
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = edit.start + shift
        new_end = new_start + len(edit.text)
        if offset < new_start:
            break
        if offset < new_end:
            return edit.start
        shift += len(edit.text) - (edit.end - edit.start)
    return offset - shift
