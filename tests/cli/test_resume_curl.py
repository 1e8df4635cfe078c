"""`agui resume --curl` prints a command that runs as printed and shows no secret."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
runner = CliRunner()


def test_secrets_from_the_environment_become_shell_references() -> None:
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    env = {"AGUI_TOKEN": "s3cret-token", "MY_KEY": "k3y"}
    args = ["resume", "--from", str(NATIVE), "--approve-all", "--curl"]
    result = runner.invoke(
        app, [*args, "--header-env", "X-Key=MY_KEY", "-H", "X-Lit: v4lue"], env=env
    )
    assert result.exit_code == 0, result.stderr
    command = result.stdout.strip()
    for secret in ("s3cret-token", "k3y", "v4lue"):
        assert secret not in command
    assert '-H "Authorization: Bearer ${AGUI_TOKEN}"' in command
    assert '-H "X-Key: ${MY_KEY}"' in command
    assert "-H 'X-Lit: ***'" in command
    # The shell turns the printed command back into the real request's arguments.
    words = subprocess.run(
        ["bash", "-c", f'set -- {command.removeprefix("curl ")}; printf "%s\\n" "$@"'],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert "Authorization: Bearer s3cret-token" in words
    assert "X-Key: k3y" in words
