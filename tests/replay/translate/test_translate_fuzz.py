"""`agui translate` on hostile legacy streams and request bodies (tests.hostile_values):
every JSON type in every field, numbers no double holds, lone surrogates, deep nesting,
duplicate keys, reused and empty ids, streams reordered and cut short.

Properties: nothing raises; translating the output again changes nothing; the file
read in pieces (`replay.large.translate_pieces`) gives the bytes and notices of the
plain path.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import replay.large.translate_pieces
from cli.app import app
from replay.translate.translation import translate_stream
from replay.wire import bounded_json
from replay.wire.problems import Problem
from tests.hostile_values import json_text, legacy_streams, lenient_values, request_bodies
from tests.replay.large.test_differential import _large_file_path

runner = CliRunner()
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _request(body: dict[str, Any]) -> dict[str, Any] | None:
    """The body as `--request` reads it (`load_request`): parsed from its text."""
    try:
        value = bounded_json.loads(json_text(body))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _translate(data: bytes, request: dict[str, Any] | None) -> tuple[bytes, list[Problem]]:
    out: list[bytes] = []
    notices: list[Problem] = []
    for item in translate_stream([data], source="s", request=request):
        if isinstance(item, Problem):
            notices.append(item)
        else:
            out.append(item)
    return b"".join(out), notices


SPOILED = st.none() | st.tuples(
    st.sampled_from(["messages", "forwardedProps", "threadId", "runId"]), lenient_values
)
"""A request field given a value only Python's reader takes (`NaN`), or of any type."""


UNHASHABLE_PART_TYPE = (
    b'data: {"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"user",'
    b'"content":[{"type":{},"metadata":null}]}]}\n\n'
)
"""Found here: a content part whose `type` is an object (unhashable) raised TypeError in
the retired-null check (`replay.wire.retired_shapes`)."""


INFINITE_OPTIONALS = (
    b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
    b'data: {"type":"RUN_FINISHED","runId":"r","result":1e400,"rawEvent":-1e400}\n\n'
    b'data: {"type":"THINKING_START","rawEvent":1e400}\n\n'
)
"""Found here: events rewritten for another reason (no threadId, a retired type) wrote
`result: 1e400` as `null`, which a second translation removed (not idempotent)."""


PAUSE = (
    b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
    b'data: {"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"pick"}\n\n'
    b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t","finishReason":"tool_calls"}\n\n'
    b'data: {"type":"CUSTOM","name":"tool-input-available",'
    b'"value":{"toolCallId":"c","toolName":"pick","input":{}}}\n\n'
)
MEDIA_PART_NULL_METADATA = {
    "messages": [{"id": "u", "role": "user", "content": [{"type": "image", "metadata": None}]}]
}
"""Found here: the request's retired `metadata: null` reached the synthesised snapshot,
and a second translation removed it (not idempotent)."""


PAUSE_AFTER_A_SERVER_TOOL_ROUND = (
    b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
    + b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t","finishReason":"tool_calls"}\n\n'
    * 2
    + b'data: {"type":"CUSTOM","name":"tool-input-available",'
    b'"value":{"toolCallId":"c","toolName":"pick","input":{}}}\n\n'
)
"""Found here (from a reordered stream): a pause after a round that ran server tools got
a synthesised RUN_STARTED of the same run, which a second translation dropped as
0.42.0's repeat (not idempotent)."""


START_AFTER_A_PAUSED_ROUND = (
    b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
    b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t","finishReason":"tool_calls"}\n\n'
    b'data: {"type":"TOOL_CALL_START"}\n\n'
    b'data: {"type":"CUSTOM","name":"tool-input-available",'
    b'"value":{"toolCallId":"c","toolName":"pick","input":{}}}\n\n'
    b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
)
"""Found here: the round's run ended in the native terminal, yet a second translation
took the next RUN_STARTED of its id for 0.42.0's repeat and dropped it."""


PLACEHOLDER_WITH_A_LIST_ID = {
    "messages": [{"role": "tool", "toolCallId": ["c"], "content": '{"pendingExecution":true}'}]
}
"""Found here: a placeholder tool message whose `toolCallId` is a list (unhashable)
raised TypeError in the snapshot's look-up of the run's results."""


@FUZZ
@given(data=legacy_streams(), body=request_bodies(), spoil=SPOILED)
@example(data=PAUSE, body=PLACEHOLDER_WITH_A_LIST_ID, spoil=None)
@example(data=START_AFTER_A_PAUSED_ROUND, body={}, spoil=None)
@example(data=PAUSE_AFTER_A_SERVER_TOOL_ROUND, body={}, spoil=None)
@example(data=PAUSE, body=MEDIA_PART_NULL_METADATA, spoil=None)
@example(data=INFINITE_OPTIONALS, body={}, spoil=None)
@example(data=UNHASHABLE_PART_TYPE, body={}, spoil=None)
def test_translation_never_raises_and_is_idempotent(
    data: bytes, body: dict[str, Any], spoil: tuple[str, Any] | None
) -> None:
    request = _request(body if spoil is None else {**body, spoil[0]: spoil[1]})
    once, _ = _translate(data, request)
    twice, notices = _translate(once, request)
    assert twice == once
    assert not [n for n in notices if n.rule in ("translated", "invented", "lost")], notices


CALL_BEFORE_THE_RUN = (
    b'data: {"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"pick"}\n\n'
    + PAUSE.replace(b'"input":{}', b'"input":{"n":1}')
)
"""Found here: what a stream says before its first RUN_STARTED joins that run in one
stream, but the piece cut before the RUN_STARTED was translated without it."""


@settings(FUZZ, max_examples=40)
@given(data=legacy_streams(max_events=20), body=request_bodies())
@example(data=CALL_BEFORE_THE_RUN, body={})
def test_a_file_in_pieces_translates_as_the_plain_path(data: bytes, body: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "hostile.sse"
        path.write_bytes(data)
        request = Path(directory) / "request.json"
        request.write_text(json_text(body), encoding="utf-8", errors="surrogatepass")
        args = ["translate", "--json", "--request", str(request), str(path)]
        with _large_file_path(40, "none", 0):
            in_pieces = runner.invoke(app, args)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(replay.large.translate_pieces, "translate_file", lambda *a, **k: None)
            plain = runner.invoke(app, args)
    for result in (in_pieces, plain):
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(
            result.exception
        )
    assert (in_pieces.exit_code, in_pieces.stdout_bytes, in_pieces.stderr) == (
        plain.exit_code,
        plain.stdout_bytes,
        plain.stderr,
    )


def test_an_infinite_optional_of_a_rewritten_event_is_dropped_with_a_notice() -> None:
    once, notices = _translate(INFINITE_OPTIONALS, None)
    assert b"null" not in once
    assert b'"type":"RUN_FINISHED","runId":"r","threadId":"t"}' in once
    lost = [n.message for n in notices if n.rule == "lost"]
    assert len(lost) == 2
    assert lost[0].startswith("dropped `result`, `rawEvent`: a number no double holds")
