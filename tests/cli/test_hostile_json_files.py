"""JSON files and values a user hands to agui, made hostile: nesting far past the limit,
and numbers JSON cannot carry.

Python's `json.loads` raises `RecursionError` (not a `ValueError`) on a few thousand
levels of nesting, and takes `NaN`, `Infinity` and `1e400` (an infinite float) though
JSON has none of them. Every file or value given to an option (`--answer`, `--answers`,
`--items`, `--messages`, `--request`, `--tools`) and every JSON text inside a recording
that agui parses again (tool-call arguments for `--html`) goes through
`replay.wire.bounded_json`, and a continuation body holding a non-finite number is
refused with the path to it: one line, exit 2, nothing sent, never a traceback.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from replay.wire.canonical import CanonicalJsonError, unencodable_at, wire_json

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native"
APPROVAL = NATIVE / "tool-approval.approve.run1.sse"
GENERIC = NATIVE / "generic-before-model.resolved.run1.sse"
GENERIC_ID = "interrupt-1796038965101-wedyfga"
LEGACY = ROOT / "tests" / "fixtures" / "recordings" / "legacy" / "tool-approval.approve.run1.sse"
runner = CliRunner()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _one_line_refusal(args: list[str]) -> str:
    result = runner.invoke(app, args, input=b"")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.stderr
    assert result.exit_code == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


@pytest.mark.parametrize("depth", [5_000, 100_000])
@pytest.mark.parametrize(
    "args",
    [
        ["resume", "--from", str(GENERIC), "--dry-run", "--answer", f"{GENERIC_ID}=@{{file}}"],
        ["resume", "--from", str(GENERIC), "--dry-run", "--answers", "{file}"],
        ["resume", "--dry-run", "--thread-id", "t", "--run-id", "r", "--items", "{file}"],
        ["resume", "--from", str(APPROVAL), "--dry-run", "--approve-all", "--request", "{file}"],
        ["translate", "--tools", "{file}", str(LEGACY)],
        ["replay", "--native", "--tools", "{file}", str(LEGACY)],
    ],
    ids=["answer", "answers", "items", "request", "translate-tools", "replay-tools"],
)
def test_a_file_nested_past_the_limit_is_one_line(
    tmp_path: Path, args: list[str], depth: int
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(_nested(depth))
    line = _one_line_refusal([arg.replace("{file}", str(deep)) for arg in args])
    assert "nested deeper than 256 levels" in line


def test_an_answer_value_nested_past_the_limit_is_one_line() -> None:
    line = _one_line_refusal(
        ["resume", "--from", str(GENERIC), "--dry-run", "--answer", f"{GENERIC_ID}={_nested(5000)}"]
    )
    assert "nested deeper than 256 levels" in line


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        ('{"approved":true,"note":"x","n":NaN}', "resume[0].payload.n"),
        ('{"approved":true,"n":[1,1e400]}', "resume[0].payload.n[1]"),
        ('{"approved":true,"n":-Infinity}', "resume[0].payload.n"),
    ],
)
@pytest.mark.parametrize("validate", [True, False], ids=["validated", "no-validate"])
def test_an_answer_json_cannot_carry_is_refused_with_its_path(
    payload: str, where: str, validate: bool
) -> None:
    args = ["resume", "--from", str(GENERIC), "--dry-run", "--answer", f"{GENERIC_ID}={payload}"]
    line = _one_line_refusal([*args, *([] if validate else ["--no-validate"])])
    assert line.startswith(f"agui: {where} is NaN, infinite or out of range"), line
    assert line.endswith("nothing was sent")


def test_a_request_file_json_cannot_carry_is_refused_with_its_path(tmp_path: Path) -> None:
    request = json.loads((NATIVE / "tool-approval.approve.request.json").read_text())
    request["forwardedProps"] = {"x": math.nan}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))  # Python writes NaN; JSON has no such number
    line = _one_line_refusal(
        ["resume", "--from", str(APPROVAL), "--dry-run", "--approve-all", "--request", str(path)]
    )
    assert line.startswith("agui: forwardedProps.x is NaN"), line


def test_tool_arguments_nested_past_the_limit_still_make_a_page(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "runId": "r", "threadId": "t"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "transfer"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": _nested(5000)},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "runId": "r", "threadId": "t"},
    ]
    recording = tmp_path / "deep-args.sse"
    recording.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    page = tmp_path / "page.html"
    result = runner.invoke(app, ["replay", "--html", str(page), str(recording)])
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code in (0, 1), result.stderr
    assert "[[[[" in page.read_text()  # shown as streamed, not pretty-printed


JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),  # NaN and the infinities among them
        st.just(10**400),  # an integer no double holds
        st.text(max_size=3),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_unencodable_at_agrees_with_the_encoder(value: Any) -> None:
    """The path finder is the encoder's twin: None exactly when `wire_json` writes it."""
    where = unencodable_at(value)
    try:
        wire_json(value)
    except CanonicalJsonError:
        assert where is not None
        return
    assert where is None


@pytest.mark.parametrize(
    "command", [["translate"], ["replay", "--native", "--json"]], ids=["translate", "replay"]
)
@pytest.mark.parametrize(
    ("tools", "says"),
    [
        (
            '[{"name":"transfer","inputSchema":{"type":"object",'
            '"properties":{"amount":{"type":"number","minimum":NaN}}}}]',
            "tools[0] (transfer): inputSchema: properties.amount.minimum is NaN, infinite",
        ),
        (
            '{"tools":[{"name":"transfer","approvalSchema":{"type":"object",'
            '"properties":{"approved":{"const":1e400}}}}]}',
            "tools[0] (transfer): approvalSchema: properties.approved.const is NaN, infinite",
        ),
        ('[{"name":"transfer"},{"name":"transfer"}]', "tools[1]: tool 'transfer' is defined twice"),
    ],
    ids=["nan", "overflow", "twice"],
)
def test_a_tools_file_json_cannot_carry_is_one_line_naming_the_file(
    tmp_path: Path, command: list[str], tools: str, says: str
) -> None:
    path = tmp_path / "tools.json"
    path.write_text(tools)
    line = _one_line_refusal([*command, "--tools", str(path), str(LEGACY)])
    assert line == f"agui: {path}: {says}" or line.startswith(f"agui: {path}: {says}"), line
