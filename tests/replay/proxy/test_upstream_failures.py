"""The client's `RUN_ERROR` says what the upstream did wrong, the same through the
pass-through pipe and through httpx.

Before, an upstream that closed or reset the connection without answering, and one
that answered something that is not HTTP (a wrong port, a TLS server), were all
reported as "closed the stream before its end", a stream that never began.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from tests.raw_http import raw_server, reset, target

EVENT = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
ANSWERS = {
    "/garbage": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "/close": b"",
    "/reset": None,  # an RST instead of a FIN
    "/bad-chunk": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"transfer-encoding: chunked\r\n\r\n%x\r\n%s\r\nzz\r\n" % (len(EVENT), EVENT),
    "/cut": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"content-length: 1000\r\n\r\n" + EVENT,
}


def _answer(conn: socket.socket, head: bytes, body: bytes) -> None:
    answer = ANSWERS[target(head)]
    if answer is None:
        reset(conn)
    else:
        conn.sendall(answer)


def read_all(url: str) -> bytes:
    """What the proxy sent, also when it ends short of its Content-Length (/cut)."""
    text = b""
    with httpx.stream("POST", url, json={"runId": "r1"}, timeout=10) as response:
        try:
            for chunk in response.iter_raw():
                text += chunk
        except httpx.RemoteProtocolError:
            assert response.headers.get("content-length") is not None
    return text


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with raw_server(_answer) as url:
        yield url


@pytest.mark.parametrize("fast_path", [True, False], ids=["pipe", "httpx"])
@pytest.mark.parametrize(
    ("path", "reason", "before"),
    [
        ("/garbage", "answered with something that is not HTTP; is it the right port?", b""),
        ("/close", "closed the connection without answering", b""),
        ("/reset", "closed the connection without answering", b""),
        ("/bad-chunk", "answered with something that is not HTTP; is it the right port?", EVENT),
        ("/cut", "closed the stream before its end", EVENT),
    ],
)
def test_each_failure_has_its_own_words(
    upstream: str, fast_path: bool, path: str, reason: str, before: bytes
) -> None:
    logged: list[ExchangeLog] = []
    options = ProxyOptions(upstream=upstream, fast_path=fast_path)
    with ProxyServer(options, logger=logged.append) as proxy:
        text = read_all(proxy.url + path)
    assert text.startswith(before)
    last = text.removeprefix(before).strip().splitlines()[-1]
    event = json.loads(last.removeprefix(b"data: "))
    assert event["type"] == "RUN_ERROR"
    assert event["message"] == f"agui proxy: upstream {upstream} {reason}"
    assert [entry.detail for entry in logged] == [f"upstream {upstream} {reason}"]
