"""Before/after pairs for every TypeScript rule and form, byte-exact, and a second run idle.

The after-files are also type-checked under strict TypeScript against the real
0.33.2/0.27.3 packages: tests/interop/test_migrate_ts_interop.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import Rule
from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.settings import FalsePolicy, Settings
from codemods.site import Action

CASES = Path(__file__).resolve().parent / "cases"
BEFORE = sorted(CASES.glob("*.before.*"))


def options_for(path: Path) -> Options:
    """`*.cancel.*` pairs run under `--false-as cancel`; the rest under the default."""
    if ".cancel." in path.name:
        return Options(settings=Settings(false_as=FalsePolicy.CANCEL))
    return Options()


def after_of(before: Path) -> Path:
    return before.with_name(before.name.replace(".before.", ".after."))


@pytest.mark.parametrize("before", BEFORE, ids=lambda path: path.name)
def test_pair(before: Path) -> None:
    expected = after_of(before).read_bytes()
    result = migrate_bytes(before.read_bytes(), before.name, options_for(before))
    assert result.status is not FileStatus.FAILED, result.error
    assert (result.updated if result.updated is not None else before.read_bytes()) == expected
    again = migrate_bytes(expected, before.name, options_for(before))
    assert again.status in (FileStatus.UNCHANGED, FileStatus.SKIPPED)
    assert all(site.marked for site in again.sites if site.action is Action.TODO)
    assert not any(site.action is Action.REWRITTEN for site in again.sites)


def test_every_rule_has_a_pair() -> None:
    covered = {path.name[:5].upper() for path in BEFORE}
    assert covered == {rule.value for rule in Rule}


def sites(source: str, name: str = "x.ts", **settings: object) -> list[tuple[str, int, int, str]]:
    result = migrate_bytes(source.encode(), name, Options(settings=Settings(**settings)))  # type: ignore[arg-type]
    return [(s.rule.value, s.line, s.column, s.action.value) for s in result.sites]


def test_sites_are_reported_where_they_were_before_earlier_rules_moved_lines() -> None:
    source = (
        "const client = new ChatClient({ connection, tools })\n"
        "for (const item of client.getInterrupts()) {\n"
        "  client.addToolApprovalResponse({ id: item.id, approved: true })\n"
        "}\n"
        "export const n = client.pendingInterrupts.length\n"
        "await client.addToolApprovalResponse({ id: 'a', approved: false })\n"
    )
    assert sites(source) == [
        ("AG005", 3, 3, "rewritten"),
        ("AG002", 5, 25, "rewritten"),
        ("AG001", 6, 7, "rewritten"),
    ]


def test_receivers_restrict_member_calls() -> None:
    source = "other.addToolApprovalResponse({ id, approved: true })\n"
    assert sites(source, receivers=("client",)) == []
    assert sites("client.getPendingInterrupts()\n", receivers=("client",)) == [
        ("AG003", 1, 8, "rewritten")
    ]


def test_a_computed_id_is_not_evaluated_once_per_item() -> None:
    source = "client.addToolApprovalResponse({ id: nextId(), approved: true })\n"
    assert sites(source) == [("AG001", 1, 1, "todo")]


def test_the_callback_parameter_never_shadows_the_id() -> None:
    source = b"client.addToolApprovalResponse({ id: item.id, approved: true })\n"
    result = migrate_bytes(source, "x.ts", Options())
    assert result.updated is not None
    assert b".find((interrupt) => interrupt.id === item.id)" in result.updated


def test_double_quoted_files_get_double_quotes() -> None:
    source = b'import { x } from "y"\nclient.addToolApprovalResponse({ id, approved: true })\n'
    result = migrate_bytes(source, "x.ts", Options())
    assert result.updated is not None
    assert b'item.kind === "tool-approval"' in result.updated


def test_a_name_taken_by_something_else_gets_a_todo() -> None:
    source = (
        "function C() {\n"
        "  const { addToolApprovalResponse } = useChat({ tools })\n"
        "  const interrupts = 3\n"
        "  addToolApprovalResponse({ id, approved: true })\n"
        "}\n"
    )
    assert sites(source, "x.tsx") == [("AG001", 4, 3, "todo")]


def test_a_tool_defined_with_needs_approval_in_the_file_is_rewritten() -> None:
    source = (
        "const t = toolDefinition({ name: 'pay', needsApproval: true })\n"
        "const client = new ChatClient({ connection, tools: [t.client()] })\n"
        "client.addToolApprovalResponse({ id, approved: true })\n"
    )
    assert sites(source) == [("AG001", 3, 1, "rewritten")]
    without = source.replace("needsApproval: true", "needsApproval: false")
    assert sites(without) == [("AG001", 3, 1, "todo")]
    elsewhere = source.replace("[t.client()]", "[imported.client()]")
    assert sites(elsewhere) == [("AG001", 3, 1, "rewritten")]


def test_a_todo_never_lands_in_jsx_children() -> None:
    source = (
        "export function C({ id }: { id: string }) {\n"
        "  const { addToolApprovalResponse } = useChat({ tools })\n"
        "  return (\n"
        "    <div>\n"
        "    <b onClick={() => { addToolApprovalResponse({ id, approved: true }).then(f) }}>x</b>\n"
        "    </div>\n"
        "  )\n"
        "}\n"
    )
    result = migrate_bytes(source.encode(), "x.tsx", Options())
    assert result.updated is not None
    lines = result.updated.decode().splitlines()
    # No `//` line, which JSX would render as text: a JSX comment above the child.
    assert not any(line.lstrip().startswith("//") for line in lines)
    assert lines[2] == "  return ("
    assert lines[4].startswith("    {/* TODO(agui): AG001 its promise is chained")
    assert lines[4].endswith(" */}")
    assert lines[5].startswith("    <b onClick=")


def test_a_component_loop_under_false_as_cancel_destructures_cancel_interrupts() -> None:
    source = (
        "function C() {\n"
        "  const { addToolApprovalResponse, interrupts } = useChat({ tools })\n"
        "  interrupts.forEach(({ id }) => addToolApprovalResponse({ id, approved: false }))\n"
        "  for (const i of interrupts) addToolApprovalResponse({ id: i.id, approved: true })\n"
        "}\n"
    )
    result = migrate_bytes(
        source.encode(), "x.tsx", Options(settings=Settings(false_as=FalsePolicy.CANCEL))
    )
    assert result.updated == (
        b"function C() {\n"
        b"  const { resolveInterrupts, cancelInterrupts, interrupts } = useChat({ tools })\n"
        b"  cancelInterrupts()\n"
        b"  resolveInterrupts(true)\n"
        b"}\n"
    )


def test_a_resume_interrupts_prop_gets_a_todo_only() -> None:
    source = "function C({ resumeInterrupts }: Props) {\n  resumeInterrupts(saved)\n}\n"
    result = migrate_bytes(source.encode(), "x.tsx", Options())
    assert result.updated is not None
    assert b"// TODO(agui): AG004 resumeInterrupts is deprecated" in result.updated
    assert b"resumeInterruptsUnsafe(saved)" not in result.updated
    assert [(s.rule.value, s.line, s.action.value) for s in result.sites] == [("AG004", 2, "todo")]


def test_an_optional_receiver_keeps_its_short_circuit() -> None:
    source = (
        b"await client?.addToolApprovalResponse({ id, approved: true })\n"
        b"client?.getInterrupts().forEach((x) => "
        b"client?.addToolApprovalResponse({ id: x.id, approved: true }))\n"
    )
    result = migrate_bytes(source, "x.ts", Options())
    assert result.updated == (
        b"client?.getInterrupts().filter((item) => item.kind === 'tool-approval')"
        b".find((item) => item.id === id)?.resolveInterrupt(true)\n"
        b"client?.resolveInterrupts(true)\n"
    )


def test_an_approved_with_effects_is_not_moved_behind_the_lookup() -> None:
    source = "client.addToolApprovalResponse({ id, approved: confirm('Pay?') })\n"
    assert sites(source) == [("AG001", 1, 1, "todo")]
    assert sites("client.addToolApprovalResponse({ id, approved: a.n < 100 })\n") == [
        ("AG001", 1, 1, "rewritten")
    ]
