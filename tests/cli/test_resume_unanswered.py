"""`agui resume --url` against a server that does not answer with HTTP, or redirects.

Before, a connection closed without an answer and bytes that are not HTTP (a wrong
port) were both "the server broke the connection mid-response", and a redirect said
`HTTP 307 Temporary Redirect` without where to.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.raw_http import raw_server, target

RUN1 = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
APPROVAL_RUN1 = str(RUN1 / "tool-approval.approve.run1.sse")
ANSWERS = {
    "/garbage": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "/close": b"",
    "/moved": b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /api/chat?v=2\r\n"
    b"content-length: 0\r\n\r\n",
}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with raw_server(lambda conn, head, _: conn.sendall(ANSWERS[target(head)])) as url:
        yield url


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (
            "/garbage",
            "the server answered with something that is not HTTP (illegal status line:"
            " bytearray(b'SSH-2.0-OpenSSH_9.6')); is it the right port?",
        ),
        (
            "/close",
            "the server closed the connection without answering (the continuation was sent"
            " and is not retried)",
        ),
        (
            "/moved",
            "HTTP 307 Temporary Redirect to {server}/api/chat?v=2; a continuation is not"
            " re-posted: use --url {server}/api/chat?v=2",
        ),
    ],
)
def test_the_failure_says_what_the_server_did(server: str, path: str, words: str) -> None:
    url = server + path
    result = CliRunner().invoke(
        app,
        ["resume", "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", url, "--no-input"],
        env={},
    )
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == f"agui: {url}: {words.format(server=server)}"
    assert "Traceback" not in result.stderr
