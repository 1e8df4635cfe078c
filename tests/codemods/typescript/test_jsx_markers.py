"""A TODO for a site inside JSX children goes above the JSX child that holds it, as a
`{/* … */}` comment JSX drops, instead of above a `return (…)` far away; a second run and
`--check` find it."""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
from typer.testing import CliRunner

from cli.app import app
from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.typescript.document import Document

PANEL = b"""import { useChat } from '@tanstack/ai-react'

export function Panel({ id, open }) {
  const { addToolApprovalResponse } = useChat({ connection, tools })
  return (
    <section>
      <h1>Approvals</h1>
      <p>
        Pending
        <Approve onApprove={() => addToolApprovalResponse({ id, approved: true })} />
      </p>
      {open && (
        <Approve onApprove={() => addToolApprovalResponse({ id, approved: false })} />
      )}
    </section>
  )
}
"""
TODO = (
    "TODO(agui): AG001 its promise is the result of a callback passed to a component, which"
    " may wait for it (a prop typed () => Promise<void> no longer type-checks):"
    " resolveInterrupt returns void, so rewrite this by hand"
    " \u2014 README#ag001-resolve-approvals-on-the-bound-interrupt"
).encode()
APPROVE = b"<Approve onApprove={() => addToolApprovalResponse({ id, approved: true })} />"
MARKED = PANEL.replace(
    b"        " + APPROVE, b"        {/* " + TODO + b" */}\n        " + APPROVE
).replace(b"      {open && (", b"      {/* " + TODO + b" */}\n      {open && (")


@pytest.mark.parametrize("name", ["Panel.jsx", "Panel.tsx", "panel.js"])
def test_the_todo_goes_above_the_jsx_child_holding_the_site(name: str) -> None:
    result = migrate_bytes(PANEL, name, Options())
    assert result.updated == MARKED
    sites = [(s.line, s.column, s.action.value, s.marked) for s in result.sites]
    assert sites == [(10, 35, "todo", False), (13, 35, "todo", False)]
    again = migrate_bytes(MARKED, name, Options())
    assert again.updated is None
    assert [s.marked for s in again.sites] == [True, True]


def test_jsx_drops_the_marker_and_the_lines_around_it() -> None:
    """JSX removes a `{…}` holding only a comment, and the whitespace of a text that ends
    (or starts) with a line break: what the component renders is unchanged."""
    document = Document(MARKED, "tsx")
    markers = [n for n in walk(document.root) if TODO in document.source[n.start_byte : n.end_byte]]
    containers = [n for n in markers if n.type == "jsx_expression"]
    assert len(containers) == 2
    for container in containers:
        assert [c.type for c in container.named_children] == ["comment"]
        assert container.parent is not None
        assert container.parent.type == "jsx_element"
        # The text beside it reaches it only through a line break: JSX trims that away.
        before, after = container.prev_sibling, container.next_sibling
        assert before is not None
        assert after is not None
        if before.type == "jsx_text":
            text = document.source[before.start_byte : before.end_byte]
            assert b"\n" in text
            assert not text.rsplit(b"\n", 1)[1].strip()
        if after.type == "jsx_text":
            text = document.source[after.start_byte : after.end_byte]
            assert b"\n" in text
            assert not text.split(b"\n", 1)[0].strip()


def walk(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [node, *(n for child in node.children for n in walk(child))]


def test_a_site_in_the_returned_element_itself_keeps_the_line_above_the_return() -> None:
    # `<button>` is no child of another element: a line above it would be outside JSX.
    source = b"""import { useChat } from '@tanstack/ai-react'
export function B({ id }) {
  const { addToolApprovalResponse } = useChat({ connection, tools })
  return <Approve onApprove={() => addToolApprovalResponse({ id, approved: true })} />
}
"""
    result = migrate_bytes(source, "B.jsx", Options())
    assert result.updated is not None
    assert b"\n  // " + TODO + b"\n  return <Approve" in result.updated


def test_a_marker_left_above_the_return_by_an_earlier_version_still_counts() -> None:
    earlier = PANEL.replace(b"  return (", b"  // " + TODO + b"\n  return (")
    result = migrate_bytes(earlier, "Panel.jsx", Options())
    assert result.updated is None
    assert [s.marked for s in result.sites] == [True, True]


def test_check_fails_until_written_then_passes(tmp_path: Path) -> None:
    path = tmp_path / "Panel.jsx"
    path.write_bytes(PANEL)
    runner = CliRunner()
    assert runner.invoke(app, ["migrate", "--check", str(path)]).exit_code == 1
    assert runner.invoke(app, ["migrate", "--write", str(path)]).exit_code == 0
    assert path.read_bytes() == MARKED
    check = runner.invoke(app, ["migrate", "--check", str(path)])
    assert (check.exit_code, check.stdout) == (0, "")
    assert migrate_bytes(MARKED, "Panel.jsx", Options()).status is FileStatus.UNCHANGED
