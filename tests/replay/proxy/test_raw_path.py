"""The upstream gets the request target exactly as the client sent it, on both paths.

Before, the proxy forwarded the *decoded* path: `/a%2Fb` went up as `/a/b`, and the
pass-through pipe wrote `/a%20b/%C3%A9` as `POST /a b/\\xe9 HTTP/1.1`, a request line no
server can read, while httpx sent it encoded: the two client paths disagreed.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from replay.proxy.app import ProxyOptions
from replay.proxy.server import ProxyServer
from tests.raw_http import raw_server

ANSWER = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[bytes]]]:
    lines: list[bytes] = []

    def answer(conn: socket.socket, head: bytes, _: bytes) -> None:
        lines.append(head.split(b"\r\n", 1)[0])
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(ANSWER), ANSWER)
        )

    with raw_server(answer) as url:
        yield url + "/base", lines


@pytest.mark.parametrize("fast_path", [True, False], ids=["pipe", "httpx"])
@pytest.mark.parametrize(
    "target",
    ["/a%20b/%C3%A9", "/a%2Fb%3Fc%23d", "/chat?x=%0A&y=%2F", "/~user/%7Ezwei"],
)
def test_the_target_goes_up_as_sent(
    upstream: tuple[str, list[bytes]], fast_path: bool, target: str
) -> None:
    url, lines = upstream
    with ProxyServer(ProxyOptions(upstream=url, fast_path=fast_path)) as proxy:
        request = httpx.Request("POST", proxy.url, json={"runId": "r1"})
        # the target as bytes on the wire, past httpx's own URL normalising
        request.url = request.url.copy_with(raw_path=target.encode("ascii"))
        with httpx.Client(timeout=10) as client:
            answer = client.send(request)
    assert answer.content == ANSWER
    assert lines == [b"POST /base" + target.encode("ascii") + b" HTTP/1.1"]
