"""Properties of `agui replay` and `agui translate` over hostile recordings (hypothesis).

The commands run end to end on real files: whatever the bytes, they finish with a
documented exit code and no exception, and `translate` is idempotent — what it wrote,
translated again, comes out unchanged (the README promises it for every input).
Recordings come from `tests.hostile_streams`: plausible runs with the faults a fuzzing
campaign found (issue 14). Example counts stay small: each example runs the commands.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from tests.hostile_streams import recordings

runner = CliRunner()
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _invoke(*args: str, stdin: bytes | None = None) -> tuple[int, bytes, str]:
    result = runner.invoke(app, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stdout_bytes, result.stderr


def _translated(data: bytes) -> bytes:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "in.sse"
        path.write_bytes(data)
        code, out, _ = _invoke("translate", str(path))
    assert code == 0
    return out


@pytest.mark.parametrize(
    "body",
    [
        # A terminal with an invalid threadId and a retired null field: both repaired at once.
        b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
        b'data: {"type":"RUN_FINISHED","runId":"r","threadId":[],"result":null}\n\n',
        # A stray RUN_FINISHED after a pause translated without a RUN_STARTED.
        b'data: {"type":"CUSTOM","name":"approval-requested","value":{"toolCallId":"c",'
        b'"toolName":"transfer","input":{"amount":1}}}\n\n'
        b'data: {"type":"RUN_FINISHED"}\n\n',
    ],
    ids=["invalid-thread-id", "stray-finish-after-synthesised-run"],
)
def test_translating_twice_is_translating_once(body: bytes) -> None:
    once = _translated(body)
    assert once != body
    assert _translated(once) == once


@FAST
@given(recordings())
def test_translate_is_idempotent_on_hostile_recordings(data: bytes) -> None:
    once = _translated(data)
    assert _translated(once) == once


@FAST
@given(st.one_of(recordings(), st.binary(max_size=300)))
def test_replay_and_translate_never_raise(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "in.sse"
        path.write_bytes(data)
        for args in (["--check"], ["--json"], [], ["--format", "sarif"], ["--native"]):
            code, _, _ = _invoke("replay", *args, str(path))
            assert code in (0, 1, 2)
        code, _, _ = _invoke("translate", str(path))
        assert code in (0, 2)
