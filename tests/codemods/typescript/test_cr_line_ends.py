"""Files whose lines end with a lone CR (old Mac style) migrate like their LF twins.

ECMAScript counts a lone CR as a line break; the tree-sitter grammars read it as
whitespace, so `// note\\r` once swallowed the rest of such a file and it was refused as
a syntax error. Edits, TODO lines and output keep the file's own line ends.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.runner import FileResult, FileStatus, Options, migrate_bytes
from codemods.site import Action
from codemods.typescript.document import Document
from tests.codemods.typescript.test_properties import PATTERNS, STATEMENTS

CASES = Path(__file__).resolve().parent / "cases"
# The before-files with LF line ends only (a CRLF file turned CR-only would get CR CR).
LF_CASES = tuple(
    path.read_bytes()
    for path in sorted(CASES.glob("*.before.*"))
    if b"\r" not in path.read_bytes() and ".cancel." not in path.name
)
CASE_NAMES = {
    path.read_bytes(): path.name
    for path in sorted(CASES.glob("*.before.*"))
    if ".cancel." not in path.name
}

MODULE = (
    b"// Approvals desk\r"
    b"import { ChatClient } from '@tanstack/ai-client'\r"
    b"const client = new ChatClient({ connection, tools: [t.client()] })\r"
    b"export async function f(id: string) {\r"
    b"  // the reviewer said yes\r"
    b"  await client.addToolApprovalResponse({ id, approved: true })\r"
    b"  return client.addToolApprovalResponse({ id, approved: false })\r"
    b"}\r"
)


def where(result: FileResult) -> list[tuple[str, int, int, str]]:
    return [(s.rule.value, s.line, s.column, s.action.value) for s in result.sites]


def lf_to_cr(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


def test_a_cr_only_module_is_rewritten_and_marked_with_cr_line_ends() -> None:
    result = migrate_bytes(MODULE, "desk.ts", Options())
    assert result.status is FileStatus.CHANGED, result.error
    assert result.updated is not None
    assert b"\n" not in result.updated
    assert result.updated.startswith(b"// Approvals desk\r")
    assert b"\r  // the reviewer said yes\r  client.getInterrupts().filter(" in result.updated
    # The TODO is a line of its own, ending as the file's lines do.
    assert b"\r  // TODO(agui): AG001 its promise is returned" in result.updated
    todo_end = result.updated.index(b"README#ag001")
    assert result.updated[result.updated.index(b"\r", todo_end) + 1 :].startswith(
        b"  return client.addToolApprovalResponse"
    )
    # Lines count each lone CR.
    assert where(result) == [("AG001", 6, 9, "rewritten"), ("AG001", 7, 10, "todo")]
    again = migrate_bytes(result.updated, "desk.ts", Options())
    assert again.status is FileStatus.UNCHANGED
    assert [s.marked for s in again.sites] == [True]


def test_cr_only_javascript_and_tsx_with_a_jsx_marker() -> None:
    source = (
        b"// A panel\r"
        b"export function Panel({ ids }) {\r"
        b"  const { addToolApprovalResponse } = useChat({ connection, tools })\r"
        b"  return (\r"
        b"    <ul>\r"
        b"      <li onClick={() => addToolApprovalResponse({ id: ids[0], approved: true })}>\r"
        b"        a\r"
        b"      </li>\r"
        b"      <Row onPick={() => addToolApprovalResponse({ id: ids[1], approved: ok })} />\r"
        b"    </ul>\r"
        b"  )\r"
        b"}\r"
    )
    for name in ("panel.jsx", "panel.tsx", "panel.js"):
        lf = migrate_bytes(source.replace(b"\r", b"\n"), name, Options())
        cr = migrate_bytes(source, name, Options())
        assert cr.status is FileStatus.CHANGED, cr.error
        assert lf.updated is not None
        assert cr.updated == lf_to_cr(lf.updated)
        assert b"\r      {/* TODO(agui): AG001" in cr.updated
        assert where(cr) == where(lf)


def test_a_syntax_error_in_a_cr_only_file_is_located_by_cr_lines() -> None:
    source = b"// a note\rconst a = 1\rconst { addToolApprovalResponse } = useChat(\r}\r"
    result = migrate_bytes(source, "half.ts", Options())
    twin = migrate_bytes(source.replace(b"\r", b"\n"), "half.ts", Options())
    assert result.status is FileStatus.FAILED
    assert (result.error, result.error_line, result.error_column) == (
        twin.error,
        twin.error_line,
        twin.error_column,
    )
    assert result.error_line == 3


def test_vue_and_svelte_script_blocks_with_cr_line_ends() -> None:
    script = (
        b"// state\r"
        b"const client = new ChatClient({ tools: [t.client()] })\r"
        b"const n = client.getPendingInterrupts().length\r"
        b"export const p = client.addToolApprovalResponse({ id, approved: true })\r"
    )
    for name, source in (
        (
            "Desk.vue",
            b'<template>\r  <p @click="addToolApprovalResponse(x)">{{ n }}</p>\r</template>\r'
            b'<script setup lang="ts">\r' + script + b"</script>\r",
        ),
        (
            "Desk.svelte",
            b'<script lang="ts">\r' + script + b"</script>\r"
            b"<p on:click={() => addToolApprovalResponse(x)}>{n}</p>\r",
        ),
    ):
        cr = migrate_bytes(source, name, Options())
        lf = migrate_bytes(source.replace(b"\r", b"\n"), name, Options())
        assert cr.status is FileStatus.CHANGED, cr.error
        assert lf.updated is not None
        assert cr.updated is not None
        assert cr.updated == lf_to_cr(lf.updated)
        assert b"client.getInterrupts().length\r" in cr.updated
        assert b"<!-- TODO(agui): AG001" in cr.updated
        assert b"\r// TODO(agui): AG001 its promise is stored" in cr.updated
        assert where(cr) == where(lf)
        assert any(site.action is Action.TODO for site in cr.sites)
        assert migrate_bytes(cr.updated, name, Options()).status is FileStatus.UNCHANGED


def test_crlf_and_mixed_files_keep_their_marker_line_ends() -> None:
    crlf = MODULE.replace(b"\r", b"\r\n")
    result = migrate_bytes(crlf, "desk.ts", Options())
    assert result.updated is not None
    assert b"README#ag001-resolve-approvals-on-the-bound-interrupt\r\n" in result.updated
    assert b"\n" not in result.updated.replace(b"\r\n", b"")
    # Mixed: the first LF decides the marker's line end, as before; lone CRs elsewhere
    # now end lines too, and stay as they were.
    mixed = MODULE.replace(b"\r", b"\n", 1)
    result = migrate_bytes(mixed, "desk.ts", Options())
    assert result.updated is not None
    assert b"README#ag001-resolve-approvals-on-the-bound-interrupt\n  return" in result.updated
    assert result.updated.count(b"\n") == 2
    assert where(result) == [("AG001", 6, 9, "rewritten"), ("AG001", 7, 10, "todo")]


def test_the_parser_sees_lf_where_the_document_keeps_cr() -> None:
    document = Document(b"// a\rx()\r\nb\n", "typescript")
    assert document.source == b"// a\rx()\r\nb\n"
    assert document.view == b"// a\nx()\r\nb\n"
    assert document.root.child_count == 3  # comment, two statements
    assert document.position(5) == (2, 1)


def with_remarks(source: bytes, lines: list[int]) -> bytes:
    """`source` with a `// remark` line before each of the given line numbers."""
    out = source.split(b"\n")
    for index in sorted(set(lines), reverse=True):
        at = index % len(out)
        indent = out[at][: len(out[at]) - len(out[at].lstrip(b" "))]
        out.insert(at, indent + b"// remark")
    return b"\n".join(out)


@st.composite
def lf_sources(draw: st.DrawFn) -> tuple[bytes, str]:
    """A valid LF file with legacy sites: a before-file of the pairs, or a random
    composition of statements, maybe inside a component, with `//` comment lines."""
    if draw(st.booleans()):
        source = draw(st.sampled_from(LF_CASES))
        return source, CASE_NAMES[source]
    pattern = draw(st.sampled_from(PATTERNS))
    body = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=5))
    lines = [
        "export async function Component(id, xs, response) {",
        f"  {pattern}",
        *(f"  {statement}" for statement in body),
        "  return null",
        "}",
    ]
    source = "\n".join(lines).encode() + b"\n"
    source = with_remarks(source, draw(st.lists(st.integers(0, 40), max_size=4)))
    kind = draw(st.sampled_from(("x.ts", "x.tsx", "x.js", "X.vue", "X.svelte")))
    if kind == "X.vue":
        source = (
            b'<template>\n  <p @click="respond(x)">{{ pendingInterrupts }}</p>\n</template>\n'
            b"<script setup>\n" + source + b"</script>\n"
        )
    elif kind == "X.svelte":
        source = b"<script>\n" + source + b"</script>\n\n<p>{pendingInterrupts.length}</p>\n"
    return source, kind


@settings(max_examples=150, deadline=None)
@given(lf_sources(), st.booleans())
def test_a_cr_only_file_migrates_as_its_lf_twin_with_lf_turned_to_cr(
    sample: tuple[bytes, str], trailing: bool
) -> None:
    source, name = sample
    if not trailing:
        source = source.rstrip(b"\n")
    lf = migrate_bytes(source, name, Options())
    cr = migrate_bytes(lf_to_cr(source), name, Options())
    assert cr.status is lf.status
    assert cr.updated == (None if lf.updated is None else lf_to_cr(lf.updated))
    assert cr.sites == lf.sites
    assert (cr.error, cr.error_line, cr.error_column) == (
        lf.error,
        lf.error_line,
        lf.error_column,
    )
