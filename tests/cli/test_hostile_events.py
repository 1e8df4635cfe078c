"""Hostile event values reach `agui replay` and `agui translate` as findings, never crashes.

Each case here is one a fuzzing campaign (issue 14) found raising a Python exception;
every test runs the real command on a real file (and on stdin, which takes the other
decoding path) and asserts the exit code, one finding and no traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()
RUN_STARTED = b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
RUN_FINISHED = b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t"}\n\n'


def _run(tmp_path: Path, body: bytes, *args: str, stdin: bool = False) -> object:
    path = tmp_path / "hostile.sse"
    path.write_bytes(body)
    target = "-" if stdin else str(path)
    result = runner.invoke(app, [*args, target], input=body if stdin else None)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr
    return result


@pytest.mark.parametrize(
    ("event", "finding"),
    [
        (b'{"type":[]}', "event `type` is a JSON array, not a string"),
        (b'{"type":{"a":1}}', "event `type` is a JSON object, not a string"),
        (b'{"type":"CUSTOM","name":[]}', "CUSTOM: name: Input should be a valid string"),
        (b'{"type":"CUSTOM","name":{},"value":{}}', "CUSTOM: name: Input should be a valid"),
    ],
    ids=["type-list", "type-object", "name-list", "name-object"],
)
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_type_or_name_that_is_a_list_or_object_is_an_invalid_event(
    tmp_path: Path, event: bytes, finding: str, stdin: bool
) -> None:
    body = RUN_STARTED + b"data: " + event + b"\n\n" + RUN_FINISHED
    for args in (["replay", "--check"], ["replay", "--json"], ["replay"]):
        result = _run(tmp_path, body, *args, stdin=stdin)
        assert result.exit_code == 1, (args, result.stderr)
        found = result.stdout + result.stderr
        assert finding in found
        assert "[invalid-event]" in found
    translated = _run(tmp_path, body, "translate", stdin=stdin)
    assert translated.exit_code == 0
    assert translated.stdout.encode() == body  # nothing legacy in it: passed through


SURROGATE_APPROVAL = (
    RUN_STARTED
    + b'data: {"type":"CUSTOM","name":"approval-requested","value":{"toolCallId":"c\\ud800",'
    b'"toolName":"transfer","input":{"a":"\\ud800 \xc3\xa9"},"approval":{"id":"a1"}}}\n\n'
    + RUN_FINISHED
)
"""A legacy approval (rewritten by translate) holding lone surrogate escapes."""


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_translate_keeps_a_lone_surrogate_escaped_in_an_event_it_rewrites(
    tmp_path: Path, stdin: bool
) -> None:
    result = _run(tmp_path, SURROGATE_APPROVAL, "translate", stdin=stdin)
    assert result.exit_code == 0, result.stderr
    out = result.stdout_bytes
    out.decode("utf-8")  # valid UTF-8
    terminal = next(line for line in out.splitlines() if b'"interrupts"' in line)
    interrupt = json.loads(terminal[len(b"data: ") :])["outcome"]["interrupts"][0]
    assert interrupt["toolCallId"] == "c\ud800"
    assert interrupt["metadata"]["input"] == {"a": "\ud800 é"}
    again = _run(tmp_path, out, "translate")
    assert again.exit_code == 0
    assert again.stdout_bytes == out


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--check"],
        ["--json"],
        ["--format", "json"],
        ["--format", "junit"],
        ["--format", "sarif"],
    ],
)
def test_replay_writes_a_lone_surrogate_escaped_in_every_format(
    tmp_path: Path, args: list[str]
) -> None:
    body = (
        b'data: {"type":"RUN_STARTED","runId":"r\\ud800","threadId":"t"}\n\n'
        b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud800"}\n\n'
    )
    result = _run(tmp_path, body, "replay", *args)
    assert result.exit_code == 1, result.stderr
    assert "run r\\ud800 ends without RUN_FINISHED" in result.stdout + result.stderr
    if args == ["--format", "json"]:
        assert json.loads(result.stdout)["findings"][0]["message"].startswith("run r\ud800")


@pytest.mark.parametrize("depth", [300, 1000, 5000])
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_deeply_nested_json_is_an_invalid_json_finding(
    tmp_path: Path, depth: int, stdin: bool
) -> None:
    nested = b"[" * depth + b"]" * depth
    body = RUN_STARTED + b'data: {"type":"CUSTOM","name":"x","value":' + nested + b"}\n\n"
    body += RUN_FINISHED
    finding = "invalid JSON: nested deeper than 256 levels [invalid-json]"
    for args in (["replay", "--check"], ["replay", "--json"], ["replay"]):
        result = _run(tmp_path, body, *args, stdin=stdin)
        assert result.exit_code == 1, (args, result.stderr)
        assert finding in result.stdout + result.stderr
    translated = _run(tmp_path, body, "translate", stdin=stdin)
    assert translated.exit_code == 0
    assert translated.stdout_bytes == body
    assert finding in translated.stderr


def test_a_deeply_nested_har_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.har"
    path.write_text('{"log":{"entries":[],"x":' + "[" * 5000 + "]" * 5000 + "}}")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"agui: {path}: not a valid HAR file (invalid JSON: nested deeper than 256 levels)\n"
    )


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transfer-approval.sse"
UTF16 = "agui: {}: UTF-16 text; recordings are UTF-8 (convert it: iconv -f UTF-16 -t UTF-8)\n"
ARRAY = (
    "agui: {}: a JSON array of events, not one event per line;"
    " write one per line (jq -c '.[]') or as SSE `data:` lines\n"
)


ITEMS = (
    "agui: {}: a JSON array of interrupt items, not a recording; give it to agui resume --items\n"
)


def _events() -> list[object]:
    text = EXAMPLE.read_text()
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def _interrupts() -> list[object]:
    """The example's paused run's interrupt items, as its RUN_FINISHED holds them."""
    finish = next(
        event
        for event in _events()
        if isinstance(event, dict) and event.get("type") == "RUN_FINISHED" and "outcome" in event
    )
    assert isinstance(finish, dict)
    items = finish["outcome"]["interrupts"]
    assert isinstance(items, list)
    assert items
    return items


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (EXAMPLE.read_text().encode("utf-16"), UTF16),
        (EXAMPLE.read_text().encode("utf-16-le"), UTF16),
        (EXAMPLE.read_text().encode("utf-16-be"), UTF16),
        (json.dumps(_events()).encode(), ARRAY),
        (b"\xef\xbb\xbf" + json.dumps(_events(), indent=2).encode(), ARRAY),
        (b"[]\n", ARRAY),
        (json.dumps(_interrupts(), separators=(",", ":")).encode(), ITEMS),
        (json.dumps(_interrupts(), indent=2).encode(), ITEMS),
    ],
    ids=[
        "utf-16-bom",
        "utf-16-le",
        "utf-16-be",
        "array",
        "array-indented",
        "empty-array",
        "interrupt-items",
        "interrupt-items-indented",
    ],
)
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
@pytest.mark.parametrize("command", [["replay"], ["replay", "--check"], ["translate"]])
def test_utf16_and_json_arrays_are_refused_saying_what_is_wrong(
    tmp_path: Path, body: bytes, expected: str, stdin: bool, command: list[str]
) -> None:
    result = _run(tmp_path, body, *command, stdin=stdin)
    assert result.exit_code == 2
    assert result.stdout == ""
    name = "<stdin>" if stdin else str(tmp_path / "hostile.sse")
    assert result.stderr == expected.format(name)


@pytest.mark.parametrize(
    ("export", "what", "option"),
    [("items", "interrupt items", "--items"), ("messages", "messages", "--messages")],
)
@pytest.mark.parametrize("command", [["replay"], ["replay", "--check"], ["translate"]])
def test_a_resume_file_given_as_the_recording_says_where_it_goes(
    tmp_path: Path, export: str, what: str, option: str, command: list[str]
) -> None:
    """What `agui replay --export` writes is a hand-built `agui resume`'s file."""
    exported = runner.invoke(app, ["replay", "--export", export, str(EXAMPLE)])
    assert exported.exit_code == 0, exported.stderr
    result = _run(tmp_path, exported.stdout.encode(), *command)
    assert result.exit_code == 2
    assert result.stderr == (
        f"agui: {tmp_path / 'hostile.sse'}: a JSON array of {what}, not a recording;"
        f" give it to agui resume {option}\n"
    )


def test_an_event_that_is_an_array_is_still_a_finding(tmp_path: Path) -> None:
    result = _run(tmp_path, b"data: [1, 2]\n\n", "replay", "--check")
    assert result.exit_code == 1
    assert "not-an-object" in result.stdout


def _long_event(size: int) -> bytes:
    delta = b"x" * size
    return (
        RUN_STARTED
        + b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'
        + b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"'
        + delta
        + b'"}\n\n'
        + b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n'
        + RUN_FINISHED
    )


def test_an_event_over_the_size_limit_is_a_finding_and_is_not_parsed(tmp_path: Path) -> None:
    body = _long_event(17 << 20)  # the real limit: 16 MB
    finding = "event data of 17.0 MB is over agui's limit of 16 MB; skipped [event-too-large]"
    for stdin in (False, True):
        result = _run(tmp_path, body, "replay", "--check", stdin=stdin)
        assert result.exit_code == 1
        assert finding in result.stdout
        assert "unknown-message-id" not in result.stdout  # the stream reads on after it
    translated = _run(tmp_path, body, "translate")
    assert translated.exit_code == 0
    assert translated.stdout_bytes == body
    assert finding.replace("error: ", "") in translated.stderr


@pytest.mark.parametrize("helper", [False, True], ids=["alone", "helper"])
def test_the_size_limit_is_the_same_in_pieces_and_in_one_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: bool
) -> None:
    import replay.large.piece_reader
    import replay.large.read
    import replay.wire.events

    monkeypatch.setattr(replay.wire.events, "MAX_EVENT_SIZE", 3000)
    monkeypatch.setattr(replay.large.piece_reader, "PIECE_SIZE", 700)
    monkeypatch.setattr(replay.large.read, "PIECES_MIN_SIZE", 0)
    if helper:
        monkeypatch.setattr(replay.large.piece_reader, "HELPER_MIN_SIZE", 0)
    body = b"".join(_long_event(size) for size in (100, 2900, 3001, 5000, 20))
    from_file = _run(tmp_path, body, "replay", "--check")
    from_stdin = _run(tmp_path, body, "replay", "--check", stdin=True)
    assert from_file.stdout.count("[event-too-large]") == 2
    path = str(tmp_path / "hostile.sse")
    assert from_file.stdout == from_stdin.stdout.replace("<stdin>", path)
