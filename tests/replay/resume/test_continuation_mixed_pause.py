"""A pause mixing approvals, client tools and a generic: agui posts the real client's body.

`tests/fixtures/resume/mixed-pause.*` is one exchange with the real 0.58.0 server and
0.33.2 client (`scenario_catalog.mjs`'s `scripted` scenario): the model calls `transfer`,
`ask_user`, `reboot` and `pick_color`, and `review-plan` is emitted at `beforeTools`. The
client gave the client tools' results (`addToolResult`: `ask_user` an object whose keys
are not in sorted order, then `pick_color`), approved `transfer`, rejected `reboot` and
resolved the plan; `.resume.json` is the continuation it posted.

Three differences `tests/interop/test_resume_differential.py` found, each fixed:
* with a generic in the batch the client leaves client-tool entries out of `resume`
  (their results travel as tool messages only); agui sent them as entries;
* the client writes the approvals' tool messages first, then the client-tool results
  (`addToolResult` appends a `tool-result` part); agui wrote them all in call order;
* a client-tool result's content is the output as given; agui wrote it key-sorted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from replay.resume.answers import AnswerOptions, resolve_answers, specs_from_options
from replay.resume.continuation import build_resume, continuation_body
from replay.resume.paused_run import choose_run, paused_run_from, read_runs
from replay.wire.recording import open_recordings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "resume"


def body(options: AnswerOptions) -> dict[str, Any]:
    runs = read_runs(open_recordings([str(FIXTURES / "mixed-pause.run1.sse")]))
    run = choose_run(runs.runs, None)
    assert run.terminal is not None
    paused = paused_run_from(run, tool_call_metadata=runs.tool_call_metadata[run.terminal.location])
    answers = resolve_answers(specs_from_options(options), paused.interrupts)
    outputs = {i: a.value for i, a in answers.items() if a.action.value == "answer"}
    resume = build_resume(paused.interrupts, answers)
    return continuation_body(paused, resume, run_id="run-test", outputs=outputs)


def test_the_mixed_pause_gets_the_clients_body() -> None:
    ours = body(
        AnswerOptions(
            approve=("transfer",),
            reject=("reboot",),
            answer=(
                'ask_user={"z":1e-7,"a":[1e21,-0],"m":"é"}',
                'pick_color={"color":"red"}',
                'review-plan={"note":"ok","approved":true}',
            ),
        )
    )
    theirs = json.loads((FIXTURES / "mixed-pause.resume.json").read_text(encoding="utf-8"))
    assert [e["interruptId"] for e in ours["resume"]] == [
        e["interruptId"] for e in theirs["resume"]
    ]
    tool_messages = [
        (m["toolCallId"], m["content"]) for m in ours["messages"] if m["role"] == "tool"
    ]
    assert tool_messages == [
        (m["toolCallId"], m["content"]) for m in theirs["messages"] if m["role"] == "tool"
    ]
    assert tool_messages[2] == ("call_ask", '{"z":1e-7,"a":[1e+21,0],"m":"é"}')
    ours.pop("runId")
    theirs.pop("runId")
    assert ours == theirs
