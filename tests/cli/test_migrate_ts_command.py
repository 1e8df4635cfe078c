"""`agui migrate` over examples/migrate-ts (TypeScript, TSX, JavaScript), as a new user runs it.

Type-checking and behaviour against the real packages are in
tests/interop/test_migrate_ts_interop.py; this covers the command itself.
"""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.app import app

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "migrate-ts"
runner = CliRunner()


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the sample app (no node_modules); the working directory is its parent."""
    copy = tmp_path / "app"
    shutil.copytree(SAMPLE, copy, ignore=shutil.ignore_patterns("node_modules"))
    monkeypatch.chdir(tmp_path)
    return copy


def migrate(*args: str) -> Result:
    return runner.invoke(app, ["migrate", *args])


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_dry_run_diff_applies_and_equals_write(sample: Path, tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    before = snapshot(sample)
    result = migrate("app")
    assert result.exit_code == 2  # src/drafts/half-done.tsx does not parse
    assert snapshot(sample) == before
    assert "app/src/drafts/half-done.tsx:3:3: syntax error: unexpected" in result.stderr
    assert "app/src/chat-client.ts:41:10: AG001 TODO: its promise is chained" in result.stderr
    assert "app/src/chat-client.ts:35:3: AG005 TODO: this loop does not provably" in result.stderr
    patch = tmp_path / "p.diff"
    patch.write_bytes(result.stdout_bytes)
    subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
    applied = snapshot(sample)

    shutil.rmtree(sample)
    shutil.copytree(SAMPLE, sample, ignore=shutil.ignore_patterns("node_modules"))
    written = migrate("--write", "--exclude", "drafts", "app")
    assert written.exit_code == 0, written.stderr
    assert snapshot(sample) == applied
    assert applied != before


def test_crlf_and_bom_files_keep_their_bytes(sample: Path) -> None:
    assert migrate("--write", "--exclude", "drafts", "app").exit_code == 0
    crlf = (sample / "src/components/status-crlf.ts").read_bytes()
    assert b"client.getInterrupts().length\r\n" in crlf
    assert b"\n" not in crlf.replace(b"\r\n", b"")
    bom = (sample / "src/components/summary-bom.ts").read_bytes()
    assert bom.startswith(codecs.BOM_UTF8 + "// Saved with a byte order mark: café".encode())
    assert b"state.interrupts.length" in bom


def test_check_fails_before_and_passes_after(sample: Path) -> None:
    assert migrate("--check", "--exclude", "drafts", "app").exit_code == 1
    assert migrate("--write", "--exclude", "drafts", "app").exit_code == 0
    after = snapshot(sample)
    check = migrate("--check", "--exclude", "drafts", "app")
    assert check.exit_code == 0
    assert check.stdout == ""
    assert migrate("--write", "--exclude", "drafts", "app").exit_code == 0
    assert snapshot(sample) == after


def test_one_report_for_python_and_typescript(sample: Path) -> None:
    (sample / "worker.py").write_text("n = len(client.pending_interrupts)\n", encoding="utf-8")
    result = migrate("--format", "json", "--exclude", "drafts", "app")
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    files = {row["file"] for row in rows}
    assert {
        "app/worker.py",
        "app/src/legacy/widget.js",
        "app/src/components/ApprovalCard.tsx",
    } <= files
    assert {row["rule"] for row in rows} == {"AG001", "AG002", "AG003", "AG004", "AG005", "AG006"}
    github = migrate("--format", "github", "--exclude", "drafts", "app")
    assert (
        "::warning file=app/src/server/legacy-events.ts,line=3,col=15,title=AG006" in github.stdout
    )


def test_declaration_files_and_node_modules_are_never_read(sample: Path) -> None:
    legacy = "export declare function f(x: { addToolApprovalResponse: 1 }): void\n"
    (sample / "src/types.d.ts").write_text(legacy, encoding="utf-8")
    vendored = sample / "node_modules/pkg/index.js"
    vendored.parent.mkdir(parents=True)
    vendored.write_text("client.getPendingInterrupts()\n", encoding="utf-8")
    result = migrate("--format", "json", "--exclude", "drafts", "app")
    files = {json.loads(line)["file"] for line in result.stdout.splitlines()}
    assert not {f for f in files if f.endswith(".d.ts") or "node_modules" in f}
