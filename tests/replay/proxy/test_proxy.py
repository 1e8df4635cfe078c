"""`agui proxy` against a scripted upstream over real HTTP: pass-through, faults, recording."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from replay.proxy.app import ExchangeLog, ProxyOptions, target_url
from replay.proxy.headers import end_to_end, redacted
from replay.proxy.live_check import LiveChecker
from replay.proxy.recorder import file_stem
from replay.proxy.server import ProxyServer
from replay.web.listener import BackgroundServer, bind
from replay.web.streaming import EventStream, StopSignal, StreamCut
from replay.wire.problems import Problem

SECRET = "s3cr3t-value"
ROOT = Path(__file__).resolve().parents[3]
LEGACY = ROOT / "examples" / "legacy" / "approval.python-package.sse"
TOOLS = json.loads((ROOT / "examples" / "legacy" / "tools.json").read_text())["tools"]
BODY = {"threadId": "T", "runId": "R1", "messages": [], "tools": [], "context": []}
EVENTS = [
    {"type": "RUN_STARTED", "threadId": "T", "runId": "R1"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "RUN_FINISHED", "threadId": "T", "runId": "R1"},
]


def frame(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


STREAM = b"".join(frame(event) for event in EVENTS)


class Upstream:
    """A scripted AG-UI server on 127.0.0.1, and what it saw."""

    def __init__(self) -> None:
        self.stopping = StopSignal()
        self.seen: list[tuple[dict[str, str], bytes]] = []
        self.cancelled = threading.Event()
        routes = [
            Route("/stream", self.stream, methods=["POST"]),
            Route("/drop", self.drop, methods=["POST"]),
            Route("/endless", self.endless, methods=["POST"]),
            Route("/refuse", self.refuse, methods=["POST"]),
            Route("/broken", self.broken, methods=["POST"]),
            Route("/legacy-whole", self.legacy_whole, methods=["POST"]),
        ]
        self.http = BackgroundServer(Starlette(routes=routes), bind("127.0.0.1", 0), self.stopping)

    @property
    def url(self) -> str:
        host, port = self.http.address
        return f"http://{host}:{port}"

    async def _note(self, request: Request) -> None:
        self.seen.append((dict(request.headers), await request.body()))

    def _events(self, chunks: AsyncIterator[bytes]) -> EventStream:
        headers = [
            ("content-type", "text/event-stream"),
            ("set-cookie", f"session={SECRET}"),
            ("x-upstream", "yes"),
        ]
        return EventStream(chunks, stopping=self.stopping, headers=headers)

    async def stream(self, request: Request) -> EventStream:
        await self._note(request)

        async def chunks() -> AsyncIterator[bytes]:
            for event in EVENTS:
                yield frame(event)

        return self._events(chunks())

    async def drop(self, request: Request) -> EventStream:
        await self._note(request)

        async def chunks() -> AsyncIterator[bytes]:
            yield frame(EVENTS[0])
            yield frame(EVENTS[1])[:20]  # half a frame, then the connection is cut
            raise StreamCut

        return self._events(chunks())

    async def endless(self, request: Request) -> EventStream:
        await self._note(request)
        cancelled = self.cancelled

        async def chunks() -> AsyncIterator[bytes]:
            yield frame(EVENTS[0])
            try:
                while True:
                    await self.stopping.sleep(0.02)
                    yield b": keep-alive\n\n"
            finally:
                cancelled.set()

        return self._events(chunks())

    async def refuse(self, request: Request) -> Response:
        await self._note(request)
        return Response(b"Invalid AG-UI request body.", 400, media_type="text/plain")

    async def legacy_whole(self, request: Request) -> Response:
        """A legacy stream sent whole, with a Content-Length."""
        await self._note(request)
        return Response(LEGACY.read_bytes(), media_type="text/event-stream")

    async def broken(self, request: Request) -> EventStream:
        await self._note(request)

        async def chunks() -> AsyncIterator[bytes]:
            yield frame(EVENTS[0])
            yield frame({"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"})
            yield frame(EVENTS[-1])

        return self._events(chunks())


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    server.http.start()
    try:
        yield server
    finally:
        server.http.stop()


class Proxy:
    def __init__(self, upstream: str, **options: Any) -> None:
        self.log: list[ExchangeLog] = []
        self.findings: list[tuple[int, Problem]] = []
        checker = (
            LiveChecker(lambda n, p: self.findings.append((n, p))) if options.get("check") else None
        )
        self.checker = checker
        self.server = ProxyServer(
            ProxyOptions(upstream=upstream, **options), logger=self.log.append, checker=checker
        )

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture
def proxy() -> Iterator[Any]:
    started: list[Proxy] = []

    def start(upstream: str, **options: Any) -> Proxy:
        made = Proxy(upstream, **options)
        made.server.start()
        started.append(made)
        return made

    yield start
    for made in started:
        made.server.shutdown()


def wait_for(condition: Any, seconds: float = 5) -> None:
    limit = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < limit, "timed out"
        time.sleep(0.01)


# --------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(
    ("upstream", "path", "query", "url"),
    [
        ("http://h:1", "/api/chat", "", "http://h:1/api/chat"),
        ("http://h:1/", "/api/chat", "a=1", "http://h:1/api/chat?a=1"),
        ("http://h:1/base", "/chat", "", "http://h:1/base/chat"),
        ("http://h:1/api/chat", "/", "", "http://h:1/api/chat"),
        ("http://h:1", "/", "", "http://h:1/"),
    ],
)
def test_target_url(upstream: str, path: str, query: str, url: str) -> None:
    assert target_url(upstream, path, query) == url


def test_hop_by_hop_headers_stay_on_their_connection() -> None:
    headers = [
        ("Connection", "keep-alive, X-Private"),
        ("X-Private", "1"),
        ("Transfer-Encoding", "chunked"),
        ("Content-Type", "text/event-stream"),
        ("Host", "a"),
    ]
    assert end_to_end(headers, drop=("host",)) == [("Content-Type", "text/event-stream")]


def test_secrets_are_redacted_case_insensitively() -> None:
    shown = redacted(
        [("Authorization", "Bearer x"), ("COOKIE", "a=b"), ("X-Api-Key", "k"), ("Accept", "*/*")],
        extra=("x-api-key",),
    )
    assert shown == {
        "authorization": "[redacted]",
        "cookie": "[redacted]",
        "x-api-key": "[redacted]",
        "accept": "*/*",
    }


@pytest.mark.parametrize(
    ("run_id", "stem"),
    [
        ("run-1", "007-run-1"),
        (None, "007-no-run-id"),
        ("../../etc/x y", "007-etc_x_y"),
        ("", "007-no-run-id"),
    ],
)
def test_file_stems_are_safe(run_id: str | None, stem: str) -> None:
    assert file_stem(7, run_id) == stem


# --------------------------------------------------------------------------- HTTP


def test_pass_through_forwards_bytes_and_headers(upstream: Upstream, proxy: Any) -> None:
    made = proxy(upstream.url)
    raw = b'{"threadId":"T", "runId":"R1","messages":[],"tools":[],"context":[] }'
    with httpx.Client(timeout=5) as client:
        answer = client.post(
            made.url + "/stream?x=1",
            content=raw,
            headers={"Content-Type": "application/json", "X-Trace": "abc"},
        )
    assert answer.status_code == 200
    assert answer.content == STREAM
    assert answer.headers["x-upstream"] == "yes"
    assert answer.headers["content-type"] == "text/event-stream"
    headers, body = upstream.seen[0]
    assert body == raw
    assert headers["x-trace"] == "abc"
    assert headers["accept-encoding"] == "gzip, deflate"  # what httpx asked for
    assert [entry.end for entry in made.log] == ["complete"]
    assert made.log[0].run_id == "R1"


def test_non_sse_answers_and_bad_bodies_pass_untouched(upstream: Upstream, proxy: Any) -> None:
    made = proxy(upstream.url)
    with httpx.Client(timeout=5) as client:
        answer = client.post(made.url + "/refuse", content=b"{not json")
    assert (answer.status_code, answer.text) == (400, "Invalid AG-UI request body.")
    assert upstream.seen[0][1] == b"{not json"


def test_upstream_down_gives_one_run_error_and_the_proxy_keeps_serving(
    upstream: Upstream, proxy: Any
) -> None:
    free = bind("127.0.0.1", 0)
    dead = f"http://127.0.0.1:{free.getsockname()[1]}"
    free.close()
    made = proxy(dead)
    with httpx.Client(timeout=5) as client:
        for _ in range(2):
            answer = client.post(made.url + "/stream", json=BODY)
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("text/event-stream")
            (line,) = [x for x in answer.text.splitlines() if x]
            event = json.loads(line.removeprefix("data: "))
            assert event["type"] == "RUN_ERROR"
            assert event["code"] == "upstream-error"
            assert "refused the connection" in event["message"]
    assert [entry.end for entry in made.log] == ["failed", "failed"]


def test_a_dropped_upstream_stream_ends_with_run_error_and_a_partial_recording(
    upstream: Upstream, proxy: Any, tmp_path: Path
) -> None:
    made = proxy(upstream.url, record=tmp_path)
    with httpx.Client(timeout=5) as client:
        answer = client.post(made.url + "/drop", json=BODY)
    text = answer.text
    assert text.startswith(frame(EVENTS[0]).decode())
    last = [line for line in text.splitlines() if line.startswith("data: {")][-1]
    event = json.loads(last.removeprefix("data: "))
    assert event["type"] == "RUN_ERROR"
    assert "closed the stream before its end" in event["message"]
    wait_for(lambda: made.log)
    assert made.log[0].end == "failed"
    (saved,) = tmp_path.glob("*.sse")
    assert saved.name == "001-R1.partial.sse"
    # What arrived, exactly: the proxy's own RUN_ERROR is not part of the recording.
    assert saved.read_bytes() == frame(EVENTS[0]) + frame(EVENTS[1])[:20]
    meta = json.loads((tmp_path / "001-R1.partial.exchange.json").read_text())
    assert meta["complete"] is False
    assert not list(tmp_path.glob(".*"))  # no temp file left behind


def test_a_client_that_hangs_up_cancels_the_upstream_request(
    upstream: Upstream, proxy: Any, tmp_path: Path
) -> None:
    made = proxy(upstream.url, record=tmp_path)
    with (
        httpx.Client(timeout=5) as client,
        client.stream("POST", made.url + "/endless", json=BODY) as response,
    ):
        lines = response.iter_lines()
        assert next(lines).startswith("data: ")
    assert upstream.cancelled.wait(5), "the upstream stream was never closed"
    wait_for(lambda: made.log)
    assert made.log[0].end == "disconnected"
    (saved,) = tmp_path.glob("*.sse")
    assert saved.name.endswith(".partial.sse")
    assert saved.read_bytes().startswith(frame(EVENTS[0]))


@pytest.mark.parametrize("fast_path", [True, False])
def test_plain_pass_through_reports_a_dropped_stream_and_a_departed_client(
    upstream: Upstream, proxy: Any, fast_path: bool
) -> None:
    # No taps: with `fast_path` the lean pipe carries these, else httpx.
    made = proxy(upstream.url, fast_path=fast_path)
    with httpx.Client(timeout=5) as client:
        answer = client.post(made.url + "/drop", json=BODY)
        last = [line for line in answer.text.splitlines() if line.startswith("data: {")][-1]
        assert answer.text.startswith(frame(EVENTS[0]).decode())
        assert "closed the stream before its end" in json.loads(last[6:])["message"]
        with client.stream("POST", made.url + "/endless", json=BODY) as response:
            assert next(response.iter_lines()).startswith("data: ")
    assert upstream.cancelled.wait(5), "the upstream stream was never closed"
    wait_for(lambda: len(made.log) == 2)
    assert [entry.end for entry in made.log] == ["failed", "disconnected"]


def test_no_secret_reaches_disk_or_the_log(upstream: Upstream, proxy: Any, tmp_path: Path) -> None:
    made = proxy(upstream.url, record=tmp_path, redact=("X-Api-Key",))
    with httpx.Client(timeout=5) as client:
        answer = client.post(
            made.url + "/stream",
            json=BODY,
            headers={
                "Authorization": f"Bearer {SECRET}",
                "Cookie": f"sid={SECRET}",
                "X-Api-Key": SECRET,
            },
        )
    assert answer.headers["set-cookie"] == f"session={SECRET}"  # forwarded, not written
    headers, _ = upstream.seen[0]
    assert headers["authorization"] == f"Bearer {SECRET}"
    assert headers["x-api-key"] == SECRET
    assert headers["accept-encoding"] == "identity"  # a recording needs the plain bytes
    files = list(tmp_path.iterdir())
    assert {path.suffix for path in files} == {".sse", ".json"}
    for path in files:
        assert SECRET not in path.read_text(), path.name
    assert SECRET not in repr(made.log)
    meta = json.loads((tmp_path / "001-R1.exchange.json").read_text())
    assert meta["requestHeaders"]["authorization"] == "[redacted]"
    assert meta["requestHeaders"]["x-api-key"] == "[redacted]"
    assert meta["responseHeaders"]["set-cookie"] == "[redacted]"
    assert json.loads((tmp_path / "001-R1.request.json").read_text()) == BODY
    assert (tmp_path / "001-R1.sse").read_bytes() == STREAM


def test_numbers_continue_after_what_the_directory_holds(
    upstream: Upstream, proxy: Any, tmp_path: Path
) -> None:
    (tmp_path / "041-old.sse").write_text("")
    made = proxy(upstream.url, record=tmp_path)
    with httpx.Client(timeout=5) as client:
        client.post(made.url + "/stream", json=BODY)
        client.post(made.url + "/stream", json=BODY | {"runId": "R2"})
    wait_for(lambda: len(made.log) == 2)
    assert sorted(p.name for p in tmp_path.glob("*.sse")) == [
        "041-old.sse",
        "042-R1.sse",
        "043-R2.sse",
    ]


def test_the_live_check_reports_findings_with_the_exchange_number(
    upstream: Upstream, proxy: Any
) -> None:
    made = proxy(upstream.url, check=True)
    with httpx.Client(timeout=5) as client:
        client.post(made.url + "/stream", json=BODY)
        client.post(made.url + "/broken", json=BODY)
    wait_for(lambda: len(made.log) == 2)
    made.checker.settle()
    rules = [(number, problem.rule) for number, problem in made.findings]
    assert (2, "unknown-message-id") in rules
    assert all(number == 2 for number, _ in rules)
    assert str(made.findings[0][1].location).startswith("exchange 2:")


def test_a_translated_body_drops_the_upstream_content_length(
    upstream: Upstream, proxy: Any
) -> None:
    made = proxy(upstream.url, native=True, tools=TOOLS)
    with httpx.Client(timeout=5) as client:
        answer = client.post(made.url + "/legacy-whole", json=BODY)
    assert "content-length" not in answer.headers
    events = [json.loads(x[6:]) for x in answer.text.splitlines() if x.startswith("data: {")]
    assert events[-1]["type"] == "RUN_FINISHED"
    assert events[-1]["outcome"]["interrupts"][0]["id"] == "approval_call_1"
    assert events[-1]["runId"] == "R1"
