"""`agui replay --serve` against the real TanStack packages.

The real `@tanstack/ai-client` 0.33.2 ChatClient is pointed at agui's server: on a native
recording it exposes the same interrupts as against the real 0.58.0 server and its
continuation is accepted and answered with recorded run 2; on a legacy recording served
with `--native` it gets resolvable interrupts. Bodies the real server rejects are sent to
both servers and must be rejected identically (same `RUN_ERROR`, or the same HTTP 400).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from replay.serve.request_log import RequestLog, Result
from replay.serve.serve_options import FAST, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer
from tests.interop.cases import LEGACY_CASES, NATIVE_CASES, TRANSFER_ID, Case
from tests.interop.harness import REPO_ROOT, NodeServer, normalised_interrupts, parse_sse

pytestmark = pytest.mark.interop

RunClient = Callable[[dict[str, Any]], dict[str, Any]]
RECORDINGS = REPO_ROOT / "tests" / "fixtures" / "recordings"
BY_NAME = {case.name: case for case in NATIVE_CASES}
LEGACY_BY_NAME = {case.name: case for case in LEGACY_CASES}
TRANSFER_TOOL = {
    "name": "transfer",
    "description": "Transfer funds to a recipient",
    "needsApproval": True,
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"amount": {"type": "number"}, "recipient": {"type": "string"}},
        "required": ["amount", "recipient"],
    },
}


class Served:
    """An in-process agui server on one recorded case, with its request log."""

    def __init__(self, project: str, case: str, **options: Any) -> None:
        base = RECORDINGS / project / case
        names = [f"{base}.run1.sse"] + (
            [f"{base}.run2.sse"] if Path(f"{base}.run2.sse").exists() else []
        )
        opts = ServeOptions(pace=FAST, **options)
        self.log: list[RequestLog] = []
        self.server = ReplayServer(
            load_recording(names, opts), options=opts, logger=self.log.append
        )
        self.base = base

    def url(self, scenario: str) -> str:
        return f"{self.server.url}/scenario/{scenario}"

    def body(self, kind: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(Path(f"{self.base}.{kind}.json").read_text())
        return data


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    started: list[Served] = []

    def start(project: str, case: str, **options: Any) -> Served:
        served = Served(project, case, **options)
        served.server.start()
        started.append(served)
        return served

    yield start
    for served in started:
        served.server.shutdown()


def _check_clean(result: dict[str, Any], requests: int) -> None:
    assert result["errors"] == []
    assert result["interruptErrors"] == []
    assert result["status"] == "ready"
    assert len(result["requests"]) == requests


@pytest.mark.parametrize(
    "name",
    [
        "tool-approval.approve",
        "two-approvals.approve-one-reject-other",
        "mixed.approve-and-resolve",
        "generic-two-cards.one-cancelled",
    ],
)
def test_the_real_client_sees_the_same_interrupts_and_resumes_into_run_two(
    name: str,
    serve: Callable[..., Served],
    native_server: NodeServer,
    run_client_native: RunClient,
) -> None:
    case: Case = BY_NAME[name]
    served = serve("native", name)
    against_agui = run_client_native(case.script(served.url(case.scenario)))
    against_real = run_client_native(case.script(native_server.url(case.scenario)))
    _check_clean(against_agui, 2)
    _check_clean(against_real, 2)
    assert against_agui["interruptsAfterRun1"], "no interrupt exposed"
    assert all(item["canResolve"] for item in against_agui["interruptsAfterRun1"])
    assert normalised_interrupts(against_agui) == normalised_interrupts(against_real)

    # The continuation agui received is the one the real server received, and agui
    # accepted it with recorded run 2, rebound to the client's new run id.
    first, resume = against_agui["requests"]
    assert resume["parentRunId"] == first["runId"]
    assert [entry.result for entry in served.log] == [Result.SERVED, Result.ACCEPTED]
    assert str(served.log[1].detail).startswith("run 2")
    run2 = parse_sse(against_agui["responses"][1])
    recorded = parse_sse(Path(f"{served.base}.run2.sse").read_text())
    assert [e["type"] for e in run2] == [e["type"] for e in recorded]
    assert all(e.get("runId", resume["runId"]) == resume["runId"] for e in run2)
    text = "".join(e["delta"] for e in run2 if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == case.final_text


def test_a_verbatim_recording_is_not_resolvable_by_the_real_client(
    serve: Callable[..., Served], run_client_native: RunClient
) -> None:
    # Why agui rewrites ids: bound to another run, the client will not resolve them.
    case = BY_NAME["tool-approval.approve"]
    served = serve("native", case.name, verbatim=True)
    result = run_client_native(case.script(served.url(case.scenario)) | {"answers": []})
    assert result["interruptsAfterRun1"]
    assert not any(item["canResolve"] for item in result["interruptsAfterRun1"])


def test_a_legacy_recording_served_native_has_resolvable_interrupts(
    serve: Callable[..., Served], run_client_native: RunClient
) -> None:
    legacy = LEGACY_BY_NAME["tool-approval.approve"]
    served = serve("legacy", legacy.name, native=True, tools=[TRANSFER_TOOL])
    script = BY_NAME["tool-approval.approve"].script(served.url("tool-approval"))
    result = run_client_native(script)
    _check_clean(result, 2)
    (item,) = result["interruptsAfterRun1"]
    assert (item["kind"], item["id"], item["canResolve"]) == ("tool-approval", TRANSFER_ID, True)
    first, resume = result["requests"]
    assert resume["parentRunId"] == first["runId"]
    assert resume["resume"] == [
        {"interruptId": TRANSFER_ID, "payload": {"approved": True}, "status": "resolved"}
    ]
    assert [entry.result for entry in served.log] == [Result.SERVED, Result.ACCEPTED]
    run2 = parse_sse(result["responses"][1])
    text = "".join(e["delta"] for e in run2 if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == legacy.final_text


# --------------------------------------------------------------------------- rejections


def _edit(kind: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Served], bytes]:
    def build(served: Served) -> bytes:
        body = copy.deepcopy(served.body(kind))
        change(body)
        return json.dumps(body).encode()

    return build


def _set_resume(entries: list[dict[str, Any]]) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        body["resume"] = entries

    return change


def _keep_first_entry(body: dict[str, Any]) -> None:
    body["resume"] = body["resume"][:1]


def _add_unknown(body: dict[str, Any]) -> None:
    body["resume"].append({"interruptId": "bogus", "status": "resolved", "payload": True})


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        del body[key]

    return change


def _drop_message_id(body: dict[str, Any]) -> None:
    del body["messages"][0]["id"]


REJECTIONS: list[tuple[str, str, Callable[[Served], bytes], str | int]] = [
    (
        "missing-item",
        "two-approvals.approve-both",
        _edit("resume", _keep_first_entry),
        "unknown-interrupt",
    ),
    ("unknown-id", "tool-approval.approve", _edit("resume", _add_unknown), "unknown-interrupt"),
    (
        "cancelled-with-payload",
        "tool-approval.approve",
        _edit(
            "resume",
            _set_resume([{"interruptId": TRANSFER_ID, "status": "cancelled", "payload": None}]),
        ),
        "invalid-payload",
    ),
    (
        "bad-payload",
        "tool-approval.approve",
        _edit(
            "resume",
            _set_resume([{"interruptId": TRANSFER_ID, "status": "resolved", "payload": "yes"}]),
        ),
        "invalid-payload",
    ),
    (
        "bad-edited-args",
        "tool-approval.approve",
        _edit(
            "resume",
            _set_resume(
                [
                    {
                        "interruptId": TRANSFER_ID,
                        "status": "resolved",
                        "payload": {"approved": True, "editedArgs": {"amount": "12"}},
                    }
                ]
            ),
        ),
        "invalid-edited-args",
    ),
    (
        "duplicate-entry",
        "tool-approval.approve",
        _edit(
            "resume",
            _set_resume([{"interruptId": TRANSFER_ID, "status": "resolved", "payload": True}] * 2),
        ),
        "conflict",
    ),
    (
        "missing-parentRunId",
        "tool-approval.approve",
        _edit("resume", _drop("parentRunId")),
        "stale",
    ),
    ("malformed-json", "tool-approval.approve", lambda served: b'{"threadId": ', 400),
    ("missing-tools", "tool-approval.approve", _edit("resume", _drop("tools")), 400),
    ("message-without-id", "tool-approval.approve", _edit("resume", _drop_message_id), 400),
    ("body-is-an-array", "tool-approval.approve", lambda served: b"[]", 400),
]


@pytest.mark.parametrize(
    ("label", "name", "build", "expected"), REJECTIONS, ids=[row[0] for row in REJECTIONS]
)
def test_agui_rejects_what_the_real_server_rejects_the_same_way(
    label: str,
    name: str,
    build: Callable[[Served], bytes],
    expected: str | int,
    serve: Callable[..., Served],
    native_server: NodeServer,
) -> None:
    served = serve("native", name)
    content = build(served)
    scenario = name.split(".", 1)[0]
    headers = {"Content-Type": "application/json"}
    with httpx.Client(timeout=15) as client:
        real = client.post(native_server.url(scenario), content=content, headers=headers)
        ours = client.post(served.url(scenario), content=content, headers=headers)
    assert ours.status_code == real.status_code
    if isinstance(expected, int):
        assert real.status_code == expected
        assert ours.text == real.text
        assert served.log[-1].result is Result.INVALID
        return
    assert real.status_code == 200
    assert ours.headers["content-type"] == real.headers["content-type"] == "text/event-stream"
    (real_event,) = parse_sse(real.text)
    (our_event,) = parse_sse(ours.text)
    assert real_event["code"] == expected
    real_event.pop("timestamp")
    our_event.pop("timestamp")
    assert our_event == real_event
    assert served.log[-1].code == expected


# --------------------------------------------------------------------------- agui resume


@pytest.mark.skipif(
    not (REPO_ROOT / "cli" / "resume_command.py").exists(), reason="agui resume not built yet"
)
def test_agui_resume_against_agui_serve_end_to_end(
    serve: Callable[..., Served], tmp_path: Path
) -> None:
    served = serve("native", "tool-approval.approve")
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cli.app import main; main()",
            "resume",
            "--from",
            f"{served.base}.run1.sse",
            "--approve",
            TRANSFER_ID,
            "--url",
            served.url("tool-approval"),
            "--no-input",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert [entry.result for entry in served.log] == [Result.ACCEPTED]
    events = [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]
    assert events[-1]["type"] == "RUN_FINISHED"
    assert "Done with the transfer." in "".join(
        e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"
    )
