"""`agui proxy --native`: the real 0.33.2 ChatClient against the real legacy 0.42.0 server.

Each scenario runs twice with the same client script: straight at the legacy server,
where the current client never hydrates the legacy events and the answer does nothing
(the tool never runs), and through the bridge, where the client sees native interrupts,
answers them natively, and the legacy server receives the follow-up it understands and
runs (or skips) the tool. The same holds for a stream in the shape of TanStack's Python
package (`value.approvalId`, `data: [DONE]`), from a scripted upstream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from replay.web.listener import BackgroundServer, bind
from replay.web.streaming import EventStream, StopSignal
from tests.interop.cases import NATIVE_CASES, TRANSFER_ID, Case
from tests.interop.harness import REPO_ROOT, NodeServer, parse_sse

pytestmark = pytest.mark.interop

RunClient = Callable[[dict[str, Any]], dict[str, Any]]
BY_NAME = {case.name: case for case in NATIVE_CASES}
TOOLS = json.loads((REPO_ROOT / "examples" / "legacy" / "tools.json").read_text())["tools"]
PYTHON_SHAPE = REPO_ROOT / "examples" / "legacy" / "approval.python-package.sse"


class Bridge:
    def __init__(self, upstream: str) -> None:
        self.log: list[ExchangeLog] = []
        options = ProxyOptions(upstream=upstream, native=True, tools=TOOLS)
        self.server = ProxyServer(options, logger=self.log.append)

    def url(self, scenario: str) -> str:
        return f"{self.server.url}/scenario/{scenario}"


@pytest.fixture
def bridge() -> Iterator[Callable[[str], Bridge]]:
    started: list[Bridge] = []

    def start(upstream: str) -> Bridge:
        made = Bridge(upstream)
        made.server.start()
        started.append(made)
        return made

    yield start
    for made in started:
        made.server.shutdown()


def _tool_results(text: str) -> dict[str, str]:
    return {
        e["toolCallId"]: e["content"] for e in parse_sse(text) if e["type"] == "TOOL_CALL_RESULT"
    }


def _final_text(text: str) -> str:
    return "".join(e["delta"] for e in parse_sse(text) if e["type"] == "TEXT_MESSAGE_CONTENT")


def _as_thread(case: Case, url: str, suffix: str) -> dict[str, Any]:
    script = case.script(url)
    script["threadId"] = f"{case.thread_id}.{suffix}"
    return script


SCENARIOS = [
    "tool-approval.approve",
    "tool-approval.reject",
    "two-approvals.approve-both",
    "two-approvals.approve-one-reject-other",
    "client-tool.add-tool-result",
]


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_current_client_works_with_a_legacy_server_through_the_bridge(
    name: str,
    legacy_server: NodeServer,
    run_client_native: RunClient,
    bridge: Callable[[str], Bridge],
) -> None:
    case = BY_NAME[name]
    # Without the proxy: nothing to resolve, the answer goes nowhere, no tool runs.
    direct = run_client_native(_as_thread(case, legacy_server.url(case.scenario), "direct"))
    assert direct["interruptsAfterRun1"] == []
    assert len(direct["requests"]) == 1 or _tool_results(direct["responses"][-1]) == {}
    if case.tool_results:
        assert all(_tool_results(r) == {} for r in direct["responses"])

    made = bridge(legacy_server.base_url)
    thread = f"{case.thread_id}.bridged"
    result = run_client_native(_as_thread(case, made.url(case.scenario), "bridged"))
    assert result["errors"] == []
    assert result["interruptErrors"] == []
    assert result["status"] == "ready"
    assert len(result["requests"]) == 2
    public = [(item["kind"], item["id"]) for item in result["interruptsAfterRun1"]]
    assert public == list(case.exposed)
    assert all(item["canResolve"] for item in result["interruptsAfterRun1"])
    first, continuation = result["requests"]
    assert continuation["parentRunId"] == first["runId"]
    entries = [(e["interruptId"], e["status"], e.get("payload")) for e in continuation["resume"]]
    assert sorted(entries, key=repr) == sorted(case.resume, key=repr)
    # The paused run is bound to the client's request, as a native server would bind it.
    terminal = parse_sse(result["responses"][0])[-1]
    assert terminal["runId"] == first["runId"]
    assert terminal["outcome"]["type"] == "interrupt"
    # The legacy server got the legacy follow-up: decisions in parts, no resume.
    received = legacy_server.requests(thread)
    assert len(received) == 2
    follow_up = received[1]
    assert "resume" not in follow_up
    assert "parentRunId" not in follow_up
    assert follow_up["runId"] == continuation["runId"]
    # ... and did what the answer said: the approved tool ran, the rejected one did not.
    assert _tool_results(result["responses"][1]) == case.tool_results
    assert _final_text(result["responses"][1]) == case.final_text
    assert [entry.end for entry in made.log] == ["complete", "complete"]


def test_a_cancelled_approval_is_refused_with_a_run_error(
    legacy_server: NodeServer, run_client_native: RunClient, bridge: Callable[[str], Bridge]
) -> None:
    case = BY_NAME["tool-approval.cancel"]
    made = bridge(legacy_server.base_url)
    result = run_client_native(_as_thread(case, made.url(case.scenario), "bridged"))
    assert len(result["requests"]) == 2
    (event,) = parse_sse(result["responses"][1])
    assert event["type"] == "RUN_ERROR"
    assert event["code"] == "legacy-unsupported"
    assert "was cancelled" in event["message"]
    # Nothing reached the legacy server for the refused continuation.
    assert len(legacy_server.requests(f"{case.thread_id}.bridged")) == 1
    assert made.log[-1].end == "refused"


# --------------------------------------------------------------------------- Python shape


class PythonShapeServer:
    """A scripted upstream streaming what TanStack's Python package streams."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.stopping = StopSignal()
        app = Starlette(routes=[Route("/chat", self.chat, methods=["POST"])])
        self.http = BackgroundServer(app, bind("127.0.0.1", 0), self.stopping)

    @property
    def url(self) -> str:
        host, port = self.http.address
        return f"http://{host}:{port}"

    async def chat(self, request: Request) -> EventStream:
        body = await request.json()
        self.bodies.append(body)
        if len(self.bodies) == 1:
            data = PYTHON_SHAPE.read_bytes()
        else:
            approved = _approved(body)
            text = "Transferred." if approved else "Not transferred."
            events = [
                {"type": "RUN_STARTED", "runId": "run-py-2", "threadId": "thread-py"},
                {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": text},
                {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
                {"type": "RUN_FINISHED", "runId": "run-py-2", "finishReason": "stop"},
            ]
            data = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)
            data += b"data: [DONE]\n\n"

        async def chunks() -> AsyncIterator[bytes]:
            for line in data.splitlines(keepends=True):
                yield line

        headers = [("content-type", "text/event-stream")]
        return EventStream(chunks(), stopping=self.stopping, headers=headers)


def _approved(body: dict[str, Any]) -> bool | None:
    for message in body["messages"]:
        for part in message.get("parts") or []:
            if part.get("type") == "tool-call" and "approval" in part:
                return bool(part["approval"]["approved"])
    return None


@pytest.fixture
def python_shape() -> Iterator[PythonShapeServer]:
    server = PythonShapeServer()
    server.http.start()
    try:
        yield server
    finally:
        server.http.stop()


def test_a_python_package_stream_is_bridged(
    python_shape: PythonShapeServer,
    run_client_native: RunClient,
    bridge: Callable[[str], Bridge],
) -> None:
    script = {
        "url": f"{python_shape.url}/chat",
        "scenario": "tool-approval",
        "tools": "tool-approval",
        "threadId": "thread-py",
        "answers": [{"action": "resolve", "id": "approval_call_1", "value": True}],
    }
    direct = run_client_native(script)
    assert direct["interruptsAfterRun1"] == []
    assert len(python_shape.bodies) == 1  # the answer never reached the server

    python_shape.bodies.clear()
    made = bridge(python_shape.url)
    result = run_client_native(script | {"url": f"{made.server.url}/chat"})
    assert result["errors"] == []
    assert result["status"] == "ready"
    (item,) = result["interruptsAfterRun1"]
    assert (item["kind"], item["id"], item["canResolve"]) == (
        "tool-approval",
        "approval_call_1",
        True,
    )
    assert len(python_shape.bodies) == 2
    assert _approved(python_shape.bodies[1]) is True
    assert _final_text(result["responses"][1]) == "Transferred."
    # `[DONE]` never reaches the native client, which would read a second terminal.
    assert "[DONE]" not in "".join(result["responses"])
    assert TRANSFER_ID not in json.dumps(python_shape.bodies[1])


def test_the_bridge_keeps_no_state_between_requests(
    legacy_server: NodeServer, run_client_native: RunClient, bridge: Callable[[str], Bridge]
) -> None:
    """A proxy restarted between the pause and the answer still bridges the answer."""
    case = BY_NAME["tool-approval.approve"]
    first = bridge(legacy_server.base_url)
    paused = run_client_native(
        _as_thread(case, first.url(case.scenario), "restart") | {"answers": []}
    )
    first.server.shutdown()
    request = paused["requests"][0]
    assert paused["interruptsAfterRun1"][0]["id"] == TRANSFER_ID
    second = bridge(legacy_server.base_url)
    continuation = {
        **request,
        "runId": request["runId"] + "-2",
        "parentRunId": request["runId"],
        "resume": [
            {"interruptId": TRANSFER_ID, "status": "resolved", "payload": {"approved": True}}
        ],
        "messages": [
            *request["messages"],
            {
                "id": "msg_scripted_0",
                "role": "assistant",
                "content": "I will transfer the money.",
                "toolCalls": [
                    {
                        "id": "call_transfer_1",
                        "type": "function",
                        "function": {
                            "name": "transfer",
                            "arguments": '{"amount":42,"recipient":"Ada"}',
                        },
                    }
                ],
            },
        ],
    }
    answer = httpx.post(second.url(case.scenario), json=continuation, timeout=30)
    assert _tool_results(answer.text) == case.tool_results
    assert parse_sse(answer.text)[-1]["runId"] == continuation["runId"]


def test_examples_tools_file_covers_the_scenarios() -> None:
    assert {tool["name"] for tool in TOOLS} >= {"transfer", "delete_file", "pick_color"}
    assert Path(PYTHON_SHAPE).exists()
