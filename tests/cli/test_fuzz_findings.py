"""Inputs the hostile-value fuzz tests (tests/replay/*/test_*_fuzz.py) found crashing a
library function, run through the real `agui` executable as a subprocess.

Each must end as the house rule says: a result (exit 0 or 1) or one line on stderr and
exit 2; never a traceback, and never an output file left half-written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.listening import serving

AGUI = str(Path(sys.executable).with_name("agui"))
BIG = "1" + "0" * 400
"""An integer no double holds: `JSON.parse` reads it as Infinity."""


def _agui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGUI, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "Error:" not in result.stderr.replace("RUN_ERROR", ""), result.stderr


def _frames(*events: str) -> bytes:
    return b"".join(f"data: {event}\n\n".encode() for event in events)


PAUSE_WITH_BIG_NUMBERS = _frames(
    '{"type":"RUN_STARTED","runId":"r","threadId":"t"}',
    '{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"pick"}',
    '{"type":"TOOL_CALL_END","toolCallId":"c","input":{"n":' + BIG + "}}",
    '{"type":"RUN_FINISHED","runId":"r","threadId":"t","finishReason":"tool_calls",'
    '"result":' + BIG + "}",
    '{"type":"CUSTOM","name":"tool-input-available",'
    '"value":{"toolCallId":"c","toolName":"pick","input":{"n":-' + BIG + "}}}",
)


def test_translate_writes_an_integer_no_double_holds_as_null(tmp_path: Path) -> None:
    (tmp_path / "big.sse").write_bytes(PAUSE_WITH_BIG_NUMBERS)
    result = _agui(tmp_path, "translate", "big.sse", "-o", "out.sse")
    _no_traceback(result)
    assert result.returncode == 0, result.stderr
    out = (tmp_path / "out.sse").read_text(encoding="utf-8")
    assert '"outcome":{"type":"interrupt"' in out
    assert '"result"' not in out  # Infinity to JavaScript: a retired null, left out
    assert '"arguments":"{\\"n\\":null}"' in out
    synthesised = [
        line for line in out.splitlines() if "SNAPSHOT" in line or "RUN_FINISHED" in line
    ]
    assert synthesised
    assert all(BIG not in line for line in synthesised)  # (passed-through events: verbatim)
    again = _agui(tmp_path, "translate", "out.sse")
    assert again.returncode == 0, again.stderr
    assert again.stdout == out  # its own output translates to itself


LEGACY_RUN = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "legacy"


def _continuation(arguments: str, payload: str) -> bytes:
    """A client's continuation answering the client tool `c`, spelled as text: Python's
    reader takes what `json.dumps` would not write (`NaN`, nesting past 256 levels)."""
    call = {"id": "c", "type": "function", "function": {"name": "pick", "arguments": arguments}}
    return (
        '{"threadId":"t","runId":"r2","parentRunId":"r1","messages":[{"id":"m","role":'
        f'"assistant","toolCalls":[{json.dumps(call)}]}}],"resume":[{{"interruptId":'
        f'"client_tool_c","status":"resolved","payload":{payload}}}],"tools":[],"context":[]}}'
    ).encode()


@pytest.mark.parametrize(
    ("arguments", "payload", "refusal"),
    [
        ("{}", "NaN", "`resume[0].payload` is NaN, Infinity or a number no double holds"),
        ("{}", '{"n":' + BIG + "}", "`resume[0].payload.n` is NaN, Infinity or a number"),
        ("{}", "[" * 400 + "]" * 400, None),  # too deep to bridge: passed on as it came
        ('{"n":1e400}', '{"color":"green"}', None),  # bridged: the part's input is null
    ],
    ids=["nan", "big-integer", "deep", "infinite-arguments"],
)
def test_proxy_native_answers_an_unwritable_continuation_without_a_traceback(
    arguments: str, payload: str, refusal: str | None
) -> None:
    import httpx

    recording = next(LEGACY_RUN.glob("*.sse"))
    upstream_args = ["replay", str(recording), "--serve", "0"]
    with serving(upstream_args) as upstream:
        proxy_args = ["proxy", "--native", "--upstream", upstream.url, "--listen", "0"]
        with serving(proxy_args) as proxy:
            answer = httpx.post(
                proxy.url,
                content=_continuation(arguments, payload),
                headers={"content-type": "application/json"},
                timeout=20,
            )
    assert answer.status_code == 200, answer.text
    events = [line for line in answer.text.splitlines() if line.startswith("data: ")]
    if refusal is not None:
        (line,) = events
        assert '"type":"RUN_ERROR"' in line
        assert refusal in json.loads(line[6:])["message"]
    else:
        assert events  # the legacy server's answer, translated
    assert "Traceback" not in proxy.stderr, proxy.stderr
    assert "Error" not in proxy.stderr.replace("RUN_ERROR", ""), proxy.stderr


def test_replay_serve_rebinds_a_recorded_event_holding_1e400_without_cutting_the_stream(
    tmp_path: Path,
) -> None:
    (tmp_path / "inf.sse").write_bytes(
        _frames(
            '{"type":"RUN_STARTED","runId":"r","threadId":"t","x":1e400}',
            '{"type":"RUN_FINISHED","runId":"r","threadId":"t"}',
        )
    )
    import httpx

    with serving(["replay", str(tmp_path / "inf.sse"), "--serve", "0"]) as served:
        body = {"threadId": "T", "runId": "R", "messages": [], "tools": [], "context": []}
        answer = httpx.post(served.url, json=body, timeout=20)
    events = [line[6:] for line in answer.text.splitlines() if line.startswith("data: ")]
    # The stream ended after its headers: CanonicalJsonError inside the response.
    assert events == [
        '{"type":"RUN_STARTED","runId":"R","threadId":"T","x":null}',
        '{"type":"RUN_FINISHED","runId":"R","threadId":"T"}',
    ]
    assert "Traceback" not in served.stderr, served.stderr


@pytest.mark.parametrize("command", [["translate"], ["replay", "--check"], ["replay", "--json"]])
def test_a_content_part_whose_type_is_an_object_is_no_crash(
    tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / "parts.sse").write_bytes(
        _frames(
            '{"type":"RUN_STARTED","runId":"r","threadId":"t"}',
            '{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"user",'
            '"content":[{"type":{"a":1},"metadata":null},{"type":"image","metadata":null}]}]}',
            '{"type":"RUN_FINISHED","runId":"r","threadId":"t"}',
        )
    )
    result = _agui(tmp_path, *command, "parts.sse")
    _no_traceback(result)
    assert result.returncode in (0, 1), result.stderr


@pytest.mark.parametrize(
    "request_text",
    ["[" * 300 + "]" * 300, '{"messages":' + "[" * 300 + "]" * 300 + "}", "[1,2]", '{"a":'],
    ids=["deep-array", "deep-messages", "not-an-object", "truncated"],
)
def test_translate_refuses_a_hostile_request_body_in_one_line_and_writes_nothing(
    tmp_path: Path, request_text: str
) -> None:
    (tmp_path / "run.sse").write_bytes(PAUSE_WITH_BIG_NUMBERS)
    (tmp_path / "request.json").write_text(request_text, encoding="utf-8")
    result = _agui(tmp_path, "translate", "run.sse", "--request", "request.json", "-o", "out.sse")
    _no_traceback(result)
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("agui: ")
    assert "request.json" in line
    assert sorted(path.name for path in tmp_path.iterdir()) == ["request.json", "run.sse"]


@pytest.mark.parametrize(
    ("answers", "where"),
    [
        ('{"client_tool_c": NaN}', "resume[0].payload"),
        ('{"client_tool_c": {"n": ' + BIG + "}}", "resume[0].payload.n"),
        ('{"client_tool_c": {"n": -Infinity}}', "resume[0].payload.n"),
    ],
    ids=["nan", "big-integer", "infinity"],
)
def test_resume_refuses_an_answer_json_cannot_carry_and_records_nothing(
    tmp_path: Path, answers: str, where: str
) -> None:
    (tmp_path / "run.sse").write_bytes(PAUSE_WITH_BIG_NUMBERS)
    paused = _agui(tmp_path, "translate", "run.sse", "-o", "paused.sse")
    assert paused.returncode == 0, paused.stderr
    (tmp_path / "answers.json").write_text(answers, encoding="utf-8")
    before = sorted(path.name for path in tmp_path.iterdir())
    result = _agui(
        tmp_path,
        "resume",
        "--from",
        "paused.sse",
        "--answers",
        "answers.json",
        "--no-input",
        "--url",
        "http://127.0.0.1:9/never",
        "--record",
        "out.sse",
    )
    _no_traceback(result)
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"agui: {where} is NaN")
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def test_translate_takes_a_placeholder_whose_tool_call_id_is_a_list(tmp_path: Path) -> None:
    (tmp_path / "run.sse").write_bytes(PAUSE_WITH_BIG_NUMBERS)
    (tmp_path / "request.json").write_text(
        '{"messages":[{"role":"tool","toolCallId":["c"],"content":"{\\"pendingExecution\\":true}"}]}',
        encoding="utf-8",
    )
    result = _agui(tmp_path, "translate", "run.sse", "--request", "request.json")
    _no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert '"toolCallId":["c"]' in result.stdout  # the request's message, as it came


def test_resume_takes_a_snapshot_tool_message_whose_tool_call_id_is_a_list(
    tmp_path: Path,
) -> None:
    """Found by the resume fuzz test (a translated pause whose request history held the
    message): the set of answered calls raised TypeError (unhashable)."""
    (tmp_path / "run.sse").write_bytes(PAUSE_WITH_BIG_NUMBERS)
    (tmp_path / "request.json").write_text(
        '{"messages":[{"id":"x","role":"tool","toolCallId":["c"],"content":"ok"}]}', "utf-8"
    )
    paused = _agui(tmp_path, "translate", "run.sse", "--request", "request.json", "-o", "p.sse")
    assert paused.returncode == 0, paused.stderr
    result = _agui(
        tmp_path, "resume", "--from", "p.sse", "--answer", 'client_tool_c={"a":1}', "--dry-run"
    )
    _no_traceback(result)
    assert result.returncode == 0, result.stderr
    messages = json.loads(result.stdout)["messages"]
    assert messages[0]["toolCallId"] == ["c"]  # the history's message, as it came
    assert messages[-1]["toolCallId"] == "c"  # and the answer's
