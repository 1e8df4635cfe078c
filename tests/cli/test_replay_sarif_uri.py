"""`agui replay --format sarif`: artifact URIs are URI references (percent-encoded)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

BROKEN = Path(__file__).resolve().parents[2] / "examples" / "broken.sse"


def test_sarif_uris_are_percent_encoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my dir #1").mkdir()
    shutil.copy(BROKEN, tmp_path / "my dir #1" / "brøken.sse")
    result = CliRunner().invoke(app, ["replay", "--format", "sarif", "my dir #1/brøken.sse"])
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for entry in log["runs"][0]["results"]
        for location in entry["locations"]
    }
    assert uris == {"my%20dir%20%231/br%C3%B8ken.sse"}
