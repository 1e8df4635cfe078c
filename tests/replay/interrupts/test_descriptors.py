"""Descriptors, bindings and responseSchemas against the real library's vectors and recordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.interrupts.descriptors import (
    InvalidTools,
    SchemaSource,
    ToolSchema,
    approval_descriptor,
    approval_schemas,
    client_tool_descriptor,
    load_tools,
    parse_tools,
    to_draft07,
)
from replay.wire.canonical import digest
from replay.wire.sse import decode_bytes

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
VECTORS = {
    v["name"]: v
    for v in json.loads((FIXTURES / "canonical-vectors.json").read_text("utf-8"))["vectors"]
}
ZOD = json.loads((FIXTURES / "zod-draft-exports.json").read_text("utf-8"))["cases"]
TOOLS = parse_tools(json.loads((ROOT / "examples" / "legacy" / "tools.json").read_text("utf-8")))
NATIVE = FIXTURES / "recordings" / "native"


def _input(name: str) -> Any:
    return json.loads(VECTORS[name]["input_json"])


def test_approval_response_schema_and_hashes_match_the_vectors() -> None:
    tool = TOOLS["transfer"]
    schemas = approval_schemas(tool)
    assert schemas.response_schema == _input("approval-responseSchema-zod")
    assert schemas.response_schema_hash == VECTORS["approval-responseSchema-zod"]["digest"]
    assert schemas.approval_schema_hash == VECTORS["approvalSchemaHash-none"]["digest"]
    binding = approval_descriptor(
        interrupt_id="approval_c",
        tool_call_id="c",
        tool_name="transfer",
        args={},
        run_id="r",
        tool=tool,
    )["metadata"]["tanstack:interruptBinding"]
    assert binding["inputSchemaHash"] == VECTORS["inputSchemaHash-zod"]["digest"]


def test_branch_approval_schemas_match_the_vectors() -> None:
    branches = _input("approvalSchemaHash-branches")
    response = _input("approval-responseSchema-branches")
    input_schema = response["oneOf"][0]["properties"]["editedArgs"]
    tool = parse_tools([{"name": "t", "inputSchema": input_schema, "approvalSchema": branches}])[
        "t"
    ]
    schemas = approval_schemas(tool)
    assert schemas.response_schema == response
    assert schemas.response_schema_hash == VECTORS["approval-responseSchema-branches"]["digest"]
    assert schemas.approval_schema_hash == VECTORS["approvalSchemaHash-branches"]["digest"]


def test_tool_without_input_schema_has_no_edited_args() -> None:
    tool = parse_tools([{"name": "t", "needsApproval": True}])["t"]
    schemas = approval_schemas(tool)
    assert schemas.response_schema == _input("approval-responseSchema-no-inputSchema")
    assert (
        schemas.response_schema_hash == VECTORS["approval-responseSchema-no-inputSchema"]["digest"]
    )


def test_client_tool_hashes_match_the_vectors() -> None:
    descriptor = client_tool_descriptor(
        tool_call_id="c", tool_name="pick_color", args={}, run_id="r", tool=TOOLS["pick_color"]
    )
    binding = descriptor["metadata"]["tanstack:interruptBinding"]
    assert descriptor["responseSchema"] == _input("client-tool-responseSchemaHash-zod")
    assert binding["outputSchemaHash"] == VECTORS["outputSchemaHash-zod"]["digest"]
    assert binding["responseSchemaHash"] == VECTORS["client-tool-responseSchemaHash-zod"]["digest"]
    bare = client_tool_descriptor(
        tool_call_id="c", tool_name="x", args={}, run_id="r", tool=parse_tools([{"name": "x"}])["x"]
    )
    assert bare["responseSchema"] == {}
    bare_binding = bare["metadata"]["tanstack:interruptBinding"]
    assert (
        bare_binding["responseSchemaHash"]
        == VECTORS["client-tool-responseSchemaHash-no-outputSchema"]["digest"]
    )
    assert bare_binding["outputSchemaHash"] == VECTORS["hashSchemaInput-undefined"]["digest"]


def test_without_a_tool_there_is_no_binding_and_no_response_schema() -> None:
    descriptor = approval_descriptor(
        interrupt_id="approval_c",
        tool_call_id="c",
        tool_name="t",
        args={"a": 1},
        run_id="r",
        tool=None,
    )
    assert descriptor == {
        "id": "approval_c",
        "reason": "tool_call",
        "message": "Approval required to run t",
        "toolCallId": "c",
        "metadata": {"kind": "approval", "toolName": "t", "input": {"a": 1}},
    }


@pytest.mark.parametrize("case", ZOD, ids=lambda c: c["name"])
def test_draft07_derivation_matches_zod(case: dict[str, Any]) -> None:
    expected = {k: v for k, v in case["draft_07"].items() if k != "$schema"}
    derived = to_draft07(case["draft_2020_12"])
    assert json.dumps(derived) == json.dumps(expected)  # same keys in the same order


def test_client_response_schema_fills_object_defaults_after_the_export() -> None:
    case = next(c for c in ZOD if c["name"] == "allOptional")
    schema = ToolSchema(case["draft_2020_12"], SchemaSource.ZOD)
    assert list(schema.draft07()) == ["type", "properties", "required"]
    assert schema.draft07()["required"] == []
    raw = ToolSchema({"type": "object"}, SchemaSource.RAW)
    assert raw.draft07() == {"type": "object"}  # raw JSON Schema passes through unchanged


def _native_interrupts(name: str) -> list[dict[str, Any]]:
    for message in decode_bytes((NATIVE / name).read_bytes()):
        event = json.loads(message.data)
        if event.get("type") == "RUN_FINISHED" and event.get("outcome"):
            return list(event["outcome"]["interrupts"])
    raise AssertionError(name)


@pytest.mark.parametrize(
    "name",
    [
        "tool-approval.approve.run1.sse",
        "client-tool.auto.run1.sse",
        "two-approvals.approve-both.run1.sse",
    ],
)
def test_descriptors_equal_the_real_servers_byte_for_byte(name: str) -> None:
    for real in _native_interrupts(name):
        binding = real["metadata"]["tanstack:interruptBinding"]
        build = approval_descriptor if real["reason"] == "tool_call" else client_tool_descriptor
        kwargs: dict[str, Any] = {
            "tool_call_id": real["toolCallId"],
            "tool_name": real["metadata"]["toolName"],
            "args": real["metadata"]["input"],
            "run_id": binding["interruptedRunId"],
            "tool": TOOLS[real["metadata"]["toolName"]],
        }
        if real["reason"] == "tool_call":
            kwargs["interrupt_id"] = real["id"]
        ours = build(**kwargs)
        assert json.dumps(ours) == json.dumps(real)
        assert digest(ours["responseSchema"]) == binding["responseSchemaHash"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"tools": {}}, "expected a JSON array"),
        ([{"name": ""}], "`name` must be a non-empty string"),
        ([{"name": "a"}, {"name": "a"}], "defined twice"),
        ([{"name": "a", "inputSchema": {"title": "x"}}], "not a JSON Schema"),
        ([{"name": "a", "inputSchema": []}], "must be a JSON object"),
        ([{"name": "a", "parameters": {}}], "unknown key 'parameters'"),
        ([{"name": "a", "needsApproval": "yes"}], "true or false"),
        (
            [{"name": "a", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"}}],
            "draft-07 export cannot be hashed",
        ),
        (
            # TanStack hashes the input side; zod's default export is the output side.
            [{"name": "a", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"}}],
            r"export zod schemas with `z\.toJSONSchema\(schema, \{ io: 'input' \}\)`",
        ),
    ],
)
def test_bad_tool_documents_are_rejected(document: Any, message: str) -> None:
    with pytest.raises(InvalidTools, match=message):
        parse_tools(document)


def test_load_tools_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text("{not json", "utf-8")
    with pytest.raises(InvalidTools, match=r"tools\.json: not valid JSON"):
        load_tools(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"name": "a", "client": True}]), "utf-8")
    assert load_tools(good) == [{"name": "a", "client": True}]
