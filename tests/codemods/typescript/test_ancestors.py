"""`Document.ancestors` (one descent from the root) gives exactly what walking `Node.parent`
gives, so `statement_of`, `function_of` and the JSX marker placement built on it are
unchanged; only deep JSX stops being cubic."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tree_sitter
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.runner import Options, migrate_bytes
from codemods.typescript.document import (
    FUNCTIONS,
    JSX_CHILDREN,
    STATEMENT_CONTAINERS,
    Document,
    grammar_for,
    parents,
)

SITE = "<A onApprove={() => addToolApprovalResponse({id, approved: true})} />"
LEAVES = [
    SITE,
    "hi",
    "{x}",
    "{open && <B />}",
    "<button onClick={() => { addToolApprovalResponse({ id, approved: false }) }}>ok</button>",
    "{/* a note */}",
]


def _wrap(kind: int, children: list[str], separator: str) -> str:
    inner = separator.join(children)
    if kind == 0:
        return f"<div>{separator}{inner}{separator}</div>"
    if kind == 1:
        return f"<>{inner}</>"
    if kind == 2:
        return f"{{open && ({separator}<p>{inner}</p>{separator})}}"
    if kind == 3:
        return f"{{items.map((i) => <li key={{i}}>{inner}</li>)}}"
    return f"{{(() => {{{separator}const y = 1; return <span>{inner}</span>{separator}}})()}}"


JSX = st.recursive(
    st.sampled_from(LEAVES),
    lambda children: st.builds(
        _wrap,
        st.integers(0, 4),
        st.lists(children, min_size=1, max_size=3),
        st.sampled_from(["\n", "\n    ", " ", ""]),
    ),
    max_leaves=25,
)


def _file(jsx: str) -> bytes:
    return (
        "import { useChat } from '@tanstack/ai-react'\n\n"
        "export function App({ id, open, items, x }) {\n"
        "  const { addToolApprovalResponse } = useChat({})\n"
        f"  return (\n    <main>\n{jsx}\n    </main>\n  )\n}}\n"
    ).encode()


def _nodes(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    yield node
    for child in node.children:
        yield from _nodes(child)


# The parent walks these methods used before `ancestors`, kept verbatim as the reference.
def _plain_statement_of(node: tree_sitter.Node) -> tree_sitter.Node:
    current = node
    while current.parent is not None and current.parent.type not in STATEMENT_CONTAINERS:
        current = current.parent
    return current


def _plain_function_of(node: tree_sitter.Node) -> tree_sitter.Node | None:
    current = node.parent
    while current is not None and current.type not in FUNCTIONS:
        current = current.parent
    return current


def _plain_jsx_child(
    document: Document, node: tree_sitter.Node, stop: tree_sitter.Node
) -> tree_sitter.Node | None:
    current: tree_sitter.Node | None = node
    while current is not None and current != stop:
        parent = current.parent
        if (
            parent is not None
            and parent.type == "jsx_element"
            and current.type in JSX_CHILDREN
            and not document._before_on_line(current).strip()
        ):
            return current
        current = parent
    return None


@settings(max_examples=60, deadline=None)
@given(jsx=JSX, name=st.sampled_from(["App.jsx", "App.tsx", "App.js"]))
def test_every_node_finds_the_same_ancestors_both_ways(jsx: str, name: str) -> None:
    document = Document(_file(jsx), grammar_for(name))
    for node in _nodes(document.root):
        assert document.ancestors(node) == list(parents(node))
        statement = document.statement_of(node)
        assert statement == _plain_statement_of(node)
        assert document.function_of(node) == _plain_function_of(node)
        assert document._jsx_child(node, statement) == _plain_jsx_child(document, node, statement)


def _plain_ancestors(_: Document, node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return list(parents(node))


@settings(max_examples=25, deadline=None)
@given(jsx=JSX)
def test_a_migration_is_the_same_with_the_plain_parent_walk(jsx: str) -> None:
    source = _file(jsx)
    fast = migrate_bytes(source, "App.jsx", Options())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Document, "ancestors", _plain_ancestors)
        plain = migrate_bytes(source, "App.jsx", Options())
    assert fast == plain


@pytest.mark.parametrize("separator", ["\n", " "])
def test_deeply_nested_sites_are_marked_as_the_plain_walk_marks_them(separator: str) -> None:
    # 150 levels: deep enough that the plain walk's cost shows, small enough to run it.
    jsx = SITE
    for _ in range(150):
        jsx = f"<div>{separator}{SITE}{separator}{jsx}{separator}</div>"
    source = _file(jsx)
    fast = migrate_bytes(source, "Deep.jsx", Options())
    assert fast.updated is not None
    assert len(fast.sites) == 151
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Document, "ancestors", _plain_ancestors)
        plain = migrate_bytes(source, "Deep.jsx", Options())
    assert fast == plain


def test_a_node_of_another_tree_falls_back_to_its_parents() -> None:
    document = Document(b"f(g(h))\n", "javascript")
    other = Document(b"[[x]]\n", "javascript")
    node = other.root.descendant_for_byte_range(2, 3)
    assert node is not None
    assert document.ancestors(node) == list(parents(node))
    assert [a.type for a in document.ancestors(node)] == [
        "array",
        "array",
        "expression_statement",
        "program",
    ]
