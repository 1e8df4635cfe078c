"""`NaN`, `Infinity` and `-Infinity` are not JSON: Python's parsers take them (and
`json.dumps` writes them by default, so a Python server can emit them), but TanStack's
client parses each line with `JSON.parse`, which throws, ending the stream. agui
reports such a line as `invalid-json`, the same whether the file is read plainly or in
pieces; `1e400` is JSON (JavaScript reads Infinity) and stays an event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import replay.large.read
from cli.app import app
from replay.wire.event_json import javascript_literal
from replay.wire.events import RecordedEvent, decode_events
from replay.wire.problems import Problem
from replay.wire.sse import decode_chunks

RUN = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "CUSTOM", "name": "metrics", "value": {"score": 0.5}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": {"score": 0.5}},
]
"""A run whose CUSTOM event (read alone, as a maybe-legacy event) and RUN_FINISHED (a
plain event, parsed in bulk in a piece) carry a number that the tests replace."""


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ("-Infinity", "-Infinity"),
        ('[1,{"x":NaN}]', "NaN"),
        ("1e400", None),
        ('"NaN"', None),
        ('"Infinity and beyond"', None),
    ],
)
def test_the_literal_javascript_refuses_is_named(value: str, literal: str | None) -> None:
    assert javascript_literal(f'{{"type":"CUSTOM","name":"m","value":{value}}}') == literal


def _recording(path: Path, value: str, copies: int = 1) -> Path:
    lines = []
    for index in range(copies):
        for event in RUN:
            numbered = {**event, "runId": f"r{index}"} if "runId" in event else event
            text = json.dumps(numbered, separators=(",", ":"))
            if index == copies // 2:
                text = text.replace('{"score":0.5}', f'{{"score":{value}}}')
            lines.append(f"data: {text}\n\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_a_nan_line_is_invalid_json_and_not_an_event(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "nan.sse", "NaN")
    items = list(decode_events(str(recording), decode_chunks([recording.read_bytes()])))
    problems = [item for item in items if isinstance(item, Problem)]
    events = [item for item in items if isinstance(item, RecordedEvent)]
    message = "invalid JSON: NaN is not JSON (TanStack's client, with JSON.parse, throws)"
    assert [(p.rule, p.message, p.location and p.location.line) for p in problems] == [
        ("invalid-json", message, 3),
        ("invalid-json", message, 5),
    ]
    assert [event.data["type"] for event in events] == ["RUN_STARTED"]


def test_1e400_is_json_and_stays_an_event(tmp_path: Path) -> None:
    recording = _recording(tmp_path / "big.sse", "1e400")
    items = list(decode_events(str(recording), decode_chunks([recording.read_bytes()])))
    assert not [item for item in items if isinstance(item, Problem)]


@pytest.mark.parametrize("value", ["NaN", "-Infinity", "1e400"])
def test_a_large_file_read_in_pieces_says_what_the_plain_reader_says(
    tmp_path: Path, value: str
) -> None:
    recording = _recording(tmp_path / "large.sse", value, copies=9_000)
    assert recording.stat().st_size >= replay.large.read.PIECES_MIN_SIZE
    runner = CliRunner()
    pieces = runner.invoke(app, ["replay", "--check", "--json", str(recording)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replay.large.read, "PIECES_MIN_SIZE", 1 << 62)
        plain = runner.invoke(app, ["replay", "--check", "--json", str(recording)])
    assert (pieces.exit_code, pieces.stdout_bytes, pieces.stderr) == (
        plain.exit_code,
        plain.stdout_bytes,
        plain.stderr,
    )
    assert pieces.exit_code == (0 if value == "1e400" else 1)
    if value != "1e400":
        assert pieces.stderr.count(f"{value} is not JSON") == 2


@pytest.mark.parametrize("args", [[], ["--native"], ["--json"], ["--native", "--json"]])
def test_every_way_of_checking_reports_the_literal(tmp_path: Path, args: list[str]) -> None:
    # `--native` reads frames through another fast path than `--check` alone: each one
    # must leave a text spelling NaN to the per-message step that reports it.
    recording = _recording(tmp_path / "nan.sse", "NaN")
    result = CliRunner().invoke(app, ["replay", "--check", *args, str(recording)])
    assert result.exit_code == 1
    assert (result.stdout + result.stderr).count("NaN is not JSON") == 2
