"""`agui translate` against the real packages: 0.42.0 legacy pauses become 0.58.0 native ones.

Three proofs per legacy scenario recorded live from the real 0.42.0 server:

1. descriptors: `translate --tools` yields what the real 0.58.0 server emits for the same
   scenario (everything but the client-minted run id);
2. static: the translated stream without tools, served to the real ai-client 0.33.2, is a
   resolvable pause, and the continuation it posts is accepted by the real 0.58.0 server;
3. proxy: with `--tools` the binding names the client's own request run id, so the
   translation runs live (agui as a translating proxy in front of the 0.42.0 server): the
   client types the approval, answers it natively, and the 0.58.0 server executes the
   tool (or feeds the client tool's output to the model) and finishes with success.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from replay.translate.translation import translate_stream
from replay.wire.problems import Problem
from tests.interop.harness import NodeServer, parse_sse

ROOT = Path(__file__).resolve().parents[2]
TOOLS: list[dict[str, Any]] = json.loads(
    (ROOT / "examples" / "legacy" / "tools.json").read_text("utf-8")
)["tools"]
RunClient = Callable[[dict[str, Any]], dict[str, Any]]

SCENARIOS = {
    "tool-approval": {
        "answers": [{"action": "resolve", "id": "approval_call_transfer_1", "value": True}],
        "final_text": "Done with the transfer.",
        "auto": False,
    },
    "two-approvals": {
        "answers": [
            {"action": "resolve", "id": "approval_call_transfer_1", "value": True},
            {"action": "resolve", "id": "approval_call_delete_1", "value": True},
        ],
        "final_text": None,
        "auto": False,
    },
    "client-tool": {"answers": [], "final_text": "Nice color.", "auto": True},
}


def translated(body: bytes, request: dict[str, Any], tools: list[dict[str, Any]] | None) -> bytes:
    return b"".join(
        piece
        for piece in translate_stream([body], source="live", tools=tools, request=request)
        if not isinstance(piece, Problem)
    )


def interrupts(sse: str) -> list[dict[str, Any]]:
    for event in parse_sse(sse):
        if event.get("type") == "RUN_FINISHED" and event.get("outcome"):
            return list(event["outcome"]["interrupts"])
    raise AssertionError("no interrupt terminal")


def script(url: str, scenario: str, thread: str, **extra: Any) -> dict[str, Any]:
    spec = SCENARIOS[scenario]
    body: dict[str, Any] = {
        "url": url,
        "scenario": scenario,
        "threadId": thread,
        "tools": scenario,
        "answers": spec["answers"],
    }
    if spec["auto"]:
        body["auto"] = True
    body.update(extra)
    return body


def assert_success(sse: str, scenario: str) -> None:
    events = parse_sse(sse)
    finish = [e for e in events if e.get("type") == "RUN_FINISHED"]
    assert finish, sse
    assert finish[-1].get("outcome", {"type": "success"})["type"] == "success", sse
    assert not any(e.get("type") == "RUN_ERROR" for e in events), sse
    if scenario != "client-tool":
        results = [e for e in events if e.get("type") == "TOOL_CALL_RESULT"]
        assert results, "the approved tool did not execute"
        assert "rcpt_Ada_42" in results[0]["content"] or "deleted" in results[0]["content"]
    text = "".join(e.get("delta", "") for e in events if e.get("type") == "TEXT_MESSAGE_CONTENT")
    expected = SCENARIOS[scenario]["final_text"]
    if expected:
        assert text == expected


@pytest.fixture(scope="module")
def proxy(native_server: NodeServer, legacy_server: NodeServer) -> Iterator[str]:
    """agui as a translating proxy: first turns go to 0.42.0, continuations to 0.58.0."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            request = json.loads(raw)
            scenario = self.path.rsplit("/", 1)[-1]
            native = bool(request.get("resume"))
            upstream = (native_server if native else legacy_server).url(scenario)
            reply = httpx.post(
                upstream, content=raw, headers={"Content-Type": "application/json"}, timeout=30
            )
            body = reply.content if native else translated(reply.content, request, TOOLS)
            self.send_response(reply.status_code)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_translated_descriptors_equal_the_native_servers(
    scenario: str,
    native_server: NodeServer,
    legacy_server: NodeServer,
    run_client_native: RunClient,
    run_client_legacy: RunClient,
) -> None:
    legacy = run_client_legacy(
        {"url": legacy_server.url(scenario), "threadId": f"tr-legacy-{scenario}", "tools": scenario}
    )
    native = run_client_native(
        {"url": native_server.url(scenario), "threadId": f"tr-native-{scenario}", "tools": scenario}
    )
    request = legacy["requests"][0]
    ours = interrupts(translated(legacy["responses"][0].encode(), request, TOOLS).decode())
    theirs = interrupts(native["responses"][0])
    for item in ours:
        binding = item["metadata"]["tanstack:interruptBinding"]
        assert binding["interruptedRunId"] == request["runId"]
    for item in theirs:
        binding = item["metadata"]["tanstack:interruptBinding"]
        assert binding["interruptedRunId"] == native["requests"][0]["runId"]
        binding["interruptedRunId"] = request["runId"]  # client-minted: the only difference
    assert json.dumps(ours) == json.dumps(theirs)


@pytest.mark.parametrize("scenario", ["tool-approval", "two-approvals"])
def test_static_translation_resumes_on_the_native_server(
    scenario: str,
    tmp_path: Path,
    native_server: NodeServer,
    legacy_server: NodeServer,
    run_client_native: RunClient,
    run_client_legacy: RunClient,
) -> None:
    thread = f"tr-static-{scenario}"
    legacy = run_client_legacy(
        {"url": legacy_server.url(scenario), "threadId": thread, "tools": scenario}
    )
    stream = tmp_path / "translated.sse"
    stream.write_bytes(translated(legacy["responses"][0].encode(), legacy["requests"][0], None))
    result = run_client_native(
        script(native_server.url(scenario), scenario, thread, staticResponses=[str(stream)])
    )
    exposed = result["interruptsAfterRun1"]
    assert [item["id"] for item in exposed] == [a["id"] for a in SCENARIOS[scenario]["answers"]]
    assert all(item["canResolve"] for item in exposed)
    continuation = result["requests"][1]
    assert continuation["parentRunId"] == result["requests"][0]["runId"]
    assert {entry["interruptId"] for entry in continuation["resume"]} == {
        item["id"] for item in exposed
    }
    reply = httpx.post(native_server.url(scenario), json=continuation, timeout=30)
    assert reply.status_code == 200
    assert_success(reply.text, scenario)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_live_translation_with_tools_is_a_native_pause(
    scenario: str, proxy: str, run_client_native: RunClient
) -> None:
    result = run_client_native(
        script(f"{proxy}/scenario/{scenario}", scenario, f"tr-proxy-{scenario}")
    )
    assert result["errors"] == []
    exposed = result["interruptsAfterRun1"]
    if scenario == "client-tool":
        assert exposed == []  # client-tool items are never public; the tool ran by itself
    else:
        assert all(item["kind"] == "tool-approval" and item["canResolve"] for item in exposed)
    first, continuation = result["requests"][:2]
    assert continuation["parentRunId"] == first["runId"]
    assert continuation["resume"]
    if scenario == "client-tool":
        assert continuation["resume"] == [
            {
                "interruptId": "client_tool_call_color_1",
                "payload": {"color": "blue"},
                "status": "resolved",
            }
        ]
    assert_success(result["responses"][1], scenario)
    assert result["interruptsAfterAnswers"] == []
