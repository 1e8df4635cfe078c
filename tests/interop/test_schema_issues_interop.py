"""agui words a schema violation as zod 4.6.7 itself does, checked against real zod.

`agui resume` validates an answer locally against the descriptor's `responseSchema`,
zod's JSON Schema export of the schema the server validates with, and words what it
finds as the server (zod) would (`replay.interrupts.schema_issues`). Each case below
is a zod schema of the test bed's zod, exported both ways TanStack sends one (draft
2020-12 with `$schema`, draft-07 without), and a few answers: agui's issues on the
export must be zod's `safeParse` issues on the schema, path and words. The unions
are the delicate part: zod reports `Invalid input` for a union, except when exactly
one option failed only its checks (a `z.iso.datetime()`'s format), whose issues it
reports instead.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from replay.interrupts.schema_issues import schema_errors
from tests.interop.harness import NodeTools

SCRIPT = r"""
import { z } from 'zod'
const at = z.iso.datetime()
const cases = {
  'union-object-with-datetime-or-literal': [
    z.object({ window: z.union([z.object({ at }), z.literal('now')]) }),
    [{ window: { at: 'yesterday' } }, { window: { at: '2026-12-02T10:00:00Z' } },
     { window: 'later' }, { window: 5 }, { window: {} }, { window: 'now' }],
  ],
  'union-datetime-or-literal': [
    z.object({ when: z.union([at, z.literal('now')]) }),
    [{ when: 'yesterday' }, { when: 5 }, { when: '2026-12-02T10:00:00.5Z' }, {}],
  ],
  'union-string-datetime-or-object': [
    z.object({ window: z.union([z.object({ at: z.string().datetime() }),
                                z.object({ n: z.number() })]) }),
    [{ window: { at: 'soon' } }, { window: { n: 'x' } }, { window: { at: 'soon', n: 1 } }],
  ],
  'union-datetime-or-number': [
    z.object({ when: z.union([at, z.number()]) }),
    [{ when: 'x' }, { when: true }, { when: 4 }],
  ],
  'union-of-two-checked-options': [
    z.object({ when: z.union([at, z.string().min(3)]) }),
    [{ when: 'x' }],
  ],
  'union-datetime-and-missing-key': [
    z.object({ window: z.union([z.object({ at, note: z.string() }), z.literal(1)]) }),
    [{ window: { at: 'x' } }, { window: { at: 'x', note: 'n' } }],
  ],
  'union-two-datetimes': [
    z.object({ span: z.union([z.object({ from: at, to: at }), z.literal(1)]) }),
    [{ span: { from: 'x', to: 'y' } }, { span: { from: 'x', to: '2026-12-02T10:00:00Z' } }],
  ],
  'nested-union': [
    z.object({ when: z.union([z.union([at, z.literal(1)]), z.literal(2)]) }),
    [{ when: 'x' }, { when: 3 }],
  ],
  'nullable-datetime': [
    z.object({ at: at.nullable() }),
    [{ at: 'x' }, { at: null }, { at: 3 }, {}],
  ],
  'datetime-date-email-uuid': [
    z.object({ at, day: z.iso.date(), mail: z.email(), id: z.uuid() }),
    [{ at: 'x', day: 'x', mail: 'x', id: 'x' }],
  ],
  'union-date-or-literal': [
    z.object({ day: z.union([z.iso.date(), z.literal(0)]) }),
    [{ day: '2026-13-01' }],
  ],
  'nullable-array-and-union': [
    z.object({
      pair: z.array(z.number()).nullable(),
      window: z.union([z.literal('now'), z.object({ at: z.string() })]),
    }),
    [{ pair: [1, 'b'], window: { at: 5 } }, { pair: null, window: 'now' }],
  ],
}
const out = []
for (const [name, [schema, values]] of Object.entries(cases)) {
  const draft2020 = z.toJSONSchema(schema, { io: 'input' })
  const { $schema, ...draft07 } = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' })
  for (const value of values) {
    const parsed = schema.safeParse(value)
    const issues = parsed.success ? [] : parsed.error.issues.map((i) => [i.path, i.message])
    out.push({ name, draft2020, draft07, value, issues })
  }
}
process.stdout.write(JSON.stringify(out))
"""


@pytest.fixture(scope="module")
def zod_cases(interop_node: NodeTools, native_project: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [interop_node.node, "--input-type=module", "-e", SCRIPT],
        cwd=native_project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    cases: list[dict[str, Any]] = json.loads(done.stdout)
    return cases


def test_agui_words_each_issue_as_zod_does(zod_cases: list[dict[str, Any]]) -> None:
    assert len(zod_cases) > 20
    for case in zod_cases:
        zods = [(tuple(path), message) for path, message in case["issues"]]
        for export in ("draft2020", "draft07"):
            ours = schema_errors(case[export], case["value"])
            assert ours == zods, (case["name"], export, case["value"])


def test_the_cases_hold_a_union_reporting_its_datetime(zod_cases: list[dict[str, Any]]) -> None:
    """The case this was written for: zod reports the datetime inside the union."""
    reported = {(case["name"], json.dumps(case["value"])): case["issues"] for case in zod_cases}
    assert reported["union-object-with-datetime-or-literal", '{"window": {"at": "yesterday"}}'] == [
        [["window", "at"], "Invalid ISO datetime"]
    ]
    assert reported["union-datetime-or-literal", '{"when": 5}'] == [[["when"], "Invalid input"]]
