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


@pytest.mark.parametrize("fast_path", [True, False], ids=["pipe", "httpx"])
def test_the_log_shows_the_path_as_sent_and_one_line_per_exchange(
    upstream: tuple[str, list[bytes]], fast_path: bool
) -> None:
    # Decoded, `/a%0D%0Ab` was logged as `/ab`; a line break in a runId split the line.
    from cli.proxy_command import render_exchange
    from replay.proxy.app import ExchangeLog

    url, _ = upstream
    logged: list[ExchangeLog] = []
    targets = ["/a%0D%0Ab", "/x%00y%1B%5B2J", "/a%E2%80%A8b"]
    with (
        ProxyServer(ProxyOptions(upstream=url, fast_path=fast_path), logger=logged.append) as proxy,
        httpx.Client(timeout=10) as client,
    ):
        for target in targets:
            request = httpx.Request("POST", proxy.url, json={"runId": "r\n#9 POST /forged"})
            request.url = request.url.copy_with(raw_path=target.encode("ascii"))
            client.send(request)
    assert [entry.path for entry in logged] == targets
    lines = [render_exchange(entry) for entry in logged]
    assert all("\n" not in line for line in lines)
    assert lines[0].startswith("#1 POST /a%0D%0Ab runId=r\\x0a#9 POST /forged -> 200 ")
