"""`agui replay --format sarif`: artifact URIs are URI references (percent-encoded)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from urllib.parse import unquote_to_bytes

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


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("run:1.sse", "run%3A1.sse"),  # left as is, `run:` would read as a URI scheme
        ("\udcff x.sse", "%FF%20x.sse"),  # the bytes b"\xff x.sse": not UTF-8
    ],
    ids=["colon", "not-utf-8"],
)
def test_sarif_uris_name_the_file_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, uri: str
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(BROKEN, tmp_path / name)
    result = CliRunner().invoke(app, ["replay", "--format", "sarif", name])
    assert result.exit_code == 1, result.output
    log = json.loads(result.stdout)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for entry in log["runs"][0]["results"]
        for location in entry["locations"]
    }
    assert uris == {uri}
    assert Path(os.fsdecode(unquote_to_bytes(uri))).read_bytes() == BROKEN.read_bytes()
