"""`--upstream http://user:password@host`: the password reaches the upstream the same
way on both client paths, and nobody else sees it.

Before, the URL was printed whole on stderr, in the `--json` log and in the `RUN_ERROR`
sent to the *client*; and the pass-through pipe dropped the credentials that the httpx
path sends as Basic auth, so a plain proxy got 401 where `--record` worked.
"""

from __future__ import annotations

import base64
import json
from io import StringIO

import httpx
import pytest
from rich.console import Console

from cli.proxy_command import ProxyRequest, run_proxy
from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from replay.wire.errors import AguiError
from tests.resume_http import Route, free_port, scripted_server

ANSWER = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
BASIC = "Basic " + base64.b64encode(b"ada:s3cret").decode()


@pytest.mark.parametrize("fast_path", [True, False], ids=["pipe", "httpx"])
def test_the_upstream_gets_the_credentials_on_both_paths(fast_path: bool) -> None:
    with scripted_server({"/chat": Route(body=ANSWER)}) as upstream:
        url = f"http://ada:s3cret@127.0.0.1:{upstream.port}"
        with ProxyServer(ProxyOptions(upstream=url, fast_path=fast_path)) as proxy:
            answer = httpx.post(proxy.url + "/chat", json={"runId": "r1"}, timeout=10)
    assert answer.content == ANSWER
    assert [seen.headers.get("authorization") for seen in upstream.received] == [BASIC]


@pytest.mark.parametrize("fast_path", [True, False], ids=["pipe", "httpx"])
def test_a_failure_never_shows_the_password(fast_path: bool) -> None:
    port = free_port()
    logged: list[ExchangeLog] = []
    options = ProxyOptions(upstream=f"http://ada:s3cret@127.0.0.1:{port}", fast_path=fast_path)
    with ProxyServer(options, logger=logged.append) as proxy:
        answer = httpx.post(proxy.url + "/chat", json={"runId": "r1"}, timeout=10)
    event = json.loads(answer.text.strip().removeprefix("data: "))
    reason = f"upstream http://127.0.0.1:{port} refused the connection; is it running?"
    assert event["message"] == f"agui proxy: {reason}"
    assert [entry.detail for entry in logged] == [reason]


def test_the_startup_lines_never_show_the_password() -> None:
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)
    request = ProxyRequest(upstream="http://ada:s3cret@127.0.0.1:9/api", listen="0")
    run_proxy(request, console=console, on_ready=lambda server: server.shutdown())
    assert "s3cret" not in text.getvalue()
    assert "agui proxy: passing through to http://127.0.0.1:9/api\n" in text.getvalue()


def test_an_ipv6_upstream_keeps_its_brackets_once_the_password_is_gone() -> None:
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)
    request = ProxyRequest(upstream="http://ada:s3cret@[::1]:9/api", listen="0")
    run_proxy(request, console=console, on_ready=lambda server: server.shutdown())
    assert "agui proxy: passing through to http://[::1]:9/api\n" in text.getvalue()


def test_a_server_whose_startup_fails_says_so() -> None:
    # The CLI refuses such an upstream first; below it, a proxy whose app cannot start
    # (its client setup raises for the port) returned as if serving, and `wait()` then
    # ended at once: `agui proxy` exited 0 with nothing said.
    server = ProxyServer(ProxyOptions(upstream="http://127.0.0.1:99999"))
    with pytest.raises(AguiError, match=r"^the HTTP server stopped while starting$"):
        server.start()
    server.shutdown()
