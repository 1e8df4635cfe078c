"""`migrate --write` when a file changes between the scan and the write.

A large tree takes seconds to migrate; an editor saving a file, or a checkout removing
one, in that time must not lose the user's work to a migration of the old content, nor
bring a removed file back. The change is made exactly between the run's reading and
its writing (the real run, wrapped); every other file is still written.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cli.migrate_command
from cli.app import app

runner = CliRunner()

PYTHON = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
VUE = b"""<script setup lang="ts">
const client = new ChatClient({ tools: [t.client()] })
async function approve(id: string) {
  await client.addToolApprovalResponse({ id, approved: true })
}
</script>
"""
TYPESCRIPT = b"async function approve(client, id) {\n" + VUE.splitlines(keepends=True)[3] + b"}\n"
SOURCES = {"py": PYTHON, "ts": TYPESCRIPT, "vue": VUE}


def _meanwhile(monkeypatch: pytest.MonkeyPatch, change: Callable[[], None]) -> None:
    """Run `change` after the run read every file and before it writes any."""
    real = cli.migrate_command._run

    def run(*args: Any, **kwargs: Any) -> Any:
        results = real(*args, **kwargs)
        change()
        return results

    monkeypatch.setattr(cli.migrate_command, "_run", run)


def _tree(tmp_path: Path, suffix: str) -> tuple[Path, Path, Path]:
    tree = tmp_path / "app"
    tree.mkdir()
    target, other = tree / f"a.{suffix}", tree / f"b.{suffix}"
    target.write_bytes(SOURCES[suffix])
    other.write_bytes(SOURCES[suffix])
    return tree, target, other


def _written_alone(other: Path, suffix: str) -> None:
    """The file nobody touched was migrated, and no temp file is left."""
    assert other.read_bytes() != SOURCES[suffix]
    assert not [p for p in other.parent.iterdir() if p.name.endswith(".agui-tmp")]


@pytest.mark.parametrize("suffix", SOURCES)
def test_a_file_saved_meanwhile_keeps_the_users_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    tree, target, other = _tree(tmp_path, suffix)
    edited = SOURCES[suffix] + b"// saved by an editor while agui ran\n"
    _meanwhile(monkeypatch, lambda: target.write_bytes(edited))
    result = runner.invoke(app, ["migrate", "--write", "-q", str(tree)])
    assert result.exit_code == 2
    assert target.read_bytes() == edited
    assert result.stderr == (
        f"{target}: cannot write: changed since agui read it; left as it is "
        "(run agui migrate again)\n"
    )
    _written_alone(other, suffix)


@pytest.mark.parametrize("suffix", SOURCES)
def test_a_file_deleted_meanwhile_is_not_brought_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    tree, target, other = _tree(tmp_path, suffix)
    _meanwhile(monkeypatch, target.unlink)
    result = runner.invoke(app, ["migrate", "--write", "-q", str(tree)])
    assert result.exit_code == 2
    assert not target.exists()
    assert result.stderr == f"{target}: cannot write: deleted since agui read it; not recreated\n"
    _written_alone(other, suffix)


def test_a_file_replaced_by_a_directory_meanwhile_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, target, other = _tree(tmp_path, "py")

    def replace() -> None:
        target.unlink()
        target.mkdir()
        (target / "inside.txt").write_bytes(b"kept\n")

    _meanwhile(monkeypatch, replace)
    result = runner.invoke(app, ["migrate", "--write", "-q", str(tree)])
    assert result.exit_code == 2
    assert (target / "inside.txt").read_bytes() == b"kept\n"
    assert result.stderr.startswith(f"{target}: cannot write: ")
    assert result.stderr.count("\n") == 1
    _written_alone(other, "py")


def test_a_file_the_run_reads_unchanged_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Touched, copied over with the same bytes: still what was read, so it is migrated.
    tree, target, other = _tree(tmp_path, "py")
    _meanwhile(monkeypatch, lambda: shutil.copyfile(other, target))
    result = runner.invoke(app, ["migrate", "--write", "-q", str(tree)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert target.read_bytes() == other.read_bytes() != PYTHON
