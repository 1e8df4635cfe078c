"""Numbers a recording may hold that no double does: `1e400` (valid JSON, read as
infinity) and `NaN`/`Infinity` (not JSON, but Python's reader takes them).

What agui writes for machines must stay JSON: `replay --json` lines (with or without
`--normalize`, `--native`) and the events `translate` re-encodes. A value that is
re-encoded is written as `JSON.stringify` writes it, `null`; events passed through
keep their recorded text. A frame holding `NaN`/`Infinity` is invalid JSON to
`translate` as to `replay --check`: an `invalid-json` notice, the frame copied as is.
Strict parsing here refuses the constants JSON lacks.
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


@pytest.fixture(params=["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
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
    if "1e400" in recording.read_text():
        assert '"amount":null' in result.stdout
        assert "invalid-json" not in result.stderr


LITERALS = ["NaN", "Infinity", "-Infinity"]


@pytest.mark.parametrize("literal", LITERALS)
@pytest.mark.parametrize("framing", ["sse", "crlf", "ndjson"])
def test_translate_refuses_a_javascript_literal_as_invalid_json(
    literal: str, framing: str, tmp_path: Path
) -> None:
    """`NaN`/`Infinity` get the notice `{bad` gets, and the frame is copied byte for byte
    (a legacy approval holding one is not translated)."""
    text = LEGACY.read_text().replace('"amount":42', f'"amount":{literal}')
    if framing == "crlf":
        text = text.replace("\n", "\r\n")
    elif framing == "ndjson":
        text = "".join(line[len("data: ") :] + "\n" for line in text.splitlines() if line)
    path = tmp_path / "literal.sse"
    path.write_bytes(text.encode())
    result = runner.invoke(app, ["translate", str(path)])
    assert result.exit_code == 0, result.stderr
    refused = [line for line in result.stderr.splitlines() if "[invalid-json]" in line]
    held = [line for line in text.splitlines(keepends=True) if literal in line]
    assert len(held) == len(refused) == 2  # the tool call's arguments, the approval
    for notice, line in zip(refused, held, strict=True):
        assert f"invalid JSON: {literal} is not JSON (TanStack's client" in notice
        assert line.encode() in result.stdout_bytes


@pytest.mark.parametrize("literal", LITERALS)
def test_translate_notices_a_literal_as_replay_check_does(literal: str, tmp_path: Path) -> None:
    frames = [
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
        f'{{"type":"CUSTOM","name":"x","value":{literal}}}',
        "{bad",
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
    ]
    path = tmp_path / "x.sse"
    path.write_text("".join(f"data: {frame}\n\n" for frame in frames))
    translated = runner.invoke(app, ["translate", str(path)])
    assert translated.exit_code == 0
    assert translated.stdout == path.read_text()
    checked = runner.invoke(app, ["replay", "--check", str(path)])
    notices = [line for line in translated.stderr.splitlines() if "[invalid-json]" in line]
    findings = [line for line in checked.output.splitlines() if "invalid JSON" in line]
    assert len(notices) == len(findings) == 2
    for notice, finding in zip(notices, findings, strict=True):
        assert notice.split("invalid JSON: ")[1].removesuffix(" [invalid-json]") in finding
