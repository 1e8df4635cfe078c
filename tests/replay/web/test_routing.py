"""Every request reaches the server's own endpoint and log, whatever its path or method.

Before, a path with an encoded line break inside it (`/a%0D%0Ab`) or a method no route listed
(`PROPFIND`) got Starlette's bare `Not Found` / `Method Not Allowed` from both
`replay --serve` and `proxy`, and neither logged it.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from replay.serve.request_log import RequestLog
from replay.serve.serve_options import FAST, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer

ROOT = Path(__file__).resolve().parents[3]
RUN = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"


def send(url: str, method: str, target: str) -> httpx.Response:
    request = httpx.Request(method, url, content=b"{}")
    request.url = request.url.copy_with(raw_path=target.encode("ascii"))
    with httpx.Client(timeout=10) as client:
        return client.send(request)


@pytest.mark.parametrize(("method", "target"), [("POST", "/a%0D%0Ab"), ("PROPFIND", "/chat")])
def test_the_replay_server_answers_and_logs_every_request(method: str, target: str) -> None:
    logged: list[RequestLog] = []
    options = ServeOptions(pace=FAST)
    recording = load_recording([str(RUN)], options)
    with ReplayServer(recording, options=options, logger=logged.append) as server:
        answer = send(server.url, method, target)
    if method == "POST":  # an empty RunAgentInput: TanStack's own 400
        assert answer.status_code == 400
        assert answer.text.startswith("Invalid AG-UI request body.")
    else:
        assert answer.status_code == 405
        assert "POST a RunAgentInput to any path" in answer.text
    # the logged path is the target as sent (Starlette's URL path drops the line break)
    assert [(entry.method, entry.path) for entry in logged] == [(method, target)]


def test_the_proxy_forwards_and_logs_every_request() -> None:
    logged: list[ExchangeLog] = []
    options = ServeOptions(pace=FAST)
    recording = load_recording([str(RUN)], options)
    with (
        ReplayServer(recording, options=options) as upstream,
        ProxyServer(ProxyOptions(upstream=upstream.url), logger=logged.append) as proxy,
    ):
        answers = [send(proxy.url, "POST", "/a%0D%0Ab"), send(proxy.url, "PROPFIND", "/x")]
    # the upstream's own answers, passed through
    assert [answer.status_code for answer in answers] == [400, 405]
    # logged as sent, as the replay server does (decoded, the line break was dropped)
    assert [(entry.method, entry.path, entry.status) for entry in logged] == [
        ("POST", "/a%0D%0Ab", 400),
        ("PROPFIND", "/x", 405),
    ]
