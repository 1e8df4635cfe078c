"""Paths in `agui migrate` output: a patch `git apply` takes from any directory of the
repository, and SARIF URIs that are valid URI references."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
runner = CliRunner()


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    git(tmp_path, "init", "-q")
    for name in ("app/t.py", "sub/u.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(LEGACY_CODE)
    return tmp_path


def test_diff_paths_are_relative_to_the_repository_root(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repository / "sub")
    result = runner.invoke(app, ["migrate", "../app", "."])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("diff --git a/app/t.py b/app/t.py\n")
    assert "diff --git a/sub/u.py b/sub/u.py\n" in result.stdout
    assert "../" not in result.stdout
    patch = repository / "p.diff"
    patch.write_bytes(result.stdout_bytes)
    git(repository, "apply", str(patch))
    assert b"resolve_interrupt" in (repository / "app" / "t.py").read_bytes()
    assert b"resolve_interrupt" in (repository / "sub" / "u.py").read_bytes()


def test_diff_of_files_under_a_subdirectory_applies_there(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repository / "sub")
    result = runner.invoke(app, ["migrate", "."])
    assert result.exit_code == 0, result.stderr
    patch = repository / "p.diff"
    patch.write_bytes(result.stdout_bytes)
    git(repository / "sub", "apply", str(patch))
    assert b"resolve_interrupt" in (repository / "sub" / "u.py").read_bytes()


def test_sarif_uris_are_percent_encoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my app #1" / "tést.py"
    path.parent.mkdir()
    path.write_bytes(LEGACY_CODE)
    result = runner.invoke(app, ["migrate", "--format", "sarif", "."])
    assert result.exit_code == 0, result.stderr
    log = json.loads(result.stdout)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for entry in log["runs"][0]["results"]
        for location in entry["locations"]
    }
    assert uris == {"my%20app%20%231/t%C3%A9st.py"}
