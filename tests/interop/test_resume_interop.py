"""`agui resume` against the real @tanstack/ai 0.58.0 server over HTTP.

For every recorded native case, `agui resume --from <run-1 recording>` with the flags
matching the real client's answers posts the body the real `ChatClient` posted
(ignoring run ids and `createdAt`), and the server accepts it with the right effect.
Local refusals are checked against the server's request log: nothing arrives.
"""

from __future__ import annotations

import copy
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.interop.cases import NATIVE_CASES, Case
from tests.interop.harness import NodeServer, parse_sse

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
PLAN_OK = '{"approved":true,"note":"Looks good"}'
FLAGS: dict[str, tuple[str, ...]] = {
    "tool-approval.approve": ("--approve", "transfer"),
    "tool-approval.approve-edited": ("--edit", 'transfer={"amount":12,"recipient":"Ada"}'),
    "tool-approval.reject": ("--reject", "transfer"),
    "tool-approval.cancel": ("--cancel", "transfer"),
    "tool-approval-schema.reject": ("--reject", "transfer", "--payload", '{"reason":"limit"}'),
    "client-tool.add-tool-result": ("--answer", 'pick_color={"color":"green"}'),
    "client-tool.auto": ("--answer", 'pick_color={"color":"blue"}'),
    "generic-before-model.resolved": ("--answer", f"review-plan={PLAN_OK}"),
    "generic-before-model.rejected": ("--reject", "review-plan"),
    "generic-before-model.cancelled": ("--cancel", "review-plan"),
    "generic-after-model.resolved": ("--answer", f"review-plan={PLAN_OK}"),
    "generic-before-tools.resolved": ("--answer", f"review-plan={PLAN_OK}"),
    "generic-after-tools.resolved": ("--answer", f"review-plan={PLAN_OK}"),
    "generic-two-cards.one-cancelled": (
        "--answer",
        f"review-plan={PLAN_OK}",
        "--cancel",
        "choose-audience",
    ),
    "generic-expiring.resolved": ("--answer", f"review-plan={PLAN_OK}"),
    "mixed.approve-and-resolve": ("--approve", "transfer", "--answer", f"review-plan={PLAN_OK}"),
    "two-approvals.approve-both": ("--approve-all",),
    "two-approvals.approve-one-reject-other": ("--approve", "transfer", "--reject", "delete_file"),
}
PAUSED_CASES = [case for case in NATIVE_CASES if case.pauses]
runner = CliRunner()


def agui(*args: str) -> Any:
    return runner.invoke(app, ["resume", "--no-input", *args], env={})


def comparable(body: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body.pop("runId", None)
    for message in body.get("messages", []):
        message.get("metadata", {}).get("tanstack", {}).pop("createdAt", None)
    return body


def test_every_paused_case_has_flags() -> None:
    assert {case.name for case in PAUSED_CASES} == set(FLAGS)


@pytest.mark.parametrize("case", PAUSED_CASES, ids=lambda case: case.name)
def test_resume_posts_the_clients_body_and_the_server_accepts_it(
    case: Case, native_server: NodeServer
) -> None:
    run_id = f"run-agui-{case.name}"
    result = agui(
        "--from",
        str(NATIVE / f"{case.name}.run1.sse"),
        *FLAGS[case.name],
        "--url",
        native_server.url(case.scenario),
        "--new-run-id",
        run_id,
        "--json",
    )
    cancelled_all = all(status == "cancelled" for _id, status, _payload in case.resume)
    assert result.exit_code == (4 if cancelled_all else 0), result.stderr
    posted = [b for b in native_server.requests(case.thread_id) if b.get("runId") == run_id]
    assert len(posted) == 1
    expected = json.loads((NATIVE / f"{case.name}.resume.json").read_text(encoding="utf-8"))
    assert comparable(posted[0]) == comparable(expected)

    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [event["type"] for event in events]
    assert "RUN_ERROR" not in types
    assert types[-1] == "RUN_FINISHED"
    results = {e["toolCallId"]: e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"}
    for call_id, content in case.tool_results.items():
        assert results.get(call_id) == content  # e.g. the tool ran with the edited args
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == case.final_text  # a rejected plan stops: no model turn at all


def _thread_requests(server: NodeServer, thread_id: str) -> int:
    return len(server.requests(thread_id))


def _plan_binding() -> dict[str, Any]:
    run1 = (NATIVE / "generic-before-model.resolved.run1.sse").read_text(encoding="utf-8")
    terminal = parse_sse(run1)[-1]
    descriptor = terminal["outcome"]["interrupts"][0]
    binding: dict[str, Any] = descriptor["metadata"]["tanstack:interruptBinding"]
    return binding


def _hand_built_item(tmp_path: Path, **overrides: Any) -> Path:
    binding = _plan_binding()
    item = {
        "id": "generic-1",
        "definitionId": "review-plan",
        "key": "turn-1",
        "batchIndex": 0,
        "reason": "review",
        "message": "Review the plan",
        "responseSchemaHash": binding["responseSchemaHash"],
        "payloadSchemaHash": binding["payloadSchemaHash"],
        "payload": {"title": "Release plan", "changes": ["Add search"]},
    }
    item.update(overrides)
    path = tmp_path / "items.json"
    path.write_text(json.dumps([item]), encoding="utf-8")
    return path


def _messages(tmp_path: Path) -> Path:
    path = tmp_path / "messages.json"
    user = {"id": "msg-user-1", "role": "user", "content": "Please review."}
    path.write_text(json.dumps([user]), encoding="utf-8")
    return path


def test_hand_built_generic_item_is_accepted(tmp_path: Path, native_server: NodeServer) -> None:
    thread = "thread-agui-hand-built"
    result = agui(
        "--thread-id", thread, "--run-id", "run-hand-1",
        "--items", str(_hand_built_item(tmp_path)),
        "--messages", str(_messages(tmp_path)),
        "--answer", f"generic-1={PLAN_OK}",
        "--url", native_server.url("generic-before-model"),
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events][-1] == "RUN_FINISHED"
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Plan reviewed, continuing."
    (posted,) = native_server.requests(thread)
    assert posted["parentRunId"] == "run-hand-1"


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        (
            "missing-item",
            ("--from", "two-approvals.approve-both", "--approve", "transfer"),
            "approval_call_delete_1 (Approval required to run delete_file) is unanswered",
        ),
        (
            "bad-payload",
            ("--from", "generic-before-model.resolved", "--answer", 'review-plan={"approved":1}'),
            "Invalid input: expected boolean, received number (at approved) [invalid-payload]",
        ),
        (
            "wrong-schema-hash",
            ("--items", "wrong-hash", "--answer", "generic-1={}"),
            "response schema no longer matches its binding. [invalid-response-schema]",
        ),
        (
            "expired",
            ("--items", "expired", "--answer", f"generic-1={PLAN_OK}"),
            "Interrupt generic-1 has expired. [expired]",
        ),
    ],
)
def test_local_refusals_send_nothing(
    name: str, args: tuple[str, ...], message: str, tmp_path: Path, native_server: NodeServer
) -> None:
    thread = f"thread-agui-refused-{name}"
    argv = list(args)
    if argv[0] == "--from":
        argv[1] = str(NATIVE / f"{argv[1]}.run1.sse")
        scenario = args[1].split(".")[0]
        recorded_thread = f"thread-{args[1]}"
    else:
        overrides: dict[str, Any] = (
            {"responseSchema": {"type": "object"}}
            if argv[1] == "wrong-hash"
            else {"expiresAt": "2000-01-01T00:00:00.000Z"}
        )
        argv[1] = str(_hand_built_item(tmp_path, **overrides))
        argv = ["--thread-id", thread, "--run-id", "run-hand-2", *argv]
        scenario, recorded_thread = "generic-before-model", thread
    before = _thread_requests(native_server, recorded_thread)
    result = agui(*argv, "--url", native_server.url(scenario))
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr
    assert _thread_requests(native_server, recorded_thread) == before


def test_no_validate_surfaces_the_servers_run_error(
    tmp_path: Path, native_server: NodeServer
) -> None:
    thread = "thread-agui-no-validate"
    items = _hand_built_item(tmp_path, responseSchemaHash="sha256:" + "0" * 64)
    result = agui(
        "--thread-id", thread, "--run-id", "run-hand-3", "--items", str(items),
        "--answer", f"generic-1={PLAN_OK}", "--no-validate",
        "--url", native_server.url("generic-before-model"),
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    assert "RUN_ERROR [stale]" in result.stderr
    assert "does not match its definition" in result.stderr
    assert "batch -: stale:" in result.stderr
    assert len(native_server.requests(thread)) == 1


def test_walkthrough_record_resume_and_record_again(
    tmp_path: Path, native_server: NodeServer
) -> None:
    """Record a paused run, resume it with `--approve transfer`, record the continuation."""
    thread = "thread-agui-walkthrough"
    first = json.loads((NATIVE / "tool-approval.approve.request.json").read_text())
    first.update(threadId=thread, runId="run-walk-1")
    request = urllib.request.Request(
        native_server.url("tool-approval"),
        data=json.dumps(first).encode(),
        headers={"Content-Type": "application/json", "X-Run-Id": "run-walk-1"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        (tmp_path / "run.sse").write_bytes(response.read())
    (tmp_path / "run.request.json").write_text(json.dumps(first))

    result = runner.invoke(
        app,
        [
            "resume", "--from", str(tmp_path / "run.sse"), "--approve", "transfer",
            "--url", native_server.url("tool-approval"), "--record", str(tmp_path / "out.sse"),
        ],
        env={},
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "Done with the transfer." in result.stdout
    resumed = native_server.requests(thread)[-1]
    assert resumed["parentRunId"] == "run-walk-1"
    assert resumed["tools"] == first["tools"]
    events = parse_sse((tmp_path / "out.sse").read_text(encoding="utf-8"))
    assert events[0] == {
        **events[0],
        "type": "TOOL_CALL_RESULT",
        "content": '{"receiptId":"rcpt_Ada_42"}',
    }
    assert json.loads((tmp_path / "out.request.json").read_text()) == resumed
    # The recorded continuation replays as a finished exchange: nothing left to resume.
    again = agui("--from", str(tmp_path / "out.sse"), "--approve-all", "--dry-run")
    assert again.exit_code == 2
    assert "no paused run to resume" in again.stderr


def test_walkthrough_resumes_a_recorded_continuation_that_paused_again(
    tmp_path: Path, native_server: NodeServer
) -> None:
    """Resume a pause, record the continuation (which pauses again), resume from that file."""
    thread = "thread-agui-chained"
    url = native_server.url("chained-approvals")
    first = json.loads((NATIVE / "two-approvals.approve-both.request.json").read_text())
    first.update(threadId=thread, runId="run-chain-1")
    request = urllib.request.Request(
        url,
        data=json.dumps(first).encode(),
        headers={"Content-Type": "application/json", "X-Run-Id": "run-chain-1"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        (tmp_path / "run.sse").write_bytes(response.read())
    (tmp_path / "run.request.json").write_text(json.dumps(first))

    second = agui(
        "--from", str(tmp_path / "run.sse"), "--approve", "transfer",
        "--url", url, "--record", str(tmp_path / "next.sse"),
    )  # fmt: skip
    assert second.exit_code == 3, second.stderr
    assert "Now the clean-up." in second.stdout
    assert "agui resume --from" in second.stderr
    assert "next.sse" in second.stderr

    third = agui("--from", str(tmp_path / "next.sse"), "--approve", "delete_file", "--url", url)
    assert third.exit_code == 0, third.stderr
    assert "All done." in third.stdout
    posted = native_server.requests(thread)
    assert [body.get("parentRunId") for body in posted] == [
        None,
        "run-chain-1",
        posted[1]["runId"],
    ]
    assert [entry["interruptId"] for entry in posted[2]["resume"]] == ["approval_call_delete_1"]


def _record_first_run(tmp_path: Path, server: NodeServer, thread: str, run_id: str) -> Path:
    """POST the recorded first request to the real server and save run.sse + its request."""
    first = json.loads((NATIVE / "tool-approval.approve.request.json").read_text())
    first.update(threadId=thread, runId=run_id)
    request = urllib.request.Request(
        server.url("tool-approval"),
        data=json.dumps(first).encode(),
        headers={"Content-Type": "application/json", "X-Run-Id": run_id},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        (tmp_path / "run.sse").write_bytes(response.read())
    (tmp_path / "run.request.json").write_text(json.dumps(first))
    return tmp_path / "run.sse"


def test_a_run_already_resumed_is_refused_unless_forced(
    tmp_path: Path, native_server: NodeServer
) -> None:
    """The real server executes an approved tool again when a run is answered twice."""
    thread = "thread-agui-answered-twice"
    url = native_server.url("tool-approval")
    run = _record_first_run(tmp_path, native_server, thread, "run-twice-1")
    cont = tmp_path / "cont.sse"
    first = agui("--from", str(run), "--approve", "transfer", "--url", url, "--record", str(cont))
    assert first.exit_code == 0, first.stderr
    assert len(native_server.requests(thread)) == 2

    for args in (("--approve-all",), ("--run-id", "run-twice-1", "--approve", "transfer")):
        again = agui("--from", str(run), "--from", str(cont), *args, "--url", url)
        assert again.exit_code == 2, again.stderr
        assert "run-twice-1 was already resumed by run " in again.stderr
        assert "cont.sse" in again.stderr
        assert len(native_server.requests(thread)) == 2  # nothing was sent

    forced = agui("--from", str(run), "--from", str(cont), "--approve-all", "--force",
                  "--url", url, "--json")  # fmt: skip
    assert forced.exit_code == 0, forced.stderr
    results = [e for e in map(json.loads, forced.stdout.splitlines())
               if e["type"] == "TOOL_CALL_RESULT"]  # fmt: skip
    assert [e["toolCallId"] for e in results] == ["call_transfer_1"]  # executed a second time
    assert len(native_server.requests(thread)) == 3


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_an_approval_without_its_tool_call_in_the_history_is_refused_locally(
    tmp_path: Path, native_server: NodeServer
) -> None:
    """The server rebuilds the batch from the history: no call, `unknown-interrupt`."""
    url = native_server.url("tool-approval")
    base = ("--run-id", "run-hand-approval", "--approve", "approval_call_transfer_1", "--url", url)
    refused = agui("--thread-id", "thread-agui-no-history", *base)
    assert refused.exit_code == 2
    assert (
        "refused approval_call_transfer_1: the history has no assistant tool call "
        "`call_transfer_1`" in refused.stderr
    )
    assert "pass --messages" in refused.stderr
    assert native_server.requests("thread-agui-no-history") == []
    # What the server says to the same request, sent anyway:
    sent = agui("--thread-id", "thread-agui-no-history", *base, "--no-validate")
    assert sent.exit_code == 1
    assert "RUN_ERROR [unknown-interrupt]" in sent.stderr
    assert "Resume entry references unknown interrupt approval_call_transfer_1." in sent.stderr


def test_exported_items_and_messages_make_a_hand_built_resume_the_server_accepts(
    tmp_path: Path, native_server: NodeServer
) -> None:
    run1 = NATIVE / "tool-approval.approve.run1.sse"
    files = {}
    for what in ("items", "messages"):
        exported = runner.invoke(app, ["replay", "--export", what, str(run1)], env={})
        assert exported.exit_code == 0, exported.stderr
        files[what] = tmp_path / f"{what}.json"
        files[what].write_text(exported.stdout, encoding="utf-8")
    assert "--thread-id thread-tool-approval.approve --run-id run-" in exported.stderr
    recorded = json.loads((NATIVE / "tool-approval.approve.resume.json").read_text())
    # A new thread on the server, the same history and interrupts as the recording.
    thread = "thread-agui-exported"
    result = agui(
        "--thread-id", thread, "--run-id", recorded["parentRunId"],
        "--items", str(files["items"]), "--messages", str(files["messages"]),
        "--request", str(NATIVE / "tool-approval.approve.request.json"),
        "--approve", "transfer", "--url", native_server.url("tool-approval"),
        "--new-run-id", "run-agui-exported", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    (posted,) = native_server.requests(thread)
    assert comparable({**posted, "threadId": recorded["threadId"]}) == comparable(recorded)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"] == [
        '{"receiptId":"rcpt_Ada_42"}'
    ]
    # Plain entries (no --items) are accepted too, once the history has the call.
    plain = agui(
        "--thread-id", "thread-agui-exported-plain", "--run-id", recorded["parentRunId"],
        "--messages", str(files["messages"]), "--approve", "approval_call_transfer_1",
        "--url", native_server.url("tool-approval"), "--json",
    )  # fmt: skip
    assert plain.exit_code == 0, plain.stderr
    assert '"type":"TOOL_CALL_RESULT"' in plain.stdout


@pytest.mark.parametrize(
    ("drop", "field"),
    [
        (("responseSchemaHash",), "responseSchemaHash is missing"),
        (("payloadSchemaHash",), "payloadSchemaHash is missing"),
    ],
)
def test_generic_items_missing_a_hash_are_refused_naming_it(
    drop: tuple[str, ...], field: str, tmp_path: Path, native_server: NodeServer
) -> None:
    items = _hand_built_item(tmp_path)
    data = json.loads(items.read_text())
    for key in drop:
        data[0].pop(key)
    items.write_text(json.dumps(data))
    thread = f"thread-agui-no-{drop[0]}"
    base = (
        "--thread-id", thread, "--run-id", "run-hand-4", "--items", str(items),
        "--messages", str(_messages(tmp_path)), "--answer", f"generic-1={PLAN_OK}",
        "--url", native_server.url("generic-before-model"),
    )  # fmt: skip
    refused = agui(*base)
    assert refused.exit_code == 2
    assert f"item 0: {field} (" in refused.stderr
    assert "definition review-plan" in refused.stderr
    assert "does not accept a payload" not in refused.stderr
    assert native_server.requests(thread) == []
    sent = agui(*base, "--no-validate")
    assert sent.exit_code == 1
    assert "does not match its definition" in sent.stderr


def test_the_readme_hand_built_example_is_accepted(native_server: NodeServer) -> None:
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    assert "--items examples/items.json --messages examples/messages.json" in readme
    result = agui(
        "--thread-id", "thread-1", "--run-id", "run-1",
        "--items", str(EXAMPLES / "items.json"), "--messages", str(EXAMPLES / "messages.json"),
        "--answer", 'generic-1={"approved":true}',
        "--url", native_server.url("generic-before-model"), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    text = "".join(
        e["delta"] for e in map(json.loads, result.stdout.splitlines())
        if e["type"] == "TEXT_MESSAGE_CONTENT"
    )  # fmt: skip
    assert text == "Plan reviewed, continuing."


def test_a_continuation_the_server_refused_leaves_the_run_to_answer(
    tmp_path: Path, native_server: NodeServer
) -> None:
    thread = "thread-agui-refused-then-retried"
    url = native_server.url("tool-approval")
    run = _record_first_run(tmp_path, native_server, thread, "run-retry-1")
    bad = tmp_path / "bad.sse"
    refused = agui("--from", str(run), "--answer", 'transfer="yes"', "--no-validate",
                   "--url", url, "--record", str(bad))  # fmt: skip
    assert refused.exit_code == 1, refused.stderr
    assert "RUN_ERROR [invalid-payload]" in refused.stderr
    assert bad.exists()
    retried = agui("--from", str(run), "--from", str(bad), "--approve", "transfer",
                   "--url", url, "--json")  # fmt: skip
    assert retried.exit_code == 0, retried.stderr
    assert '"content":"{\\"receiptId\\":\\"rcpt_Ada_42\\"}"' in retried.stdout
    assert len(native_server.requests(thread)) == 3


def test_a_legacy_server_that_pauses_again_is_named_with_the_bridge(
    legacy_server: NodeServer,
) -> None:
    """The real 0.42.0 server ignores `resume` and streams the legacy approval again:
    agui says so and names the bridge, not `agui translate` (which cannot help here)."""
    result = agui(
        "--from",
        str(NATIVE / "tool-approval.approve.run1.sse"),
        "--approve",
        "transfer",
        "--url",
        legacy_server.url("tool-approval"),
    )
    assert result.exit_code == 1, result.stderr
    assert "legacy approval event 'approval-requested'" in result.stderr
    assert (
        "agui:   the server paused again with legacy approval events: a legacy TanStack"
        " server (@tanstack/ai <= 0.42.0) ignores `resume`; post the continuation through"
        " `agui proxy --native --upstream URL` instead\n"
    ) in result.stderr
    assert result.stdout.startswith("== ")


def test_an_edit_of_a_pause_translated_without_tools_reaches_the_server(
    tmp_path: Path, native_server: NodeServer
) -> None:
    """Translated without --tools, the approval carries no responseSchema: agui cannot
    know the tool's input schema, and the real server (which has it) runs the edit."""
    legacy = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "legacy"
    paused = tmp_path / "paused.sse"
    translated = runner.invoke(
        app,
        [
            "translate",
            str(legacy / "tool-approval.approve.run1.sse"),
            "--request",
            str(legacy / "tool-approval.approve.request.json"),
            "-o",
            str(paused),
        ],
    )
    assert translated.exit_code == 0, translated.stderr
    result = agui(
        "--from",
        str(paused),
        "--edit",
        'transfer={"amount":7,"recipient":"Bo"}',
        "--url",
        native_server.url("tool-approval"),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    results = [e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ['{"receiptId":"rcpt_Bo_7"}']
