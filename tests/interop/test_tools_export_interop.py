"""The zod export the README tells users to write a tools file with gives the real hashes.

A team builds `--tools FILE` from its own zod schemas with the call the README names
(`replay.interrupts.descriptors.ZOD_EXPORT`); the test runs that call on the test
bed's own tool definitions under zod 4.6.7 and checks that the descriptors agui builds
from the result equal, byte for byte, those the real `@tanstack/ai` 0.58.0 server
recorded. zod's default export (`io: 'output'`) adds `additionalProperties: false`, so
a tools file written with it gives other hashes: the client then types no item.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from replay.interrupts.descriptors import (
    ZOD_EXPORT,
    approval_descriptor,
    client_tool_descriptor,
    parse_tools,
)
from replay.wire.sse import decode_bytes
from tests.interop.harness import REPO_ROOT, NodeTools

NATIVE = REPO_ROOT / "tests" / "fixtures" / "recordings" / "native"
SCENARIOS = ("tool-approval", "client-tool", "two-approvals")

# Writes the tools file of SCENARIOS from the catalogue's zod definitions, each schema
# through EXPORT (the documented call, with `schema` bound).
EXPORT_SCRIPT = """
import { z } from 'zod'
import { catalog } from './scenarios.mjs'
const exportSchema = (schema) => (EXPORT)
const tools = new Map()
for (const name of SCENARIOS) {
  for (const def of catalog.scenarios[name].tools) {
    tools.set(def.name, {
      name: def.name,
      ...(def.needsApproval ? { needsApproval: true } : {}),
      inputSchema: exportSchema(def.inputSchema),
      ...(def.outputSchema ? { outputSchema: exportSchema(def.outputSchema) } : {}),
      client: !catalog.serverExecutors[def.name],
    })
  }
}
process.stdout.write(JSON.stringify([...tools.values()]))
"""


def _exported_tools(node: NodeTools, project: Path, call: str) -> list[dict[str, Any]]:
    script = EXPORT_SCRIPT.replace("EXPORT", call).replace("SCENARIOS", json.dumps(SCENARIOS))
    done = subprocess.run(
        [node.node, "--input-type=module", "-e", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    tools: list[dict[str, Any]] = json.loads(done.stdout)
    return tools


def _real_interrupts() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for scenario in SCENARIOS:
        for path in sorted(NATIVE.glob(f"{scenario}.*.run1.sse")):
            for message in decode_bytes(path.read_bytes()):
                event = json.loads(message.data)
                if event.get("type") == "RUN_FINISHED" and event.get("outcome"):
                    found.extend(event["outcome"]["interrupts"])
    assert found
    return found


def _ours(real: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    by_name = parse_tools(tools)
    binding = real["metadata"]["tanstack:interruptBinding"]
    name = real["metadata"]["toolName"]
    common: dict[str, Any] = {
        "tool_call_id": real["toolCallId"],
        "tool_name": name,
        "args": real["metadata"]["input"],
        "run_id": binding["interruptedRunId"],
        "tool": by_name[name],
    }
    if real["reason"] == "tool_call":
        return approval_descriptor(interrupt_id=real["id"], **common)
    return client_tool_descriptor(**common)


def test_the_readme_documents_the_export_that_is_checked() -> None:
    assert f"`{ZOD_EXPORT}`" in (REPO_ROOT / "README.md").read_text("utf-8")


def test_the_documented_export_gives_the_real_servers_descriptors(
    interop_node: NodeTools, native_project: Path
) -> None:
    tools = _exported_tools(interop_node, native_project, ZOD_EXPORT)
    for real in _real_interrupts():
        assert json.dumps(_ours(real, tools)) == json.dumps(real)


@pytest.mark.parametrize("call", ["z.toJSONSchema(schema)"])
def test_zods_default_export_gives_other_hashes(
    interop_node: NodeTools, native_project: Path, call: str
) -> None:
    tools = _exported_tools(interop_node, native_project, call)
    real = _real_interrupts()[0]
    ours = _ours(real, tools)
    key = "tanstack:interruptBinding"
    assert ours["metadata"][key]["inputSchemaHash"] != real["metadata"][key]["inputSchemaHash"]
