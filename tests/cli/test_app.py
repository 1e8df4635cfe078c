"""The top-level app: fast start-up, a version, and a help that lists every command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import _exit_code, app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "transfer-approval.sse")
BROKEN = str(ROOT / "examples" / "broken.sse")
HEAVY = (
    "libcst",
    "httpx",
    "jsonschema",
    "pydantic",
    "ag_ui",
    "http.server",
    "uvicorn",
    "starlette",
)


def test_help_lists_every_command_in_journey_order() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert result.exit_code == 0
    positions = [
        result.stdout.index(f" {name} ")
        for name in ("replay", "translate", "resume", "migrate", "proxy")
    ]
    assert positions == sorted(positions)


def test_version_prints_the_distribution_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("agui ")


def test_importing_the_app_loads_no_heavy_library() -> None:
    probe = f"import sys, cli.app; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == ""


def _console_script(*args: str, stdout: int | None = subprocess.PIPE) -> Any:
    """`agui ARGS` as a user runs it: the console-script entry point, in a new process."""
    code = "import sys; from cli.app import main; sys.argv[0] = 'agui'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], stdout=stdout, stderr=subprocess.PIPE, check=False
    )


def test_the_entry_point_flushes_everything_and_keeps_the_exit_code(tmp_path: Path) -> None:
    # `main` ends the process without the interpreter's teardown: nothing may be lost.
    target = tmp_path / "events.ndjson"
    with target.open("wb") as handle:
        done = _console_script("replay", "--json", EXAMPLE, stdout=handle.fileno())
    assert done.returncode == 0
    recorded = Path(EXAMPLE).read_text("utf-8").strip().split("\n\n")
    assert target.read_text("utf-8").splitlines() == [r.removeprefix("data: ") for r in recorded]
    findings = _console_script("replay", "--check", BROKEN)
    assert findings.returncode == 1
    assert findings.stdout.decode().count("\n") > 5
    assert b"agui replay:" in findings.stderr
    missing = _console_script("replay", str(tmp_path / "missing.sse"))
    assert missing.returncode == 2
    assert missing.stderr.decode().strip().endswith("no such file")
    version = _console_script("--version")
    assert (version.returncode, version.stdout.decode().split()[0]) == (0, "agui")


def test_exit_codes_are_what_sys_exit_would_give(capsys: pytest.CaptureFixture[str]) -> None:
    assert [_exit_code(code) for code in (None, 0, 3, 256 + 2)] == [0, 0, 3, 2]
    assert _exit_code("stopped") == 1
    assert capsys.readouterr().err == "stopped\n"
