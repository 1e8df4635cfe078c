"""A component whose script rewrite is held back (the markup uses a name it would drop)
gets the TODO markers, and nothing else: `//` lines above the script sites, HTML
comments above the markup sites. The file shows where to work, a second run adds
nothing, and `--check` passes once the markers are there, as for any other TODO.

That such files stay valid for the real compilers is tests/interop/test_vue_sfc_interop.py
(Vue); the Svelte expectations here were checked by hand against svelte 5's `compile`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from codemods import Rule
from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.typescript.command import comment as script_comment
from codemods.typescript.markup import comment as markup_comment

NOTE = "; not applied: the markup uses pendingInterrupts, migrate markup and script together"
RENAME = "pendingInterrupts → interrupts (the same array)"
MARKUP = "pendingInterrupts in the markup: agui rewrites only the script, change this by hand"
CALL = "getPendingInterrupts() → getInterrupts() (the same array)"

VUE = """<script setup lang="ts">
import {{ useChat }} from '@tanstack/ai-vue'
import {{ ChatClient }} from '@tanstack/ai-client'
const client = new ChatClient({{ tools: [] }})
{call}const n = client.getPendingInterrupts().length
{rename}const {{ messages, pendingInterrupts }} = useChat({{ tools }})
</script>

<template>
  {markup}<ul><li v-for="item in pendingInterrupts" :key="item.id">{{{{ item.id }}}}</li></ul>
</template>
"""

SVELTE = """<script lang="ts">
  import {{ useChat }} from '@tanstack/ai-react'
  {rename}const {{ messages, pendingInterrupts }} = useChat({{ tools }})
</script>

{markup}{{#each pendingInterrupts as item}}
  <p>{{item.id}}</p>
{{/each}}
"""


def _line(text: str, indent: str = "") -> str:
    return text + "\n" + indent


def _vue(marked: bool) -> bytes:
    if not marked:
        return VUE.format(call="", rename="", markup="").encode()
    return VUE.format(
        call=_line(script_comment(Rule.AG003, CALL + NOTE)),
        rename=_line(script_comment(Rule.AG002, RENAME + NOTE)),
        markup=_line(markup_comment(Rule.AG002, MARKUP), "  "),
    ).encode()


def _svelte(marked: bool) -> bytes:
    if not marked:
        return SVELTE.format(rename="", markup="").encode()
    return SVELTE.format(
        rename=_line(script_comment(Rule.AG002, RENAME + NOTE), "  "),
        markup=_line(markup_comment(Rule.AG002, MARKUP)),
    ).encode()


@pytest.mark.parametrize(("build", "path"), [(_vue, "Desk.vue"), (_svelte, "Desk.svelte")])
def test_a_held_back_rewrite_leaves_only_its_markers(build: object, path: str) -> None:
    assert callable(build)
    source, expected = build(False), build(True)
    result = migrate_bytes(source, path, Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated == expected
    assert {site.action.value for site in result.sites} == {"todo"}
    assert not any(site.marked for site in result.sites)
    again = migrate_bytes(expected, path, Options())
    assert again.status is FileStatus.UNCHANGED
    assert again.updated is None
    assert [site.marked for site in again.sites] == [True] * len(result.sites)
    assert [(s.rule, s.message) for s in again.sites] == [(s.rule, s.message) for s in result.sites]


def test_a_todo_a_rule_marks_itself_is_marked_in_a_held_back_file() -> None:
    # `addToolApprovalResponse` from the Vue binding is a TODO of its own (its marker
    # was part of the rewrite that is held back); it gets its marker all the same.
    source = b"""<script setup lang="ts">
import { useChat } from '@tanstack/ai-vue'
const { addToolApprovalResponse, pendingInterrupts } = useChat({ tools })
async function approve(id: string) {
  await addToolApprovalResponse({ id, approved: true })
}
</script>
<template>
  <p v-for="x in pendingInterrupts">{{ x.id }}</p>
</template>
"""
    result = migrate_bytes(source, "A.vue", Options(rules=frozenset({Rule.AG001, Rule.AG002})))
    assert result.updated is not None
    assert result.updated.count(b"// TODO(agui): AG001") == 1
    assert result.updated.count(b"// TODO(agui): AG002") == 1
    assert result.updated.count(b"<!-- TODO(agui): AG002") == 1
    assert b"  await addToolApprovalResponse({ id, approved: true })" in result.updated
    again = migrate_bytes(
        result.updated, "A.vue", Options(rules=frozenset({Rule.AG001, Rule.AG002}))
    )
    assert again.updated is None
    assert all(site.marked for site in again.sites)


def test_check_fails_until_write_has_marked_a_held_back_file(tmp_path: Path) -> None:
    path = tmp_path / "Desk.vue"
    path.write_bytes(_vue(False))
    runner = CliRunner()
    assert runner.invoke(app, ["migrate", "--check", str(path)]).exit_code == 1
    written = runner.invoke(app, ["migrate", "--write", str(path)])
    assert written.exit_code == 0, written.stderr
    assert path.read_bytes() == _vue(True)
    checked = runner.invoke(app, ["migrate", "--check", str(path)])
    assert checked.exit_code == 0, checked.stderr
