"""End-to-end checks of the interop test bed: real servers, real clients, every scenario.

These assert the wire facts agui relies on (reference §2, §4, §6): a native pause is
MESSAGES_SNAPSHOT + RUN_FINISHED with an interrupt outcome, the continuation carries
parentRunId and resume, and the legacy server emits CUSTOM events after RUN_FINISHED.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.interop.cases import LEGACY_CASES, NATIVE_CASES, Case, fixture_files
from tests.interop.harness import (
    LEGACY_SCENARIOS,
    NATIVE_SCENARIOS,
    REPO_ROOT,
    NodeServer,
    parse_sse,
)

pytestmark = pytest.mark.interop

RunClient = Callable[[dict[str, Any]], dict[str, Any]]
RECORDINGS = REPO_ROOT / "tests" / "fixtures" / "recordings"
BINDING = "tanstack:interruptBinding"


def _descriptor_key(descriptor: dict[str, Any]) -> tuple[str, str]:
    binding = descriptor["metadata"][BINDING]
    return binding["kind"], binding.get("definitionId", descriptor["id"])


def _exposed_key(item: dict[str, Any]) -> tuple[str, str]:
    return item["kind"], item.get("definitionId", item["id"])


def _text(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def _tool_results(events: list[dict[str, Any]]) -> dict[str, str]:
    return {e["toolCallId"]: e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"}


def _drive(case: Case, server: NodeServer, run: RunClient) -> dict[str, Any]:
    result = run(case.script(server.url(case.scenario)))
    assert result["errors"] == []
    assert result["interruptErrors"] == []
    assert result["status"] == "ready"
    expected_requests = 2 if case.pauses else 1
    assert len(result["requests"]) == expected_requests
    assert len(result["responses"]) == expected_requests
    # What the client says it posted is what the server received.
    assert server.requests(case.thread_id)[-expected_requests:] == result["requests"]
    return result


def _check_first_request(case: Case, body: dict[str, Any]) -> None:
    assert body["threadId"] == case.thread_id
    assert "parentRunId" not in body
    assert "resume" not in body
    assert isinstance(body["tools"], list)
    assert body["context"] == []
    assert body["messages"][-1]["content"] == f"Please run the {case.scenario} scenario."


def _check_final_run(case: Case, events: list[dict[str, Any]], run_id: str) -> None:
    finished = [e for e in events if e["type"] == "RUN_FINISHED"]
    assert finished, "the last run never finished"
    last = events[-1]
    assert last["type"] == "RUN_FINISHED"
    assert last["runId"] == run_id
    assert last.get("outcome", {"type": "success"})["type"] == "success"
    assert _text(events) == case.final_text
    assert _tool_results(events) == case.tool_results


@pytest.mark.parametrize("case", NATIVE_CASES, ids=lambda c: c.name)
def test_native_case_end_to_end(
    case: Case, native_server: NodeServer, run_client_native: RunClient
) -> None:
    result = _drive(case, native_server, run_client_native)
    first = result["requests"][0]
    _check_first_request(case, first)
    run1 = parse_sse(result["responses"][0])
    assert all(e.get("threadId", case.thread_id) == case.thread_id for e in run1)

    if not case.pauses:
        _check_final_run(case, run1, first["runId"])
        assert result["interruptsAfterRun1"] == []
        return

    # Native pause: ... MESSAGES_SNAPSHOT, RUN_FINISHED{outcome: interrupt}.
    assert [e["type"] for e in run1[-2:]] == ["MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    terminal = run1[-1]
    assert terminal["runId"] == first["runId"]
    assert terminal["metadata"]["tanstack"]["finishReason"] == "tool_calls"
    outcome = terminal["outcome"]
    assert outcome["type"] == "interrupt"
    descriptors = outcome["interrupts"]
    assert [_descriptor_key(d) for d in descriptors] == list(case.descriptors)
    for descriptor in descriptors:
        binding = descriptor["metadata"][BINDING]
        assert binding["interruptId"] == descriptor["id"]
        assert binding["interruptedRunId"] == first["runId"]
        assert binding["generation"] == 0
    assert not any(e["type"] == "CUSTOM" for e in run1)

    # What the real client exposes (client-tool items are never public).
    exposed = result["interruptsAfterRun1"]
    assert [_exposed_key(item) for item in exposed] == list(case.exposed)
    assert all(item["canResolve"] and item["status"] == "pending" for item in exposed)
    assert result["interruptsAfterAnswers"] == []

    # The continuation: same thread, fresh run, parentRunId + resume.
    resume_body = result["requests"][1]
    assert resume_body["threadId"] == case.thread_id
    assert resume_body["runId"] != first["runId"]
    assert resume_body["parentRunId"] == first["runId"]
    keys = {d["id"]: _descriptor_key(d) for d in descriptors}
    entries = [
        (keys[e["interruptId"]][1], e["status"], e.get("payload")) for e in resume_body["resume"]
    ]
    assert sorted(entries, key=repr) == sorted(case.resume, key=repr)
    for entry in resume_body["resume"]:
        kind, definition_id = keys[entry["interruptId"]]
        if kind == "generic":
            continuation = entry["metadata"]["tanstack:interruptContinuation"]
            assert continuation["definitionId"] == definition_id
        else:
            assert "metadata" not in entry

    run2 = parse_sse(result["responses"][1])
    _check_final_run(case, run2, resume_body["runId"])
    # Tool results of the resumed tools come before the continuation's RUN_STARTED.
    types = [e["type"] for e in run2]
    if "TOOL_CALL_RESULT" in types:
        assert types.index("TOOL_CALL_RESULT") < types.index("RUN_STARTED")


@pytest.mark.parametrize("case", LEGACY_CASES, ids=lambda c: c.name)
def test_legacy_case_end_to_end(
    case: Case, legacy_server: NodeServer, run_client_legacy: RunClient
) -> None:
    result = _drive(case, legacy_server, run_client_legacy)
    first = result["requests"][0]
    _check_first_request(case, first)
    run1 = parse_sse(result["responses"][0])

    if not case.pauses:
        _check_final_run(case, run1, first["runId"])
        return

    # Legacy: RUN_FINISHED (top-level finishReason, no outcome) THEN the CUSTOM events.
    types = [e["type"] for e in run1]
    finished_at = types.index("RUN_FINISHED")
    finished = run1[finished_at]
    assert finished["finishReason"] == "tool_calls"
    assert "outcome" not in finished
    trailing = run1[finished_at + 1 :]
    assert [e["type"] for e in trailing] == ["CUSTOM"] * len(case.custom_events)
    assert [e["name"] for e in trailing] == list(case.custom_events)
    assert "MESSAGES_SNAPSHOT" not in types
    for event in trailing:
        value = event["value"]
        assert value["toolCallId"].startswith("call_")
        if event["name"] == "approval-requested":
            assert value["approval"] == {
                "id": f"approval_{value['toolCallId']}",
                "needsApproval": True,
            }

    # The legacy follow-up: same thread, new run, no parentRunId, no resume.
    follow_up = result["requests"][1]
    assert follow_up["threadId"] == case.thread_id
    assert follow_up["runId"] != first["runId"]
    assert "parentRunId" not in follow_up
    assert "resume" not in follow_up

    run2 = parse_sse(result["responses"][1])
    assert run2[-1]["type"] == "RUN_FINISHED"
    assert run2[-1]["runId"] == follow_up["runId"]
    assert _text(run2) == case.final_text
    assert _tool_results(run2) == case.tool_results


def test_generic_expiring_descriptor_has_expires_at(
    native_server: NodeServer, run_client_native: RunClient
) -> None:
    case = next(c for c in NATIVE_CASES if c.scenario == "generic-expiring")
    result = run_client_native({**case.script(native_server.url(case.scenario)), "answers": []})
    (descriptor,) = parse_sse(result["responses"][0])[-1]["outcome"]["interrupts"]
    assert descriptor["expiresAt"] == "2099-01-01T00:00:00.000Z"
    assert descriptor["metadata"][BINDING]["expiresAt"] == "2099-01-01T00:00:00.000Z"
    (item,) = result["interruptsAfterRun1"]
    assert item["expiresAt"] == "2099-01-01T00:00:00.000Z"
    # No answer given: nothing was posted after run 1 and the item is still pending.
    assert len(result["requests"]) == 1
    assert [i["status"] for i in result["interruptsAfterAnswers"]] == ["pending"]


def test_generic_two_cards_share_one_batch(
    native_server: NodeServer, run_client_native: RunClient
) -> None:
    case = next(c for c in NATIVE_CASES if c.scenario == "generic-two-cards")
    result = run_client_native({**case.script(native_server.url(case.scenario)), "answers": []})
    descriptors = parse_sse(result["responses"][0])[-1]["outcome"]["interrupts"]
    bindings = [d["metadata"][BINDING] for d in descriptors]
    assert [b["definitionId"] for b in bindings] == ["review-plan", "choose-audience"]
    assert [b["batchIndex"] for b in bindings] == [0, 1]
    assert len({d["id"] for d in descriptors}) == 2


def test_mixed_batch_orders_approval_before_generic(
    native_server: NodeServer, run_client_native: RunClient
) -> None:
    case = next(c for c in NATIVE_CASES if c.scenario == "mixed")
    result = run_client_native({**case.script(native_server.url(case.scenario)), "answers": []})
    descriptors = parse_sse(result["responses"][0])[-1]["outcome"]["interrupts"]
    assert [d["reason"] for d in descriptors] == ["tool_call", "review-required"]
    # batchIndex counts the approval too (reference §2.4).
    assert descriptors[1]["metadata"][BINDING]["batchIndex"] == 1


def test_partial_answer_sends_nothing(
    native_server: NodeServer, run_client_native: RunClient
) -> None:
    """Auto-submit waits for the whole batch: one of two approvals answered posts nothing."""
    case = next(c for c in NATIVE_CASES if c.name == "two-approvals.approve-both")
    script = {**case.script(native_server.url(case.scenario)), "answers": [case.answers[0]]}
    script["threadId"] = "thread-two-approvals.partial"
    result = run_client_native(script)
    assert len(result["requests"]) == 1
    statuses = {i["id"]: i["status"] for i in result["interruptsAfterAnswers"]}
    assert statuses == {"approval_call_transfer_1": "staged", "approval_call_delete_1": "pending"}


def test_server_rejects_invalid_body_and_logs_it(native_server: NodeServer) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        native_server.url("plain"),
        data=b'{"threadId": "thread-invalid-body"}',
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(request, timeout=10)
    error = excinfo.value
    body = error.read()
    error.close()
    assert error.code == 400
    assert body == b"Invalid AG-UI request body. See docs/migration/ag-ui-compliance.md."
    assert native_server.requests("thread-invalid-body") == [{"threadId": "thread-invalid-body"}]


def test_static_responses_replay_without_network(run_client_native: RunClient) -> None:
    """staticResponses: the native client reads a legacy 0.42.0 stream from a file."""
    sse = RECORDINGS / "legacy" / "tool-approval.approve.run1.sse"
    result = run_client_native(
        {
            "url": "http://127.0.0.1:9/never-contacted",
            "threadId": "thread-static",
            "tools": "tool-approval",
            "staticResponses": [str(sse)],
        }
    )
    assert result["responses"] == [sse.read_text(encoding="utf-8")]
    assert result["requests"][0]["threadId"] == "thread-static"
    assert result["errors"] == []
    # The 0.33.2 legacy reader never turns legacy events into interrupts (reference §6.3) ...
    assert result["interruptsAfterRun1"] == []
    # ... but marks the tool call as awaiting approval.
    parts = [p for m in result["messages"] for p in m["parts"] if p["type"] == "tool-call"]
    assert [(p["id"], p["state"]) for p in parts] == [("call_transfer_1", "approval-requested")]


def test_every_scenario_is_covered() -> None:
    assert {c.scenario for c in NATIVE_CASES} == set(NATIVE_SCENARIOS)
    assert {c.scenario for c in LEGACY_CASES} == set(LEGACY_SCENARIOS)


def test_manifest_lists_every_case() -> None:
    manifest = json.loads((RECORDINGS / "MANIFEST.json").read_text(encoding="utf-8"))
    expected = sorted(f for case in (*NATIVE_CASES, *LEGACY_CASES) for f in fixture_files(case))
    assert manifest["files"] == expected


def _manifest_files() -> list[str]:
    path = RECORDINGS / "MANIFEST.json"
    return json.loads(path.read_text(encoding="utf-8"))["files"] if path.is_file() else []


@pytest.mark.parametrize("name", _manifest_files())
def test_recorded_fixture_exists(name: str) -> None:
    path = RECORDINGS / name
    assert path.is_file(), f"{name} is missing: run `python tests/interop/record.py`"
    text = path.read_text(encoding="utf-8")
    if name.endswith(".sse"):
        assert parse_sse(text), f"{name} holds no events"
    else:
        json.loads(text)


def test_recordings_folder_has_no_strays() -> None:
    listed = set(_manifest_files())
    present = {
        str(p.relative_to(RECORDINGS))
        for p in Path(RECORDINGS).rglob("*")
        if p.is_file() and p.name != "MANIFEST.json"
    }
    assert present == listed
