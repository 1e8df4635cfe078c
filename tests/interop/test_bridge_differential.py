"""Randomised differential audit of `agui proxy --native` (the bridge) on the real packages.

`test_bridge_interop.py` proves the bridge on a few fixed scenarios. Here hypothesis draws
whole scripted model turns (the catalogue and strategies of
`test_translate_differential.py`: approval, client and plain server tools, earlier rounds
of server tools, text between calls, varied JSON arguments, one or two pauses) and a
decision for every pausing call (approve, reject, cancel, a client tool's output). The
real 0.33.2 client plays the same script and decisions twice: through the bridge to the
0.42.0 server, and straight at the 0.58.0 server. What the client ends with — its
messages, its interrupts after each step, its status and errors — must be the same, up
to the ids and clocks that change every run; and every exchange the bridge recorded must
check clean with `agui replay --check`.

Besides, the 0.58.0 server's own streams of each run (run 1 and each continuation, the
request body beside each) must check clean with `agui replay --check` and render with
`agui replay` (text and `--json`) and `agui replay --html`: any finding on a real stream
is a defect in agui.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from tests.interop.harness import NodeServer
from tests.interop.test_translate_differential import (
    APPROVAL_TOOLS,
    CLIENT_TOOLS,
    SCENARIO,
    TURNS_KEY,
    scripts,
    texts,
    tools,
)

pytestmark = pytest.mark.interop

__all__ = ["tools"]  # the module fixture: the `scripted` scenario's exported tools file

#: What the user says: the client never sends a blank message (`\u2028\u2029` included).
said = texts.filter(lambda text: any(c.isalnum() for c in text))
RunClient = Callable[[dict[str, Any]], dict[str, Any]]
EXAMPLES = 20
runner = CliRunner()

#: A valid output for each client tool (its output schema, where it has one).
OUTPUTS = {
    "pick_color": {"color": "teal"},
    "rate": {"stars": 4},
    "ask_user": {"said": "ok"},
}

#: Values minted afresh on every run: by the client (message, run and thread ids) or a
#: clock. Compared only for presence and form.
MINTED = {"runId", "parentRunId", "interruptedRunId", "threadId", "createdAt", "timestamp"}
MINTED_IN_TEXT = re.compile(r"(msg|run)-\d{13}-[0-9a-z]+")
"""A client-minted message or run id, alone or inside another id (`snapshot_<runId>_2`)."""

# -- decisions ----------------------------------------------------------------------


def pausing_calls(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every approval or client tool call of the script, in the order the model makes
    them (each pausing turn is answered before the next is played)."""
    return [
        call
        for turn in turns
        for call in turn.get("toolCalls", [])
        if call["name"] in APPROVAL_TOOLS + CLIENT_TOOLS
    ]


@st.composite
def decisions(draw: st.DrawFn, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The driver's answer steps: one per pausing call, through the public API."""
    steps: list[dict[str, Any]] = []
    for call in pausing_calls(turns):
        if call["name"] in CLIENT_TOOLS:
            steps.append(
                {
                    "action": "addToolResult",
                    "toolCallId": call["id"],
                    "tool": call["name"],
                    "output": OUTPUTS[call["name"]],
                }
            )
            continue
        choice = draw(st.sampled_from(("approve", "approve", "reject", "reject", "cancel")))
        item = f"approval_{call['id']}"
        if choice == "cancel":
            steps.append({"action": "cancel", "id": item})
        else:
            steps.append({"action": "resolve", "id": item, "value": choice == "approve"})
    return steps


# -- comparison ---------------------------------------------------------------------


def structural(value: Any) -> Any:
    """`value` with what every run mints afresh replaced by a marker of its kind."""
    if isinstance(value, list):
        return [structural(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in MINTED and isinstance(item, str | int | float):
            out[key] = f"<{key}>"
        elif isinstance(item, str):
            out[key] = MINTED_IN_TEXT.sub(r"<\1>", item)
        else:
            out[key] = structural(item)
    return out


def outcome(result: dict[str, Any]) -> dict[str, Any]:
    """What the client ends with, as compared between the two servers."""
    return structural(
        {
            key: result[key]
            for key in (
                "interruptsAfterRun1",
                "interruptsAfterAnswers",
                "messages",
                "errors",
                "interruptErrors",
                "status",
            )
        }
    )


# -- the bridge ---------------------------------------------------------------------


class Bridge:
    """`agui proxy --native --tools ... --record DIR` in front of the legacy server."""

    def __init__(self, upstream: str, tools: list[dict[str, Any]], record: Path) -> None:
        self.log: list[ExchangeLog] = []
        self.record = record
        options = ProxyOptions(upstream=upstream, native=True, tools=tools, record=record)
        self.server = ProxyServer(options, logger=self.log.append)

    def url(self) -> str:
        return f"{self.server.url}/scenario/{SCENARIO}"


@pytest.fixture(scope="module")
def bridge(
    legacy_server: NodeServer, tools: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Bridge]:
    made = Bridge(legacy_server.base_url, tools, tmp_path_factory.mktemp("bridged"))
    made.server.start()
    try:
        yield made
    finally:
        made.server.shutdown()


CLEAN = re.compile(r"agui replay: (0 errors, 0 warnings, 0 notices|wrote .*)")


def check_clean(streams: list[Path], label: str) -> None:
    """`agui replay --check` finds nothing in the batch (a continuation after its parent)."""
    checked = runner.invoke(app, ["replay", "--check", *map(str, streams)], env={})
    assert checked.exit_code == 0, (label, checked.stdout, checked.stderr)
    assert not checked.stdout.strip(), (label, checked.stdout)
    assert CLEAN.fullmatch(checked.stderr.strip()), (label, checked.stderr)


def render_clean(streams: list[Path], label: str) -> None:
    """`agui replay` shows the batch as text, JSON lines and HTML with nothing to say."""
    page = streams[0].with_suffix(".html")
    for flags in ([], ["--json"], ["--html", str(page)]):
        shown = runner.invoke(app, ["replay", *flags, *map(str, streams)], env={})
        assert shown.exit_code == 0, (label, flags, shown.stdout, shown.stderr)
        said = shown.stderr.strip()
        assert not said or CLEAN.fullmatch(said), (label, flags, said)
    assert page.stat().st_size > 0


def save_exchanges(result: dict[str, Any], directory: Path, stem: str) -> list[Path]:
    """The client's requests and the server's answers, as `agui replay` pairs them:
    `STEM.N.sse` with `STEM.N.request.json` beside it."""
    saved: list[Path] = []
    for index, (request, response) in enumerate(
        zip(result["requests"], result["responses"], strict=True)
    ):
        assert isinstance(response, str), (stem, index)
        stream = directory / f"{stem}.{index + 1}.sse"
        stream.write_text(response, encoding="utf-8")
        stream.with_name(f"{stream.stem}.request.json").write_text(
            json.dumps(request), encoding="utf-8"
        )
        saved.append(stream)
    return saved


# -- the audit ----------------------------------------------------------------------


def audit(
    number: int,
    turns: list[dict[str, Any]],
    user_text: str,
    answers: list[dict[str, Any]],
    *,
    bridge: Bridge,
    native_server: NodeServer,
    run_client: RunClient,
    workdir: Path,
) -> None:
    script = json.dumps([turns, answers], ensure_ascii=False)
    common = {
        "scenario": SCENARIO,
        "tools": SCENARIO,
        "message": user_text,
        "forwardedProps": {TURNS_KEY: turns},
        "answers": answers,
    }
    recorded_before = set(bridge.record.glob("*.sse"))
    logged_before = len(bridge.log)
    bridged = run_client({**common, "url": bridge.url(), "threadId": f"bridge-{number}"})
    native = run_client(
        {**common, "url": native_server.url(SCENARIO), "threadId": f"native-{number}"}
    )
    cancelled = any(step["action"] == "cancel" for step in answers)
    event(f"requests to the native server: {len(native['requests'])}")

    assert native["requests"], (script, native["errors"])
    # The real server's own streams check clean and render.
    streams = save_exchanges(native, workdir, f"native-{number}")
    check_clean(streams, script)
    render_clean(streams, script)

    # Every exchange the bridge recorded checks clean.
    # (A refused continuation never reaches the legacy server and is not recorded; the
    # proxy files a recording when the stream has ended, maybe after the client read it.)
    assert bridged["requests"], (script, bridged["errors"], bridge.log[logged_before:])
    refused = [entry for entry in bridge.log[logged_before:] if entry.end == "refused"]
    expected = len(bridged["requests"]) - len(refused)
    deadline = time.monotonic() + 10
    while len(recorded := set(bridge.record.glob("*.sse")) - recorded_before) < expected:
        assert time.monotonic() < deadline, (script, sorted(recorded))
        time.sleep(0.02)
    assert len(recorded) == expected, (script, sorted(recorded))
    check_clean(sorted(recorded), script)

    if refused:
        # A legacy server cannot hear a cancellation: the bridge refuses the continuation
        # with one RUN_ERROR (README "--native") and the client stops there, where the
        # native server would go on. Only a cancelled approval is refused.
        assert cancelled, (script, refused)
        assert all("was cancelled" in (entry.detail or "") for entry in refused), refused
        assert any("legacy-unsupported" in text for text in bridged["responses"]), script
        first = [structural(r["interruptsAfterRun1"]) for r in (bridged, native)]
        assert first[0] == first[1], script
        event("cancel refused by the bridge")
        return
    ours, theirs = outcome(bridged), outcome(native)
    if ours != theirs:
        for name, value in (("bridged", ours), ("native", theirs)):
            path = workdir / f"{number}.{name}.json"
            path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    assert ours == theirs, (script, str(workdir / f"{number}.*.json"))


def test_the_bridge_equals_the_native_server_on_random_turns(
    bridge: Bridge,
    native_server: NodeServer,
    run_client_native: RunClient,
    tmp_path: Path,
) -> None:
    counter = iter(range(10**6))

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data(), turns=scripts(), user_text=said)
    def check(data: st.DataObject, turns: list[dict[str, Any]], user_text: str) -> None:
        answers = data.draw(decisions(turns))
        audit(
            next(counter),
            turns,
            user_text,
            answers,
            bridge=bridge,
            native_server=native_server,
            run_client=run_client_native,
            workdir=tmp_path,
        )

    check()
