"""Randomised differential audit of `agui resume` (and `replay --serve`) against the real client.

`test_resume_interop.py` proves fixed cases. Real pauses mix more, so hypothesis draws a
scripted pause on the real 0.58.0 server — several approvals and client tools in one
turn, generic `review-plan` / `choose-audience` interrupts at a drawn boundary phase next
to them, tool call ids that sort differently by `localeCompare` and by code unit — and a
decision per interrupt: approve, approve with edited arguments, reject or cancel an
approval; resolve or cancel a generic; a client tool's output of varied JSON.

For each example the real 0.33.2 `ChatClient` runs to the pause and answers (client tool
results first, then the public items, so it posts one continuation); `agui resume
--from <run 1>` answers the same way, with its flags or an `--answers` file. The two
bodies must be equal as JSON text, key order and number literals included, once the
continuation's `runId` is set aside. agui's body goes to the real server, which must run
it (the same event types, and the same `RUN_ERROR` or none, as the client's), and the
recorded continuation must check clean with `agui replay --check`. Every fifth example
also serves run 1 with `agui replay --serve` and drives the client against it: it must
see the interrupts it saw from the real server.

Package behaviour, not agui's (checked, not failed): a generic emitted at `afterModel`
pauses before the turn's approvals and client tools are emitted; the client answers the
generic alone and 0.58.0 refuses that continuation (`Missing resume entry for interrupt
approval_…`), rebuilding the batch from the history. agui's body is the client's there
too and gets the same `RUN_ERROR`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from replay.serve.serve_options import FAST, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer
from tests.interop.harness import (
    NodeServer,
    NodeTools,
    normalised_interrupts,
    parse_sse,
    run_client,
)
from tests.interop.scripted import (
    APPROVAL_TOOLS,
    ARGS,
    CLIENT_TOOLS,
    INTERRUPTS_KEY,
    SCENARIO,
    SERVER_TOOLS,
    TURNS_KEY,
    deltas,
    numbers,
    texts,
    tool_call,
    values,
)

EXAMPLES = 25
SERVE_EVERY = 5
PHASES = ("beforeModel", "afterModel", "beforeTools", "afterTools")
DEFINITIONS = ("review-plan", "choose-audience")
# Tools whose approval may carry edited arguments: an edit needs an input schema.
EDITABLE = ("transfer", "delete_file", "archive", "sign")
runner = CliRunner()


NUMBER = "\u0000number"


def literal(text: str) -> list[str]:
    """A JSON number kept as written: the client writes `1e-7`, not `1e-07`."""
    return [NUMBER, text]


def plain(value: Any) -> Any:
    """A value read with `literal` numbers, as plain JSON values again."""
    if isinstance(value, list):
        if len(value) == 2 and value[0] == NUMBER:
            return json.loads(value[1])
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def exact(text: str) -> Any:
    return json.loads(text, parse_int=literal, parse_float=literal)


def first_difference(ours: Any, theirs: Any, path: str = "") -> str:
    """Where two JSON values first differ (key order included), for the failure message."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if list(ours) != list(theirs):
            return f"{path or '/'}: keys {list(ours)} != {list(theirs)}"
        for key in ours:
            found = first_difference(ours[key], theirs[key], f"{path}/{key}")
            if found:
                return found
        return ""
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            found = first_difference(a, b, f"{path}/{index}")
            if found:
                return found
        return ""
    if json.dumps(ours) != json.dumps(theirs):
        return f"{path}: agui {json.dumps(ours)[:400]} != client {json.dumps(theirs)[:400]}"
    return ""


# -- scripts ------------------------------------------------------------------------

# Ids whose `localeCompare` order differs from their code-unit order (`-` / `_`, case).
call_ids = st.lists(
    st.text(alphabet="aBb_-.09", min_size=1, max_size=3).map(lambda s: f"call{s}"),
    min_size=1,
    max_size=4,
    unique=True,
)


@st.composite
def pauses(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The pausing turn (then a closing text turn) and the generic interrupts, if any."""
    ids = draw(call_ids)
    names = [draw(st.sampled_from(APPROVAL_TOOLS + CLIENT_TOOLS)) for _ in ids]
    if draw(st.booleans()):
        ids.append("call_server")
        names.append(draw(st.sampled_from(SERVER_TOOLS)))
    order = draw(st.permutations(list(range(len(ids)))))
    calls = [
        draw(tool_call(names[i], ids[i], between=position > 0)) for position, i in enumerate(order)
    ]
    first: dict[str, Any] = {"toolCalls": calls}
    if draw(st.booleans()):
        first["text"] = draw(deltas)
    turns = [first, {"text": draw(deltas)}]
    generic = None
    if draw(st.booleans()):
        requests = draw(st.lists(st.sampled_from(DEFINITIONS), min_size=1, max_size=2, unique=True))
        generic = {
            "phase": draw(st.sampled_from(PHASES)),
            "requests": [{"definitionId": d} for d in requests],
        }
    return turns, generic


# -- decisions ----------------------------------------------------------------------

# Keys a JavaScript object orders apart: array indexes come first, ascending (`"9"`
# before `"10"`, though `"10"` sorts first by code unit), then the rest as inserted.
INDEX_KEYS = st.sampled_from(("10", "9", "0", "01", "4294967294", "4294967295", "b", "a"))
OUTPUTS = {
    "pick_color": st.fixed_dictionaries({"color": texts}),
    "rate": st.fixed_dictionaries({"stars": numbers}, optional={"10": numbers, "9": texts}),
    "ask_user": values | st.dictionaries(INDEX_KEYS, values, max_size=4),
}
RESPONSES = {
    "review-plan": st.fixed_dictionaries({"approved": st.booleans()}, optional={"note": texts}),
    "choose-audience": st.fixed_dictionaries({"audience": texts}),
}


def ascii_json(value: Any) -> str:
    # ASCII-escaped: a lone surrogate has no UTF-8 form, but `\\ud800` is valid JSON.
    return json.dumps(value)


def decide(
    data: st.DataObject, items: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str], dict[str, Any]]:
    """One drawn decision per interrupt of run 1: the client's answer steps (client tool
    results first, so the client posts one continuation), agui's flags in that order, and
    the same answers as an `--answers` file (keyed by interrupt id)."""
    tools_first = sorted(items, key=lambda item: item["reason"] != "tanstack:client_tool_execution")
    steps: list[dict[str, Any]] = []
    flags: list[str] = []
    answers: dict[str, Any] = {}
    for item in tools_first:
        binding = item["metadata"]["tanstack:interruptBinding"]
        kind, interrupt_id = binding["kind"], item["id"]
        if kind == "client-tool-execution":
            name = binding["toolName"]
            output = data.draw(OUTPUTS[name], label=f"output {name}")
            steps.append(
                {
                    "action": "addToolResult",
                    "toolCallId": binding["toolCallId"],
                    "tool": name,
                    "output": output,
                }
            )
            flags += ["--answer", f"{interrupt_id}={ascii_json(output)}"]
            answers[interrupt_id] = {"status": "resolved", "payload": output}
        elif kind == "tool-approval":
            name = binding["toolName"]
            choices = ["approve", "reject", "cancel"] + (["edit"] if name in EDITABLE else [])
            choice = data.draw(st.sampled_from(choices), label=f"decision {interrupt_id}")
            select = {"toolCallId": binding["toolCallId"]}
            if choice == "cancel":
                steps.append({**select, "action": "cancel"})
                flags += ["--cancel", interrupt_id]
                answers[interrupt_id] = {"status": "cancelled"}
            elif choice == "edit":
                args = data.draw(ARGS[name], label=f"edited {name}")
                options = {"editedArgs": args}
                steps.append({**select, "value": True, "options": options})
                flags += ["--edit", f"{interrupt_id}={ascii_json(args)}"]
                answers[interrupt_id] = {"approved": True, "editedArgs": args}
            else:
                steps.append({**select, "value": choice == "approve"})
                flags += [f"--{choice}", interrupt_id]
                answers[interrupt_id] = {"approved": choice == "approve"}
        else:
            definition = binding["definitionId"]
            select = {"definitionId": definition}
            if data.draw(st.booleans(), label=f"cancel {definition}"):
                steps.append({**select, "action": "cancel"})
                flags += ["--cancel", interrupt_id]
                answers[interrupt_id] = {"status": "cancelled"}
            else:
                response = data.draw(RESPONSES[definition], label=f"response {definition}")
                steps.append({**select, "value": response})
                flags += ["--answer", f"{interrupt_id}={ascii_json(response)}"]
                answers[interrupt_id] = {"status": "resolved", "payload": response}
        event(f"{kind}: {steps[-1].get('action', 'resolve')}")
    return steps, flags, answers


# -- the audit ----------------------------------------------------------------------


def client_script(
    url: str, thread: str, turns: list[dict[str, Any]], generic: dict[str, Any] | None
) -> dict[str, Any]:
    forwarded: dict[str, Any] = {TURNS_KEY: turns}
    if generic is not None:
        forwarded[INTERRUPTS_KEY] = generic
    return {
        "url": url,
        "threadId": thread,
        "tools": SCENARIO,
        "interrupts": SCENARIO,
        "message": f"Please run {thread}.",
        "forwardedProps": forwarded,
    }


def continuation(body: Any) -> Any:
    """The body without the continuation's own run id (fresh on every post)."""
    assert isinstance(body, dict)
    return {key: value for key, value in body.items() if key != "runId"}


def terminal_items(sse: str) -> list[dict[str, Any]]:
    finish = parse_sse(sse)[-1]
    assert finish["type"] == "RUN_FINISHED", finish
    items: list[dict[str, Any]] = finish["outcome"]["interrupts"]
    return items


def serve_run_one(run1: Path, url_scenario: str) -> tuple[ReplayServer, str]:
    options = ServeOptions(pace=FAST)
    server = ReplayServer(load_recording([str(run1)], options), options=options, logger=None)
    server.start()
    return server, f"{server.url}/scenario/{url_scenario}"


def audit(
    number: int,
    data: st.DataObject,
    *,
    tools: NodeTools,
    native_server: NodeServer,
    workdir: Path,
) -> None:
    turns, generic = data.draw(pauses(), label="script")
    thread = f"resume-diff-{number}"
    script = client_script(native_server.url(SCENARIO), thread, turns, generic)
    shown = json.dumps(script["forwardedProps"], ensure_ascii=False)

    # Run 1 alone, to learn the pause (generic ids are random, so each run has its own).
    first = run_client(script, tools=tools)
    assert first["errors"] == [], (shown, first["errors"])
    items = terminal_items(first["responses"][0])
    run1 = workdir / f"{thread}.sse"
    run1.write_text(first["responses"][0], encoding="utf-8")
    (workdir / f"{thread}.request.json").write_text(
        json.dumps(first["requests"][0]), encoding="utf-8"
    )
    steps, flags, answers = decide(data, items)

    # The client answers on a fresh run 1 of its own; agui answers that same run 1.
    answered = run_client({**script, "answers": steps}, tools=tools, number=literal)
    assert len(answered["requests"]) == 2, (shown, steps, len(answered["requests"]))
    client_events = parse_sse(answered["responses"][1])
    refused = [e for e in client_events if e["type"] == "RUN_ERROR"]
    if refused:
        # A package behaviour, not agui's: a generic emitted at `afterModel` pauses before
        # the turn's approvals are emitted, so the client answers the generic alone and
        # the server, rebuilding the batch from the history, wants the approvals too.
        assert generic is not None, (shown, refused)
        assert generic["phase"] == "afterModel", (shown, refused)
        assert refused[0]["message"].startswith("Missing resume entry for interrupt "), refused
        event("package: an afterModel generic's continuation is refused")
    else:
        assert answered["errors"] == [], (shown, steps, answered["errors"])
        assert answered["interruptErrors"] == [], (shown, steps, answered["interruptErrors"])
    own = workdir / f"{thread}.client.sse"
    own.write_text(answered["responses"][0], encoding="utf-8")
    (workdir / f"{thread}.client.request.json").write_text(
        json.dumps(plain(answered["requests"][0])), encoding="utf-8"
    )
    ids = {
        item["id"]: new["id"]
        for item, new in zip(items, terminal_items(answered["responses"][0]), strict=True)
    }
    remapped = list(flags)
    for index, flag in enumerate(remapped):
        for old, new in ids.items():
            if flag == old or flag.startswith(f"{old}="):
                remapped[index] = new + flag[len(old) :]
    if data.draw(st.booleans(), label="answers file"):
        file = workdir / f"{thread}.answers.json"
        file.write_text(
            json.dumps({ids.get(key, key): value for key, value in answers.items()}),
            encoding="utf-8",
        )
        remapped = ["--answers", str(file)]
        event("answered with --answers FILE")
    out = workdir / f"{thread}.cont.sse"
    resumed = runner.invoke(
        app,
        [
            "resume",
            "--no-input",
            "--from",
            str(own),
            *remapped,
            "--url",
            native_server.url(SCENARIO),
            "--record",
            str(out),
            "--json",
        ],
        env={},
    )
    # 0 finished, 3 paused again (an approved `sign` now runs on the client), 4 all
    # cancelled; 1 when the server refuses the client's body too (above).
    accepted = (1,) if refused else (0, 3, 4)
    assert resumed.exit_code in accepted, (shown, remapped, resumed.stdout, resumed.stderr)
    event(f"resume exit {resumed.exit_code}")

    ours = exact((workdir / f"{thread}.cont.request.json").read_text(encoding="utf-8"))
    theirs = answered["requests"][1]
    difference = first_difference(continuation(ours), continuation(theirs))
    assert not difference, (difference, shown, remapped)
    assert json.dumps(continuation(ours)) == json.dumps(continuation(theirs)), (shown, remapped)

    events = [json.loads(line) for line in resumed.stdout.split("\n") if line]
    assert [e["type"] for e in events] == [e["type"] for e in client_events], (shown, remapped)
    errors = [e["message"] for e in events if e["type"] == "RUN_ERROR"]
    assert errors == [e["message"] for e in refused], (shown, remapped)
    if not refused:
        checked = runner.invoke(app, ["replay", "--check", str(out)], env={})
        assert checked.exit_code == 0, (shown, checked.stdout, checked.stderr)

    if number % SERVE_EVERY == 0:
        server, url = serve_run_one(run1, SCENARIO)
        try:
            served = run_client({**script, "url": url}, tools=tools)
        finally:
            server.shutdown()
        assert served["errors"] == [], (shown, served["errors"])
        assert normalised_interrupts(served) == normalised_interrupts(first), shown
        event("served by agui replay --serve")


def test_resume_builds_the_clients_body_on_random_pauses(
    interop_node: NodeTools,
    native_project: Path,
    native_server: NodeServer,
    tmp_path: Path,
) -> None:
    counter = iter(range(10**6))

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        # Each example costs three client runs: report the failing one unshrunk.
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        audit(
            next(counter),
            data,
            tools=interop_node,
            native_server=native_server,
            workdir=tmp_path,
        )

    check()
