"""Native interrupt descriptors exactly as `@tanstack/ai` 0.58.0 builds them (protocol.md §2).

Legacy events carry the tool name, call id and input, but not the tool's schemas; the
`tanstack:interruptBinding` and `responseSchema` need those, so they come from a tools
file (`agui translate --tools FILE`). Which JSON each hash covers differs (§3.4):

* TanStack sees a zod (Standard JSON Schema) tool schema through two exports:
  draft-2020-12 *with* `$schema` for the input/approval/output hashes and the
  approval `responseSchema`, and draft-07 *without* `$schema` (object defaults filled
  in) for the client-tool `responseSchema`.
* A raw JSON Schema tool schema is used verbatim everywhere.

So the tools file holds each schema in the form TanStack hashes: for a zod schema the
draft-2020-12 export of its input side with its `$schema` (`ZOD_EXPORT`), for a raw
JSON Schema the object as written in the tool definition. agui derives the draft-07 form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from replay.wire import bounded_json
from replay.wire.canonical import digest, hash_schema_input, unencodable_at
from replay.wire.errors import AguiError, read_failure

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

ZOD_EXPORT = "z.toJSONSchema(schema, { io: 'input' })"
"""The zod 4 call that writes a tool schema as TanStack hashes it (`~standard.jsonSchema.input`).

zod's default side, `io: 'output'`, adds `additionalProperties: false` to every object,
so its hashes and response schemas differ from the server's and the client's.
"""

APPROVAL_REASON = "tool_call"
CLIENT_TOOL_REASON = "tanstack:client_tool_execution"
BINDING_KEY = "tanstack:interruptBinding"

# `isRawJsonSchema` in ai:activities/chat/tools/approval-schema.ts: a plain object with
# any of these keys is a raw JSON Schema; anything else is not a schema at all.
JSON_SCHEMA_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "oneOf",
        "anyOf",
        "allOf",
        "enum",
        "const",
        "format",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
    }
)

TOOL_KEYS = frozenset(
    {
        "name",
        "description",
        "inputSchema",
        "approvalSchema",
        "outputSchema",
        "needsApproval",
        "client",
    }
)


class InvalidTools(AguiError):
    """The tools file cannot be used: not JSON, wrong shape, or a schema that is not one."""


class SchemaSource(StrEnum):
    """How the TypeScript tool declared a schema, which decides every derived form."""

    ZOD = "zod"
    """A Standard JSON Schema (zod 4): given as its draft-2020-12 export with `$schema`."""
    RAW = "raw"
    """A raw JSON Schema object, used verbatim by TanStack."""


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """One schema in the form TanStack hashes, and where it came from."""

    json: dict[str, Any]
    source: SchemaSource

    def draft07(self) -> dict[str, Any]:
        """What `convertSchemaToJsonSchema` yields: the client-tool `responseSchema`."""
        if self.source is SchemaSource.RAW:
            return self.json
        result: dict[str, Any] = to_draft07(self.json)
        # `toTypedJsonSchema` (ai:activities/chat/tools/schema-converter.ts): object
        # defaults are appended after the exported keys, in this order.
        if "properties" in result and not result.get("type"):
            result["type"] = "object"
        if result.get("type") == "object" and "properties" not in result:
            result["properties"] = {}
        if result.get("type") == "object" and "required" not in result:
            result["required"] = []
        return result


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """What agui needs to know about one tool to bind its interrupts."""

    name: str
    input_schema: ToolSchema | None = None
    approve_schema: ToolSchema | None = None
    reject_schema: ToolSchema | None = None
    output_schema: ToolSchema | None = None
    needs_approval: bool = False
    client: bool | None = None
    """True for a client tool (no server `execute`), False for a server tool, None unknown."""


@dataclass(frozen=True, slots=True)
class ApprovalSchemas:
    """`normalizeApprovalSchema(...)`: the response schema and its two hashes."""

    response_schema: dict[str, Any]
    response_schema_hash: str
    approval_schema_hash: str


def to_draft07(schema: Any) -> Any:
    """Turn a zod draft-2020-12 export into zod's draft-07 export without `$schema`.

    Verified against zod 4.6.7 (tests/fixtures/zod-draft-exports.json): the exports differ
    only in `$schema`, tuples (`prefixItems`/`items` → `items` array/`additionalItems`,
    keeping key positions) and `$defs` → `definitions` (with `$ref`s rewritten).
    """
    return _draft07(schema, top=True)


def _draft07(value: Any, *, top: bool = False) -> Any:
    if isinstance(value, list):
        return [_draft07(item) for item in value]
    if not isinstance(value, dict):
        return value
    tuple_form = "prefixItems" in value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if top and key == "$schema":
            continue
        if tuple_form and key == "prefixItems":
            out["items"] = _draft07(item)
        elif tuple_form and key == "items":
            out["additionalItems"] = _draft07(item)
        elif key == "$defs":
            out["definitions"] = {name: _draft07(sub) for name, sub in item.items()}
        elif key == "$ref" and isinstance(item, str) and item.startswith("#/$defs/"):
            out["$ref"] = "#/definitions/" + item[len("#/$defs/") :]
        elif key in ("properties", "definitions", "patternProperties") and isinstance(item, dict):
            out[key] = {name: _draft07(sub) for name, sub in item.items()}
        else:
            out[key] = _draft07(item)
    return out


def _schema(value: Any, where: str) -> ToolSchema:
    if not isinstance(value, dict):
        raise InvalidTools(f"{where}: a schema must be a JSON object")
    odd = unencodable_at(value)
    if odd is not None:  # the schema is hashed as canonical JSON, which has no such number
        raise InvalidTools(
            f"{where}: {odd} is NaN, infinite or out of range (like 1e400), which JSON cannot carry"
        )
    if not JSON_SCHEMA_KEYWORDS.intersection(value):
        raise InvalidTools(
            f"{where}: not a JSON Schema (no keyword such as `type` or `properties`);"
            " TanStack would reject it"
        )
    declared = value.get("$schema")
    if declared == DRAFT_2020_12:
        return ToolSchema(value, SchemaSource.ZOD)
    if isinstance(declared, str) and "draft-07" in declared:
        raise InvalidTools(
            f"{where}: a draft-07 export cannot be hashed; export zod schemas with"
            f" `{ZOD_EXPORT}` (draft-2020-12, keeps `$schema`)"
        )
    return ToolSchema(value, SchemaSource.RAW)


def parse_tool(entry: Any, where: str) -> ToolDefinition:
    """Read one tool definition (`name`, `inputSchema`, `approvalSchema`, `outputSchema`)."""
    if not isinstance(entry, dict):
        raise InvalidTools(f"{where}: a tool definition must be a JSON object")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidTools(f"{where}: `name` must be a non-empty string")
    where = f"{where} ({name})"
    unknown = sorted(set(entry) - TOOL_KEYS)
    if unknown:
        raise InvalidTools(f"{where}: unknown key {unknown[0]!r}")
    input_schema = None
    if entry.get("inputSchema") is not None:
        input_schema = _schema(entry["inputSchema"], f"{where}: inputSchema")
    output_schema = None
    if entry.get("outputSchema") is not None:
        output_schema = _schema(entry["outputSchema"], f"{where}: outputSchema")
    approve = reject = None
    approval = entry.get("approvalSchema")
    if approval is not None:
        branch_keys = set(approval) if isinstance(approval, dict) else set()
        if branch_keys and branch_keys <= {"approve", "reject"}:
            if approval.get("approve") is not None:
                approve = _schema(approval["approve"], f"{where}: approvalSchema.approve")
            if approval.get("reject") is not None:
                reject = _schema(approval["reject"], f"{where}: approvalSchema.reject")
        else:
            approve = reject = _schema(approval, f"{where}: approvalSchema")
    needs_approval = entry.get("needsApproval", approval is not None)
    if not isinstance(needs_approval, bool):
        raise InvalidTools(f"{where}: `needsApproval` must be true or false")
    client = entry.get("client")
    if client is not None and not isinstance(client, bool):
        raise InvalidTools(f"{where}: `client` must be true or false")
    return ToolDefinition(
        name, input_schema, approve, reject, output_schema, needs_approval, client
    )


def parse_tools(data: Any) -> dict[str, ToolDefinition]:
    """A tools document — a list of definitions or `{"tools": [...]}` — keyed by name."""
    entries = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise InvalidTools('tools: expected a JSON array of tool definitions or {"tools": [...]}')
    tools: dict[str, ToolDefinition] = {}
    for index, entry in enumerate(entries):
        tool = parse_tool(entry, f"tools[{index}]")
        if tool.name in tools:
            raise InvalidTools(f"tools[{index}]: tool {tool.name!r} is defined twice")
        tools[tool.name] = tool
    return tools


def tool_map(tools: Iterable[Mapping[str, Any]] | None) -> dict[str, ToolDefinition] | None:
    """`parse_tools` for the `tools=` argument of the translator (None stays None)."""
    return None if tools is None else parse_tools(list(tools))


def load_tools(path: Path) -> list[dict[str, Any]]:
    """Read and check a tools file; returns the raw definitions for `translate_items`."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise InvalidTools(f"{path}: {read_failure(error)}") from None
    try:
        data = bounded_json.loads(text)
    except ValueError as error:
        raise InvalidTools(f"{path}: not valid JSON ({error})") from None
    try:
        parse_tools(data)
    except InvalidTools as error:
        raise InvalidTools(f"{path}: {error}") from None
    entries = data.get("tools") if isinstance(data, dict) else data
    assert isinstance(entries, list)
    return [entry for entry in entries if isinstance(entry, dict)]


def _envelope(approved: bool, payload: ToolSchema | None, edited: ToolSchema | None) -> Any:
    properties: dict[str, Any] = {"approved": {"const": approved}}
    required = ["approved"]
    if approved and edited is not None:
        properties["editedArgs"] = edited.json
    if payload is not None:
        properties["payload"] = payload.json
        required.append("payload")
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def approval_schemas(tool: ToolDefinition) -> ApprovalSchemas:
    """`normalizeApprovalSchema(tool.approvalSchema, tool.inputSchema)`."""
    response = {
        "oneOf": [
            _envelope(True, tool.approve_schema, tool.input_schema),
            _envelope(False, tool.reject_schema, None),
        ]
    }
    branches = {
        "approve": tool.approve_schema.json if tool.approve_schema else None,
        "reject": tool.reject_schema.json if tool.reject_schema else None,
    }
    return ApprovalSchemas(response, digest(response), digest(branches))


def _hash(schema: ToolSchema | None) -> str:
    return hash_schema_input(None if schema is None else schema.json)


def approval_descriptor(
    *,
    interrupt_id: str,
    tool_call_id: str,
    tool_name: str,
    args: Any,
    run_id: str,
    tool: ToolDefinition | None,
) -> dict[str, Any]:
    """A `tool_call` descriptor; binding and `responseSchema` only when the tool is known."""
    descriptor: dict[str, Any] = {
        "id": interrupt_id,
        "reason": APPROVAL_REASON,
        "message": f"Approval required to run {tool_name}",
        "toolCallId": tool_call_id,
    }
    metadata: dict[str, Any] = {"kind": "approval", "toolName": tool_name, "input": args}
    if tool is not None:
        schemas = approval_schemas(tool)
        descriptor["responseSchema"] = schemas.response_schema
        metadata[BINDING_KEY] = {
            "v": 1,
            "kind": "tool-approval",
            "interruptId": interrupt_id,
            "toolName": tool_name,
            "toolCallId": tool_call_id,
            "originalArgs": args,
            "inputSchemaHash": _hash(tool.input_schema),
            "approvalSchemaHash": schemas.approval_schema_hash,
            "responseSchemaHash": schemas.response_schema_hash,
            "interruptedRunId": run_id,
            "generation": 0,
        }
    descriptor["metadata"] = metadata
    return descriptor


def client_tool_descriptor(
    *,
    tool_call_id: str,
    tool_name: str,
    args: Any,
    run_id: str,
    tool: ToolDefinition | None,
) -> dict[str, Any]:
    """A `tanstack:client_tool_execution` descriptor (id `client_tool_<toolCallId>`)."""
    interrupt_id = f"client_tool_{tool_call_id}"
    descriptor: dict[str, Any] = {
        "id": interrupt_id,
        "reason": CLIENT_TOOL_REASON,
        "message": f"Client tool {tool_name} is ready to run",
        "toolCallId": tool_call_id,
    }
    metadata: dict[str, Any] = {"kind": "client_tool", "toolName": tool_name, "input": args}
    if tool is not None:
        response = tool.output_schema.draft07() if tool.output_schema is not None else {}
        descriptor["responseSchema"] = response
        metadata[BINDING_KEY] = {
            "v": 1,
            "kind": "client-tool-execution",
            "interruptId": interrupt_id,
            "toolName": tool_name,
            "toolCallId": tool_call_id,
            "outputSchemaHash": _hash(tool.output_schema),
            "responseSchemaHash": digest(response),
            "interruptedRunId": run_id,
            "generation": 0,
        }
    descriptor["metadata"] = metadata
    return descriptor
