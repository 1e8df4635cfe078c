"""`accessor` class fields (the decorators proposal) where the grammar lacks them: migrated
with the keyword kept, while a genuine syntax error is still one, where it is."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.typescript import accessors
from codemods.typescript.document import Document, Edit, apply_edits

STORE = b"""import { ChatClient } from '@tanstack/ai-client'
class Store {
  static accessor count = 0
  @tracked accessor #items = []
  accessor [key] = 1
  @observable
  accessor x = client.getPendingInterrupts()
}
const client = new ChatClient({ tools: [t.client()] })
const n = client.getPendingInterrupts().length
"""


@pytest.mark.parametrize("name", ["store.js", "store.mjs", "store.jsx", "Store.vue"])
def test_accessor_fields_are_migrated_and_kept(name: str) -> None:
    source = b"<script>\n" + STORE + b"</script>\n" if name.endswith(".vue") else STORE
    shift = 1 if name.endswith(".vue") else 0
    assert Document(STORE, "javascript").first_error() is not None  # the grammar's gap
    result = migrate_bytes(source, name, Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated == source.replace(b"getPendingInterrupts", b"getInterrupts")
    sites = [(s.rule.value, s.line, s.column, s.action.value) for s in result.sites]
    assert sites == [
        ("AG003", 7 + shift, 23, "rewritten"),
        ("AG003", 10 + shift, 18, "rewritten"),
    ]
    assert migrate_bytes(result.updated, name, Options()).updated is None


@pytest.mark.parametrize(
    ("source", "where", "error"),
    [
        # A genuine error after an accessor field is reported where it is.
        (
            b"class S {\n  accessor n = 0\n}\nconst a = client.getPendingInterrupts(\n",
            (4, 1),
            "unexpected 'const a = client.getPendingInt'",
        ),
        # `accessor` where the proposal does not allow it stays an error.
        (b"class S {\n  accessor f() {}\n}\nclient.getPendingInterrupts()\n", (2, 12), None),
        (b"class S {\n  accessor n: number = 0\n}\nclient.getPendingInterrupts()\n", (2, 12), None),
        (b"class S {\n  accessor\n  n = 0 x\n}\nclient.getPendingInterrupts()\n", None, None),
        (b"f(accessor x)\nclient.getPendingInterrupts()\n", (1, 12), None),
    ],
)
def test_a_syntax_error_stays_one(
    source: bytes, where: tuple[int, int] | None, error: str | None
) -> None:
    result = migrate_bytes(source, "a.js", Options())
    assert result.status is FileStatus.FAILED
    assert result.updated is None
    assert result.error is not None
    assert result.error.startswith("syntax error: ")
    if where is not None:
        assert (result.error_line, result.error_column) == where
    if error is not None:
        assert result.error == f"syntax error: {error}"


@pytest.mark.parametrize("name", ["a.ts", "a.tsx", "a.js"])
def test_static_accessor_fields_parse_in_typescript_too(name: str) -> None:
    # TypeScript's grammar reads `accessor x` but not `static accessor x`.
    source = (
        b"class S {\n  static accessor n = 0\n  accessor m = 1\n}\nclient.getPendingInterrupts()\n"
    )
    assert Document(source, "typescript").first_error() is not None
    result = migrate_bytes(source, name, Options())
    assert result.updated == source.replace(b"getPendingInterrupts", b"getInterrupts")
    broken = source.replace(b"accessor n = 0", b"accessor n: = 0")
    assert migrate_bytes(broken, name, Options()).status is FileStatus.FAILED


def test_an_edit_over_a_keyword_gives_no_restored_text() -> None:
    blanked = accessors.blank(Document(b"class S { accessor n = 0 }\n", "javascript"), "javascript")
    assert blanked is not None
    assert blanked.keywords == (10,)
    text = blanked.document.source
    assert accessors.restore(text, blanked.keywords, []) == b"class S { accessor n = 0 }\n"
    assert accessors.restore(text, blanked.keywords, [[Edit(8, 12, b"")]]) is None
    assert accessors.restore(text, blanked.keywords, [[Edit(12, 12, b"x")]]) is None


CLASS = b"class S {\n  accessor a = 1\n  static accessor b = 2\n  x = 3\n}\nf(4)\n"
KEYWORD = re.compile(rb"accessor")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 6), st.sampled_from(b"xy;\n "))))
)
def test_restore_equals_the_edits_applied_to_the_unblanked_text(
    raw: list[list[tuple[int, int, int]]],
) -> None:
    """The plain twin: every pass applied to the text that still has its keywords."""
    blanked = accessors.blank(Document(CLASS, "javascript"), "javascript")
    assert blanked is not None
    plain, text = CLASS, blanked.document.source
    passes: list[list[Edit]] = []
    for wanted in raw:
        edits: list[Edit] = []
        for start, length, fill in wanted:
            edit = Edit(min(start, len(plain)), min(start + length, len(plain)), bytes([fill]) * 2)
            touched = [m.span() for m in KEYWORD.finditer(plain)]
            clear = all(edit.end <= s or e <= edit.start for s, e in touched)
            apart = all(edit.end <= o.start or o.end <= edit.start for o in edits)
            if clear and apart:
                edits.append(edit)
        plain, text = apply_edits(plain, edits), apply_edits(text, edits)
        passes.append(edits)
    assert accessors.restore(text, blanked.keywords, passes) == plain
