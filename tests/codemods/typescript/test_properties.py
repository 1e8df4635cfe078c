"""Random compositions of legacy call sites: the engine never fails on valid code, its
output parses, and a second run changes nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.settings import FalsePolicy, Settings
from codemods.typescript.document import Document, grammar_for

STATEMENTS = (
    "await client.addToolApprovalResponse({ id, approved: true })",
    "client.addToolApprovalResponse({ id: a.id, approved: false })",
    "void this.client.addToolApprovalResponse({ id, approved })",
    "return client.addToolApprovalResponse(response)",
    "client.addToolApprovalResponse({ id: next(), approved: true }).then(done)",
    "const p = respond({ id, approved: true })",
    "respond({ id, approved: ok })",
    "for (const x of xs) { await respond({ id: x.id, approved: true }) }",
    "for (const x of xs) respond({ id: x.id, approved: x.ok })",
    "for (const x of client.getInterrupts()) await client.addToolApprovalResponse(x)",
    "for (const x of chat.interrupts) chat.addToolApprovalResponse({ id: x.id, approved: true })",
    "pendingInterrupts.forEach(({ id }) => respond({ id, approved: false }))",
    "for (const x of interrupts.slice(1)) { if (x.id) respond({ id: x.id, approved: true }) }",
    "xs.forEach((x) => client.addToolApprovalResponse({ id: x, approved: false }))",
    "await Promise.all(xs.map((x) => respond({ id: x, approved: true })))",
    "const n = pendingInterrupts.length + chat.pendingInterrupts.length",
    "const m = client.getPendingInterrupts()",
    "await client.resumeInterrupts(entries, state)",
    "resumeInterrupts(entries)",
    "if (e.name === 'approval-requested') log(e)",
    "emit({ type: 'CUSTOM', name: 'tool-input-available', value })",
    "if (ok) { respond({ id, approved: true }).catch(fail) }",
)
PATTERNS = (
    "const { addToolApprovalResponse: respond, pendingInterrupts, resumeInterrupts } = "
    "useChat({ connection, tools })",
    "const { addToolApprovalResponse: respond, interrupts, resumeInterrupts } = useChat(opts)",
    "const { addToolApprovalResponse: respond, pendingInterrupts: pendingInterrupts2, "
    "resumeInterrupts } = useChat({ tools })",
)


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, str]:
    pattern = draw(st.sampled_from(PATTERNS))
    body = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=6))
    newline = draw(st.sampled_from(("\n", "\r\n")))
    lines = [
        "export async function Component(id, xs, response) {",
        f"  {pattern}",
        *(f"  {statement}" for statement in body),
        "  return null",
        "}",
    ]
    return newline.join(lines) + newline, draw(st.sampled_from(("x.ts", "x.tsx", "x.js")))


@settings(max_examples=200, deadline=None)
@given(programs(), st.sampled_from(tuple(FalsePolicy)))
def test_valid_code_migrates_to_valid_code_once(
    program: tuple[str, str], policy: FalsePolicy
) -> None:
    source, name = program
    options = Options(settings=Settings(false_as=policy))
    first = migrate_bytes(source.encode(), name, options)
    assert first.status is not FileStatus.FAILED, first.error
    out = first.updated if first.updated is not None else source.encode()
    assert Document(out, grammar_for(name)).first_error() is None
    again = migrate_bytes(out, name, options)
    assert again.status is not FileStatus.FAILED, again.error
    assert again.updated is None


UNRELATED = st.sampled_from(
    (
        "const total = items.reduce((sum, item) => sum + item.amount, 0)\n",
        "export function pending(xs) { return xs.filter(Boolean) }\n",
        "const label = 'approval' + '-requested'\n",
        "const approval = { id: 'a', approved: true, state: 'approval-requested' }\n",
    )
)


@settings(max_examples=100, deadline=None)
@given(programs(), st.lists(UNRELATED, max_size=3))
def test_trigger_prefilters_equal_running_every_rule(
    program: tuple[str, str], extra: list[str]
) -> None:
    """The byte prefilters (per file in the runner, per rule in the engine) only skip
    work: forcing every rule to run on every (valid) file gives the same result."""
    import codemods.typescript.engine as engine

    source, name = program
    for text in (source, "".join(extra) or "\n"):
        data = text.encode()
        options = Options()
        filtered = migrate_bytes(data, name, options)
        forced_triggers = dict.fromkeys(engine.TRIGGERS, (b"",))
        original = engine.TRIGGERS
        engine.TRIGGERS = forced_triggers
        try:
            forced = engine.migrate_script(data, name, options.rules, options.settings)
        finally:
            engine.TRIGGERS = original
        assert forced.error is None
        assert forced.updated == filtered.updated
        assert forced.sites == filtered.sites
