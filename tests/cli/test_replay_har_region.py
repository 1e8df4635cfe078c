"""SARIF findings inside a HAR entry point at the line where the entry starts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from replay.runs.reports import har_entry_lines

SESSION = Path(__file__).resolve().parents[2] / "examples" / "session.har"
TRICKY = ['{"entries": [', '\\"}]', "line\nbreak", "{[", "log", "entries"]


@pytest.mark.parametrize("seed", range(20))
def test_entry_lines_match_where_each_entry_is_written(seed: int) -> None:
    rng = random.Random(seed)
    entries = [
        {f"_m{i}": i, "text": rng.choice(TRICKY), "nested": {"entries": [{"a": "]"}]}}
        for i in range(rng.randint(0, 6))
    ]
    document = {"pages": [{"entries": [{}]}], "log": {"version": "1.2", "entries": entries}}
    text = json.dumps(document, indent=rng.choice([None, 1, 2, 4]))
    if "\n" not in text:
        text = text.replace('{"_m', '\n{"_m')
    expected = []
    for i in range(len(entries)):
        at = text.index(f'"_m{i}"')
        opening = text.rindex("{", 0, at)
        expected.append(text.count("\n", 0, opening) + 1)
    assert har_entry_lines(text) == expected


def test_a_finding_in_a_har_entry_has_the_entrys_line(tmp_path: Path) -> None:
    document = json.loads(SESSION.read_text())
    entry = document["log"]["entries"][1]
    content = entry["response"]["content"]
    content["text"] = content["text"].replace('"RUN_STARTED"', '"RUN_STARTD"', 1)
    har = tmp_path / "bad.har"
    har.write_text(json.dumps(document, indent=2))
    result = CliRunner().invoke(app, ["replay", "--format", "sarif", str(har)])
    assert result.exit_code == 1
    regions = {
        location["physicalLocation"].get("region", {}).get("startLine")
        for finding in json.loads(result.stdout)["runs"][0]["results"]
        for location in finding["locations"]
    }
    lines = har.read_text().splitlines()
    assert regions == {har_entry_lines(har.read_text())[1]}
    (line,) = regions
    assert lines[line - 1].strip() == "{"
