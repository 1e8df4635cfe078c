"""`agui migrate` over a directory holding Vue and Svelte components: the diff, `--write`,
`--check`, and the markup TODOs in every format."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.app import app

runner = CliRunner()

APPROVE_VUE = b"""<template>
  <button @click="approve(id)">ok</button>
</template>

<script setup lang="ts">
import { ChatClient } from '@tanstack/ai-client'
const client = new ChatClient({ tools: [t.client()] })
async function approve(id: string) {
  await client.addToolApprovalResponse({ id, approved: true })
}
</script>
"""
PENDING_SVELTE = b"""<script lang="ts">
  import { useChat } from '@tanstack/ai-svelte'
  const { pendingInterrupts } = useChat({ tools })
</script>

{#each pendingInterrupts as item}<p>{item.id}</p>{/each}
"""


@pytest.fixture
def app_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with one Vue component; the working directory is its parent."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "Approve.vue").write_bytes(APPROVE_VUE)
    monkeypatch.chdir(tmp_path)
    return root


def migrate(*args: str) -> Result:
    return runner.invoke(app, ["migrate", *args])


def test_the_diff_applies_and_check_fails_until_written(app_dir: Path, tmp_path: Path) -> None:
    result = migrate("app")
    assert result.exit_code == 0, result.stderr
    assert (app_dir / "Approve.vue").read_bytes() == APPROVE_VUE
    assert "--- a/app/Approve.vue" in result.stdout
    assert "-  await client.addToolApprovalResponse({ id, approved: true })\n" in result.stdout
    assert "+  client.getInterrupts().filter((item) => item.kind === 'tool-approval')" in (
        result.stdout
    )
    assert "AG001" in result.stderr
    assert migrate("--check", "app").exit_code == 1
    if shutil.which("git") is not None:
        (tmp_path / "p.diff").write_bytes(result.stdout_bytes)
        subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
        applied = (app_dir / "Approve.vue").read_bytes()
        (app_dir / "Approve.vue").write_bytes(APPROVE_VUE)
    written = migrate("--write", "app")
    assert written.exit_code == 0, written.stderr
    if shutil.which("git") is not None:
        assert (app_dir / "Approve.vue").read_bytes() == applied
    check = migrate("--check", "app")
    assert check.exit_code == 0, check.stderr
    assert check.stdout == ""


def test_markup_todos_are_marked_by_write_and_check_then_passes(app_dir: Path) -> None:
    vue = b"""<template>
  <button
    @click="addToolApprovalResponse({ id, approved: true })">ok</button>
</template>
"""
    svelte = b"<div>\n\t<b on:click={() => addToolApprovalResponse({ id })}>ok</b>\n</div>\n"
    (app_dir / "Approve.vue").write_bytes(vue)
    (app_dir / "Answer.svelte").write_bytes(svelte)
    assert migrate("--check", "app").exit_code == 1
    written = migrate("--write", "app")
    assert written.exit_code == 0, written.stderr
    marker = (
        "<!-- TODO(agui): AG001 addToolApprovalResponse in the markup: agui rewrites only the "
        "script, change this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt -->"
    ).encode()
    assert (app_dir / "Approve.vue").read_bytes() == vue.replace(
        b"  <button", b"  " + marker + b"\n  <button"
    )
    assert (app_dir / "Answer.svelte").read_bytes() == svelte.replace(
        b"\t<b", b"\t" + marker + b"\n\t<b"
    )
    check = migrate("--check", "app")
    assert check.exit_code == 0, check.stderr
    assert check.stdout == ""
    again = migrate("--write", "app")
    assert again.exit_code == 0, again.stderr
    assert (app_dir / "Approve.vue").read_bytes().count(b"<!-- TODO(agui)") == 1
    assert (app_dir / "Answer.svelte").read_bytes().count(b"<!-- TODO(agui)") == 1


def test_a_markup_todo_no_comment_can_hold_still_fails_check(app_dir: Path) -> None:
    source = b"<template>\n  <pre v-pre>addToolApprovalResponse</pre>\n</template>\n"
    (app_dir / "Approve.vue").write_bytes(source)
    assert migrate("--write", "app").exit_code == 0
    assert (app_dir / "Approve.vue").read_bytes() == source
    check = migrate("--check", "app")
    assert check.exit_code == 1
    assert "app/Approve.vue:2:14: AG001 TODO: addToolApprovalResponse in the markup" in (
        check.stderr
    )


def test_a_held_back_component_fails_check_until_its_markers_are_written(
    app_dir: Path,
) -> None:
    # The markup reads `pendingInterrupts`, which the script's rewrite would rename.
    (app_dir / "Pending.svelte").write_bytes(PENDING_SVELTE)
    check = migrate("--check", "app")
    assert check.exit_code == 1
    assert (
        "app/Pending.svelte:6:8: AG002 TODO: pendingInterrupts in the markup: agui rewrites "
        "only the script, change this by hand"
    ) in check.stderr
    assert "app/Pending.svelte:3:11: AG002 TODO: pendingInterrupts → interrupts" in check.stderr

    rows = [
        json.loads(line)
        for line in migrate("--format", "json", "app/Pending.svelte").stdout.splitlines()
    ]
    assert [(r["file"], r["line"], r["column"], r["action"]) for r in rows] == [
        ("app/Pending.svelte", 3, 11, "todo"),
        ("app/Pending.svelte", 6, 8, "todo"),
    ]
    github = migrate("--format", "github", "app/Pending.svelte").stdout
    assert "::warning file=app/Pending.svelte,line=6,col=8,title=AG002" in github
    sarif = json.loads(migrate("--format", "sarif", "app/Pending.svelte").stdout)
    levels = [r["level"] for r in sarif["runs"][0]["results"]]
    assert levels == ["warning", "warning"]

    assert migrate("--write", "app").exit_code == 0
    written = (app_dir / "Pending.svelte").read_bytes()
    assert written.replace(b"\n", b"").count(b"TODO(agui)") == 2  # no rewrite, two markers
    assert b"  const { pendingInterrupts } = useChat({ tools })" in written
    assert b"-->\n{#each pendingInterrupts as item}" in written
    check = migrate("--check", "app")
    assert check.exit_code == 0, check.stderr
    assert check.stdout == ""


def test_a_syntax_error_in_a_component_is_reported_and_the_run_goes_on(app_dir: Path) -> None:
    broken = b"<template><p/></template>\n<script>\nclient.getPendingInterrupts(\n</script>\n"
    (app_dir / "Broken.vue").write_bytes(broken)
    result = migrate("--write", "app")
    assert result.exit_code == 2
    assert "app/Broken.vue:3:" in result.stderr
    assert "syntax error" in result.stderr
    assert (app_dir / "Broken.vue").read_bytes() == broken
    assert (app_dir / "Approve.vue").read_bytes() != APPROVE_VUE
