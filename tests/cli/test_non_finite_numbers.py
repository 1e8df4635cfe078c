"""Numbers a recording may hold that no double does: `1e400` (valid JSON, read as
infinity) and `NaN`/`Infinity` (not JSON, but Python's reader takes them).

What agui writes for machines must stay JSON: `replay --json` lines (with or without
`--normalize`, `--native`) and the events `translate` re-encodes. A value that is
re-encoded is written as `JSON.stringify` writes it, `null`; events passed through
keep their recorded text. Strict parsing here refuses the constants JSON lacks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "tests" / "fixtures" / "recordings" / "legacy" / "tool-approval.approve.run1.sse"
runner = CliRunner()


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(params=["1e400", "-1e400", "NaN", "Infinity"])
def recording(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The legacy approval recording with the tool input's amount and a timestamp
    replaced by the number."""
    text = LEGACY.read_text().replace('"amount":42', f'"amount":{request.param}')
    text = text.replace('"timestamp":1796035069370', f'"timestamp":{request.param}', 1)
    path = tmp_path / "numbers.sse"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "options", [[], ["--normalize"], ["--native"]], ids=["plain", "normalize", "native"]
)
def test_replay_json_lines_stay_json(recording: Path, options: list[str]) -> None:
    result = runner.invoke(app, ["replay", "--json", *options, str(recording)])
    assert result.exit_code in (0, 1), result.stderr
    lines = result.stdout.splitlines()
    assert lines
    for line in lines:
        _strict(line)


def test_translated_events_stay_json(recording: Path) -> None:
    result = runner.invoke(app, ["translate", str(recording)])
    assert result.exit_code == 0, result.stderr
    written = [line[len("data: ") :] for line in result.stdout.splitlines() if line]
    recorded = {line[len("data: ") :] for line in recording.read_text().splitlines() if line}
    for text in written:
        if text not in recorded:  # re-encoded by the translation: must be JSON
            _strict(text)
    assert '"amount":null' in result.stdout
