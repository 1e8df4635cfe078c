"""`agui resume --record OUT` is checked before anything is sent.

Before, `--record` naming the `--from` recording (or a name whose `.request.json` is
its sidecar) replaced the paused run with the continuation — the run a retry needs —
and an empty name or a directory failed only after "posting run …" was printed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.resume_http import Route, scripted_server

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
RUN1 = NATIVE / "tool-approval.approve.run1.sse"
RUN2 = (NATIVE / "tool-approval.approve.run2.sse").read_bytes()
REQUEST = NATIVE / "tool-approval.approve.request.json"


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("", "--record: an empty file name: give a file path"),
        ("-", "--record: - is no file: give a file path (--json prints the events on stdout)"),
        ("{dir}", "--record: {dir}: is a directory; give a file path"),
        (
            "{dir}/paused.sse",
            "--record {dir}/paused.sse would write over {dir}/paused.sse, which this resume"
            " reads; record to another file",
        ),
        (
            "{dir}/paused",
            "--record {dir}/paused would write over {dir}/paused.request.json, which this"
            " resume reads; record to another file",
        ),
        (
            "{dir}/body.sse",
            "--record {dir}/body.sse would write over {dir}/body.request.json, which this"
            " resume reads; record to another file",
        ),
    ],
)
def test_a_record_target_that_cannot_be_used_is_refused_before_sending(
    record: str, message: str, tmp_path: Path
) -> None:
    paused = tmp_path / "paused.sse"
    shutil.copy(RUN1, paused)
    shutil.copy(REQUEST, tmp_path / "paused.request.json")
    shutil.copy(REQUEST, tmp_path / "body.request.json")
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    with scripted_server({"/chat": Route(body=RUN2)}) as server:
        args = ["resume", "--from", str(paused), "--approve", "transfer", "--no-input"]
        args += ["--request", str(tmp_path / "body.request.json")]
        args += ["--url", server.url("/chat"), "--record", record.format(dir=tmp_path)]
        result = CliRunner().invoke(app, args, env={})
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == f"agui: {message.format(dir=tmp_path)}\n"
    assert server.received == []
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before
