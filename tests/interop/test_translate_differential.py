"""Randomised differential audit of `agui translate` against the real packages.

`test_translate_interop.py` proves a handful of fixed scenarios. Real apps mix more in one
turn, so here hypothesis draws whole scripted model turns — approval, client and plain
server tools (zod schemas, raw JSON Schemas, none) in any mix, text before and between
calls, earlier rounds of plain server tools, arguments with unicode (lone surrogates,
U+2028, control characters), nested and empty objects, `__proto__` keys and numbers such
as `1e21`, `-0`, `0.1`, `1e-7`, `2**53 + 1`, written by the model as raw
text or streamed in pieces — and plays each script on both real servers (the
`scripted` scenario reads it from `forwardedProps`, so one script is one turn on both).

For each script: the 0.42.0 legacy stream translated with `--tools` (exported from the
catalogue's own schemas the way the README documents) must carry the interrupts the
0.58.0 server emits for the same request — equal as JSON, key order included — and the
same conversation in its `MESSAGES_SNAPSHOT` (an assistant message's `createdAt` is a
clock reading: only its presence and form count); the translated stream must check
clean with `agui replay --check`; and `agui resume --from` it must build a continuation
the 0.58.0 server accepts.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from replay.interrupts.descriptors import ZOD_EXPORT
from replay.translate.translation import translate_stream
from replay.wire.problems import Problem
from tests.interop.harness import REPO_ROOT, NodeServer, NodeTools
from tests.interop.scripted import (
    APPROVAL_TOOLS,
    CLIENT_TOOLS,
    SCENARIO,
    SERVER_TOOLS,
    TURNS_KEY,
    deltas,
    texts,
    tool_call,
)

EXAMPLES = 30
RECORDINGS = REPO_ROOT / "tests" / "fixtures" / "recordings" / "legacy"

# The `scripted` scenario's tools file: zod schemas through the documented export, raw
# JSON Schemas as written (README "--tools FILE").
EXPORT_SCRIPT = """
import { z } from 'zod'
import { catalog } from './scenarios.mjs'
const exportSchema = (schema) => (schema['~standard'] ? (EXPORT) : schema)
const tools = catalog.scenarios['SCENARIO'].tools.map((def) => ({
  name: def.name,
  ...(def.needsApproval ? { needsApproval: true } : {}),
  ...(def.inputSchema ? { inputSchema: exportSchema(def.inputSchema) } : {}),
  ...(def.outputSchema ? { outputSchema: exportSchema(def.outputSchema) } : {}),
  client: !catalog.serverExecutors[def.name],
}))
process.stdout.write(JSON.stringify(tools))
"""

runner = CliRunner()
CLOCK = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

# -- scripts ------------------------------------------------------------------------


@st.composite
def turn(draw: st.DrawFn, index: int, *, pauses: bool) -> dict[str, Any]:
    """A model turn: plain server tools only (the server runs them and asks the model
    again), or a pausing turn with at least one approval or client tool."""
    if pauses:
        pausing = draw(
            st.lists(st.sampled_from(APPROVAL_TOOLS + CLIENT_TOOLS), min_size=1, max_size=3)
        )
        plain = draw(st.lists(st.sampled_from(SERVER_TOOLS), max_size=1))
        names = draw(st.permutations(pausing + plain))
    else:
        names = draw(st.lists(st.sampled_from(SERVER_TOOLS), min_size=1, max_size=2))
    calls = [
        draw(tool_call(name, f"call_{index}_{position}", between=position > 0))
        for position, name in enumerate(names)
    ]
    out: dict[str, Any] = {"toolCalls": calls}
    if draw(st.booleans()):
        out["text"] = draw(deltas)
    return out


@st.composite
def scripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """0 to 2 rounds of server tools, the pausing turn, then what the continuation plays:
    text, or a second pause."""
    rounds = draw(st.integers(0, 2))
    turns = [draw(turn(index, pauses=False)) for index in range(rounds)]
    turns.append(draw(turn(rounds, pauses=True)))
    if draw(st.booleans()):
        turns.append(draw(turn(rounds + 1, pauses=True)))
    turns.append({"text": draw(deltas)})
    return turns


# Earlier conversations as ai-client 0.22.1 posted them (the recorded legacy follow-ups):
# a client tool's result in the history. A legacy approval decision (`parts`) is left
# out: 0.58.0 ignores it and asks again (README "agui translate", package differences).
HISTORIES = {
    name: json.loads((RECORDINGS / f"{name}.resume.json").read_text("utf-8"))["messages"]
    for name in ("client-tool.auto", "client-tool.add-tool-result")
}


def request_body(
    thread: str, turns: list[dict[str, Any]], user_text: str, history: str | None = None
) -> dict[str, Any]:
    """The request, as ai-client 0.22.1 posts it (UIMessages with parts), after `history`:
    the model plays turn n = assistant messages so far, so each earlier assistant message
    gets a turn that is never played."""
    earlier = copy.deepcopy(HISTORIES[history]) if history else []
    played = sum(1 for message in earlier if message.get("role") == "assistant")
    return {
        "threadId": thread,
        "runId": f"run-{thread}",
        "state": {},
        "messages": [
            *earlier,
            {
                "id": f"msg-user-{thread}",
                "role": "user",
                "parts": [{"type": "text", "content": user_text}],
                "createdAt": "2026-12-01T10:00:00.000Z",
                "content": user_text,
            },
        ],
        "tools": [],
        "context": [],
        "forwardedProps": {TURNS_KEY: [{"text": ["(earlier)"]}] * played + turns},
        "data": {},
    }


# -- comparison ---------------------------------------------------------------------


def translated(
    body: bytes, request: dict[str, Any], tools: list[dict[str, Any]]
) -> tuple[bytes, list[Problem]]:
    out: list[bytes] = []
    notices: list[Problem] = []
    for piece in translate_stream([body], source="live", tools=tools, request=request):
        if isinstance(piece, Problem):
            notices.append(piece)
        else:
            out.append(piece)
    return b"".join(out), notices


def number(literal: str) -> list[str]:
    """A JSON number kept as written: `1e-7` and `1e-07` are one value but not one text,
    and translate must write what the native server writes."""
    return ["number", literal]


def exact_events(text: str) -> list[dict[str, Any]]:
    """The stream's events with every number as its literal text (`number`)."""
    events: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [
            line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")
        ]
        if data:
            events.append(json.loads("\n".join(data), parse_int=number, parse_float=number))
    return events


def terminal(events: list[dict[str, Any]]) -> dict[str, Any]:
    finish = events[-1]
    assert finish.get("type") == "RUN_FINISHED", finish
    assert finish.get("outcome"), finish
    return finish


def snapshot(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paused run's conversation; an assistant message's `createdAt` is a clock
    reading (0.58.0's when the message began, the legacy event's `timestamp` in a
    translation), so only its presence and form are compared."""
    found = [e for e in events if e.get("type") == "MESSAGES_SNAPSHOT"]
    assert found, "no MESSAGES_SNAPSHOT"
    messages = copy.deepcopy(found[-1]["messages"])
    for message in messages:
        tanstack = message.get("metadata", {}).get("tanstack", {})
        if message.get("role") == "assistant" and "createdAt" in tanstack:
            assert CLOCK.fullmatch(tanstack["createdAt"]), tanstack
            tanstack["createdAt"] = "<clock>"
    return messages


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def answers(interrupts: list[dict[str, Any]], approve: list[bool]) -> list[str]:
    """`agui resume` flags answering every item: approve or reject each approval (in
    turn by `approve`), a valid output for each client tool."""
    outputs = {
        "pick_color": {"color": "teal"},
        "rate": {"stars": 4},
        "ask_user": {"said": "ok"},
        "sign": {"signature": "ok"},
    }
    flags: list[str] = []
    for index, item in enumerate(interrupts):
        if item["reason"] == "tool_call":
            flags += ["--approve" if approve[index % len(approve)] else "--reject", item["id"]]
        else:
            output = outputs[item["metadata"]["toolName"]]
            flags += ["--answer", f"{item['id']}={json.dumps(output)}"]
    return flags


# -- fixtures -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def tools(interop_node: NodeTools, native_project: Path) -> list[dict[str, Any]]:
    script = EXPORT_SCRIPT.replace("EXPORT", ZOD_EXPORT).replace("SCENARIO", SCENARIO)
    done = subprocess.run(
        [interop_node.node, "--input-type=module", "-e", script],
        cwd=native_project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    exported: list[dict[str, Any]] = json.loads(done.stdout)
    assert {tool["name"] for tool in exported} == {
        *APPROVAL_TOOLS,
        *CLIENT_TOOLS,
        *SERVER_TOOLS,
    }
    return exported


def post(server: NodeServer, body: dict[str, Any]) -> str:
    # ASCII-escaped: a lone surrogate has no UTF-8 form, but `\\ud800` is valid JSON.
    reply = httpx.post(
        server.url(SCENARIO),
        content=json.dumps(body).encode("ascii"),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert reply.status_code == 200, reply.text
    return reply.text


# -- the audit ----------------------------------------------------------------------


def audit(
    number: int,
    turns: list[dict[str, Any]],
    user_text: str,
    approve: list[bool],
    history: str | None,
    *,
    tools: list[dict[str, Any]],
    native_server: NodeServer,
    legacy_server: NodeServer,
    workdir: Path,
) -> None:
    thread = f"diff-{number}"
    body = request_body(thread, turns, user_text, history)
    legacy = post(legacy_server, body)
    native = post(native_server, body)
    ours_bytes, _notices = translated(legacy.encode("utf-8"), body, tools)
    ours = exact_events(ours_bytes.decode("utf-8"))
    theirs = exact_events(native)
    script = json.dumps(turns, ensure_ascii=False)

    reasons = {item["reason"] for item in terminal(theirs)["outcome"]["interrupts"]}
    event(f"pause: {' + '.join(sorted(reasons))}")
    results = sum(1 for e in theirs if e["type"] == "TOOL_CALL_RESULT")
    event(f"server-tool results before the pause: {results}")

    ours_items = terminal(ours)["outcome"]["interrupts"]
    theirs_items = terminal(theirs)["outcome"]["interrupts"]
    assert json.dumps(ours_items) == json.dumps(theirs_items), script
    assert snapshot(ours) == snapshot(theirs), script
    assert types(ours) == types(theirs), script

    stream = workdir / f"{thread}.sse"
    stream.write_bytes(ours_bytes)
    (workdir / f"{thread}.request.json").write_text(json.dumps(body), encoding="utf-8")
    checked = runner.invoke(app, ["replay", "--check", str(stream)], env={})
    assert checked.exit_code == 0, (script, checked.stdout, checked.stderr)

    resumed = runner.invoke(
        app,
        [
            "resume",
            "--no-input",
            "--from",
            str(stream),
            *answers(ours_items, approve),
            "--url",
            native_server.url(SCENARIO),
            "--json",
        ],
        env={},
    )
    # 0: the run finished; 3: the script's next turn paused again.
    assert resumed.exit_code in (0, 3), (script, resumed.stdout, resumed.stderr)
    event(f"resume exit {resumed.exit_code}")
    events = [json.loads(line) for line in resumed.stdout.split("\n") if line]
    assert not [e for e in events if e["type"] == "RUN_ERROR"], script


def test_translate_equals_the_native_server_on_random_turns(
    tools: list[dict[str, Any]],
    native_server: NodeServer,
    legacy_server: NodeServer,
    tmp_path: Path,
) -> None:
    counter = iter(range(10**6))

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        turns=scripts(),
        user_text=texts,
        approve=st.lists(st.booleans(), min_size=1),
        history=st.sampled_from([None, *HISTORIES]),
    )
    def check(
        turns: list[dict[str, Any]], user_text: str, approve: list[bool], history: str | None
    ) -> None:
        audit(
            next(counter),
            turns,
            user_text,
            approve,
            history,
            tools=tools,
            native_server=native_server,
            legacy_server=legacy_server,
            workdir=tmp_path,
        )

    check()
