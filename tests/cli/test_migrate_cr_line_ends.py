"""`agui migrate` on real script files whose lines end with a lone CR (old Mac style):
the diff applies, `--write` keeps CR line ends, and `--check` passes afterwards."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()

FILES = {
    "src/desk.ts": (
        b"// Approvals desk\r"
        b"import { ChatClient } from '@tanstack/ai-client'\r"
        b"const client = new ChatClient({ connection, tools: [t.client()] })\r"
        b"export async function f(id: string) {\r"
        b"  await client.addToolApprovalResponse({ id, approved: true })\r"
        b"  return client.addToolApprovalResponse({ id, approved: false })\r"
        b"}\r"
    ),
    "src/count.js": b"// count\rexport const n = client.getPendingInterrupts().length\r",
    "src/Desk.vue": (
        b"<template>\r  <p>{{ n }}</p>\r</template>\r"
        b"<script setup>\r// state\rconst n = client.getPendingInterrupts().length\r</script>\r"
    ),
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, data in FILES.items():
        path = tmp_path / "app" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "app"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_write_keeps_cr_line_ends_and_check_passes_after(project: Path) -> None:
    check = runner.invoke(app, ["migrate", "--check", "app"])
    assert check.exit_code == 1, check.stderr
    assert "syntax error" not in check.stderr
    written = runner.invoke(app, ["migrate", "--write", "app"])
    assert written.exit_code == 0, written.stderr
    assert "app/src/desk.ts:6:10: AG001 TODO: its promise is returned" in written.stderr
    desk = (project / "src/desk.ts").read_bytes()
    assert b"\n" not in desk
    assert b"\r  // TODO(agui): AG001 its promise is returned" in desk
    assert b"\r  client.getInterrupts().filter(" in desk
    assert (project / "src/count.js").read_bytes() == (
        b"// count\rexport const n = client.getInterrupts().length\r"
    )
    assert (
        b"\rconst n = client.getInterrupts().length\r</script>\r"
        in (project / "src/Desk.vue").read_bytes()
    )
    migrated = snapshot(project)
    after = runner.invoke(app, ["migrate", "--check", "app"])
    assert after.exit_code == 0, after.stderr
    assert snapshot(project) == migrated


def test_the_dry_run_diff_applies_and_equals_write(project: Path, tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    before = snapshot(project)
    result = runner.invoke(app, ["migrate", "app"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(b"diff --git a/app/src/")
    assert snapshot(project) == before
    patch = tmp_path / "p.diff"
    patch.write_bytes(result.stdout_bytes)
    subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
    applied = snapshot(project)
    assert applied != before
    for name, data in before.items():
        (project / name).write_bytes(data)
    assert runner.invoke(app, ["migrate", "--write", "app"]).exit_code == 0
    assert snapshot(project) == applied
