"""`agui resume --from` on hostile recordings, answers files and request bodies
(tests.hostile_values): the paused runs are hostile legacy streams as `agui translate`
writes them (and as they came), the answers hold any JSON value under any key.

Property: the command prints the body (exit 0) or refuses with `agui: ` lines on
stderr (exit 2); no exception escapes, and the body it prints is JSON `JSON.parse` reads.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from replay.translate.translation import translate_stream
from replay.wire import bounded_json
from tests.hostile_values import (
    ID_TEXTS,
    TOOL_NAMES,
    json_text,
    legacy_streams,
    lenient_values,
    request_bodies,
    values,
)

runner = CliRunner()
ANSWER_KEYS = st.one_of(ID_TEXTS, TOOL_NAMES, st.sampled_from(["approval_c", "client_tool_c"]))
ANSWERS = st.one_of(
    st.dictionaries(
        ANSWER_KEYS,
        lenient_values
        | st.fixed_dictionaries(
            {"status": st.sampled_from(["resolved", "cancelled"]) | values},
            optional={"payload": lenient_values},
        ),
        max_size=3,
    ),
    values,
)


def _translated(data: bytes, history: dict[str, Any] | None) -> bytes:
    """The stream as `agui translate` writes it, its snapshot holding `history`'s hostile
    messages (a request as `--request` reads it)."""
    try:
        request = bounded_json.loads(json_text(history)) if history is not None else None
    except ValueError:
        request = None
    request = request if isinstance(request, dict) else None
    chunks = translate_stream([data], source="s", request=request)
    return b"".join(x for x in chunks if isinstance(x, bytes))


def _refuse(literal: str) -> Any:
    raise AssertionError(f"{literal} in the body")


def _pending(recording: bytes) -> list[tuple[str, bool]]:
    """(id, is an approval) of the last interrupt outcome the recording holds."""
    found: list[tuple[str, bool]] = []
    for line in recording.decode("utf-8", "replace").split("\n"):
        if '"interrupt"' not in line or not line.startswith("data: "):
            continue
        try:
            outcome = json.loads(line[6:]).get("outcome")
            found = [
                (item["id"], item.get("reason") == "tool_call") for item in outcome["interrupts"]
            ]
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
    return found


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=legacy_streams(),
    translate=st.booleans(),
    answers=ANSWERS,
    body=st.none() | request_bodies(),
    approve_all=st.booleans(),
    fitting=st.data(),
    history=st.none() | request_bodies(),
    spoil=st.none()
    | st.tuples(st.sampled_from(["messages", "forwardedProps", "state", "runId"]), lenient_values),
)
def test_resume_prints_a_body_or_refuses_in_one_line(
    data: bytes,
    translate: bool,
    answers: Any,
    body: dict[str, Any] | None,
    approve_all: bool,
    fitting: st.DataObject,
    history: dict[str, Any] | None,
    spoil: tuple[str, Any] | None,
) -> None:
    if body is not None and spoil is not None:
        body = {**body, spoil[0]: spoil[1]}
    recording = _translated(data, history) if translate else data
    pending = _pending(recording)
    if pending and fitting.draw(st.integers(0, 3)):
        # Answers that fit the pause: every id answered, with a hostile value now and then.
        approval = st.fixed_dictionaries({"approved": st.booleans()})
        answers = {
            item: fitting.draw(approval if is_approval else lenient_values, label=item)
            for item, is_approval in pending
        }
    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory)
        (base / "run.sse").write_bytes(recording)
        (base / "answers.json").write_text(json_text(answers), "utf-8", "surrogatepass")
        args = ["resume", "--from", str(base / "run.sse"), "--dry-run", "--no-input"]
        args += ["--answers", str(base / "answers.json")]
        if approve_all:
            args.append("--approve-all")
        if body is not None:
            (base / "request.json").write_text(json_text(body), "utf-8", "surrogatepass")
            args += ["--request", str(base / "request.json")]
        result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code in (0, 2), (result.exit_code, result.stderr)
    if result.exit_code == 2:
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        # (one line per refusal: an unanswered batch lists each item, then says so)
        assert lines, "refused in silence"
        assert all(line.startswith("agui: ") for line in lines), result.stderr
    else:
        json.loads(result.stdout, parse_constant=_refuse)
