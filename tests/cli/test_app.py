"""The top-level app: fast start-up, a version, and a help that lists every command."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from cli.app import app

HEAVY = ("libcst", "httpx", "jsonschema", "pydantic", "ag_ui", "http.server")


def test_help_lists_every_command_in_journey_order() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert result.exit_code == 0
    positions = [
        result.stdout.index(f" {name} ") for name in ("replay", "translate", "resume", "migrate")
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
