"""`agui resume --record OUT` keeps the body it posted, byte for byte, as OUT.request.json.

Before, the sidecar was the parsed body re-encoded by Python: a client tool output of
`1e-7` was written `1e-07` (the client, and the wire, say `1e-7`), and an answer holding
a lone surrogate (valid JSON as `\\ud800`) crashed the command after the response had
arrived, with a `UnicodeEncodeError` and no sidecar. Found by
`tests/interop/test_resume_differential.py`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app
from tests.resume_http import Route, scripted_server

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
CASE = "client-tool.add-tool-result"


def test_the_recorded_request_is_the_posted_body(tmp_path: Path) -> None:
    paused = tmp_path / "paused.sse"
    shutil.copy(NATIVE / f"{CASE}.run1.sse", paused)
    shutil.copy(NATIVE / f"{CASE}.request.json", tmp_path / "paused.request.json")
    out = tmp_path / "next.sse"
    answer = 'pick_color={"color":"\\ud800 red","n":1e-7,"z":-0,"big":1e21}'
    with scripted_server({"/chat": Route(body=(NATIVE / f"{CASE}.run2.sse").read_bytes())}) as srv:
        args = ["resume", "--no-input", "--from", str(paused), "--answer", answer]
        result = CliRunner().invoke(
            app, [*args, "--url", srv.url("/chat"), "--record", str(out)], env={}
        )
    assert result.exit_code == 0, result.stderr
    (posted,) = srv.received
    assert b'"payload":{"big":1e+21,"color":"\\ud800 red","n":1e-7,"z":0}' in posted.body
    assert (tmp_path / "next.request.json").read_bytes() == posted.body
