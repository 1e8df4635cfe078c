"""The TypeScript engine's edges: BOM and CRLF byte for byte, syntax errors, grammars,
discovery, and the byte-search fast path against a plain walk of the tree."""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.discovery import DEFAULT_EXCLUDES, discover
from codemods.runner import FileStatus, Options, migrate_bytes, run
from codemods.typescript import is_script
from codemods.typescript.document import Document, Edit, apply_edits, original_offset

CALL = b"await client.addToolApprovalResponse({ id, approved: true })"


def test_bom_and_crlf_survive_byte_exact() -> None:
    source = (
        codecs.BOM_UTF8
        + b"// caf\xc3\xa9\r\nexport async function f(id: string) {\r\n  "
        + CALL
        + b"\r\n  return client.addToolApprovalResponse({ id, approved: true })\r\n}\r\n"
    )
    result = migrate_bytes(source, "x.ts", Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated is not None
    assert result.updated.startswith(codecs.BOM_UTF8 + b"// caf\xc3\xa9\r\n")
    assert b"\r\n  // TODO(agui): AG001 its promise is returned" in result.updated
    assert b"\n" not in result.updated.replace(b"\r\n", b"")
    assert migrate_bytes(result.updated, "x.ts", Options()).status is FileStatus.UNCHANGED


def test_non_ascii_before_a_site_keeps_offsets_and_columns() -> None:
    source = "const é = 'ü'; client.getPendingInterrupts()\n".encode()
    result = migrate_bytes(source, "x.ts", Options())
    assert result.updated == "const é = 'ü'; client.getInterrupts()\n".encode()
    assert [(s.line, s.column) for s in result.sites] == [(1, 23)]


def test_a_syntax_error_is_reported_with_its_location_and_nothing_changes(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "half.tsx"
    broken.write_bytes(
        b"export function A() {\n  const { addToolApprovalResponse } = useChat(\n}\n"
    )
    [result] = run([str(broken)], Options())
    assert result.status is FileStatus.FAILED
    assert result.error is not None
    assert result.error.startswith("syntax error:")
    # tree-sitter's recovery puts the error at the statement it could not finish.
    assert (result.error_line, result.error_column) == (2, 3)
    assert result.error == "syntax error: unexpected 'const { addToolApprovalRespons'"
    assert result.updated is None


def test_typescript_casts_parse_in_ts_files_and_jsx_in_js_files() -> None:
    cast = b"const n = <number>client.getPendingInterrupts().length\n"
    assert migrate_bytes(cast, "x.ts", Options()).status is FileStatus.CHANGED
    assert migrate_bytes(cast, "x.tsx", Options()).status is FileStatus.FAILED
    jsx = b"export const b = <b onClick={() => chat.pendingInterrupts}>x</b>\n"
    for name in ("x.js", "x.jsx", "x.mjs", "x.cjs"):
        assert migrate_bytes(jsx, name, Options()).status is FileStatus.CHANGED


def test_discovery_takes_scripts_but_not_declarations_or_build_output(tmp_path: Path) -> None:
    for name in (
        "app/a.ts",
        "app/b.tsx",
        "app/c.mjs",
        "app/d.cts",
        "app/types.d.ts",
        "node_modules/pkg/index.js",
        "dist/app.js",
        "app/notes.md",
    ):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
    found = sorted(
        p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], ("node_modules", "dist"))
    )
    assert found == ["app/a.ts", "app/b.tsx", "app/c.mjs", "app/d.cts"]
    assert not is_script("x.d.mts")
    assert {".next", ".output", ".vinxi"} <= set(DEFAULT_EXCLUDES)
    assert is_script("x.mts")


def test_python_and_typescript_share_one_run(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("n = len(client.pending_interrupts)\n", encoding="utf-8")
    (tmp_path / "b.ts").write_text("const n = client.pendingInterrupts.length\n", encoding="utf-8")
    (tmp_path / "c.ts").write_text("const n = client.pending_interrupts\n", encoding="utf-8")
    results = run([str(tmp_path / n) for n in ("a.py", "b.ts", "c.ts")], Options())
    assert [r.status for r in results] == [
        FileStatus.CHANGED,
        FileStatus.CHANGED,
        FileStatus.SKIPPED,  # a Python name in a script is no trigger
    ]


NAMES = ("pendingInterrupts", "addToolApprovalResponse", "interrupts", "respond")
SNIPPETS = st.sampled_from(
    (
        "const {{ {n} }} = useChat()\n",
        "x.{n}\n",
        "{n}({{ id, approved: true }})\n",
        "const s = '{n}'\n",
        "// {n}\n",
        "type T = {{ {n}: number }}\n",
        "const o = {{ {n}, {n}Count: 1 }}\n",
        "function f({n}: number) {{ return {n} }}\n",
        "const a = <a b={{{n}}}>{n}</a>\n",
    )
)


def plain_occurrences(document: Document, name: str) -> list[tuple[int, int, str]]:
    """The plain twin of `Document.occurrences`: walk every node, keep the smallest ones
    whose text is exactly the name."""
    found = []
    stack = [document.root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if document.text(node) != name:
            continue
        if any(
            (c.start_byte, c.end_byte) == (node.start_byte, node.end_byte) for c in node.children
        ):
            continue
        found.append((node.start_byte, node.end_byte, node.type))
    return sorted(found)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(SNIPPETS, st.sampled_from(NAMES)), min_size=1, max_size=8))
def test_occurrences_equal_a_plain_walk(parts: list[tuple[str, str]]) -> None:
    document = Document("".join(s.format(n=n) for s, n in parts).encode(), "tsx")
    for name in NAMES:
        fast = sorted((n.start_byte, n.end_byte, n.type) for n in document.occurrences(name))
        assert fast == plain_occurrences(document, name)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 5), st.binary(max_size=6)), max_size=5)
)
def test_original_offset_inverts_the_edits(raw: list[tuple[int, int, bytes]]) -> None:
    source = bytes(range(48, 48 + 50))
    edits, taken = [], -1
    for start, length, text in sorted(raw):
        if start <= taken:
            continue
        end = min(start + length, len(source))
        edits.append(Edit(start, end, text))
        taken = end if end > start else start
    edited = apply_edits(source, edits)
    # Every byte outside the edits maps back to the same byte of the original.
    for offset, byte in enumerate(edited):
        back = original_offset(offset, edits)
        inside = any(e.start <= back <= e.end for e in edits)
        if not inside:
            assert source[back] == byte
