"""`wire_json` and the translator's `compact_json` write what real node's `JSON.stringify`
writes for the value `JSON.parse` reads from the same text.

Hypothesis draws hostile JSON texts (tests.hostile_values: numbers no double holds,
`-0`, `2**53 + 1`, lone surrogates, array-index keys, duplicate keys) and random
doubles; Python's answers are collected while it runs, and one node process answers
for the whole batch at the end.
"""

from __future__ import annotations

import json
import math
import subprocess
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.wire import bounded_json
from replay.wire.canonical import (
    as_javascript_reads,
    compact_json,
    js_compact_json,
    js_number,
    wire_json,
)
from tests.hostile_values import json_text, values
from tests.interop.harness import NodeTools

INDEX_LIKE = st.sampled_from(
    ["0", "9", "10", "01", "-1", "1.5", "4294967294", "4294967295", "99999999999", "b", "__proto__"]
)
"""Keys JavaScript orders first (array indexes, up to 2**32 - 2) and near misses."""

STRINGIFY = """
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = texts.map((text) => {
  try { return JSON.stringify(JSON.parse(text)); } catch { return null; }
});
process.stdout.write(JSON.stringify(out));
"""


def _node_stringify(node: NodeTools, texts: list[str]) -> list[str | None]:
    done = subprocess.run(
        [node.node, "-e", STRINGIFY],
        input=json.dumps(texts).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    answers: list[str | None] = json.loads(done.stdout)
    return answers


def _python(text: str) -> str | None:
    try:
        value = bounded_json.loads(text)
    except ValueError:
        return None  # refused (too deep, too many digits): nothing to compare
    written = compact_json(value)
    assert js_compact_json(value) == written
    assert wire_json(as_javascript_reads(value)) == written
    return written


def test_wire_json_writes_what_json_stringify_writes(interop_node: NodeTools) -> None:
    texts: list[str] = []
    ours: list[str | None] = []

    @settings(
        max_examples=400,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.one_of(values, st.dictionaries(INDEX_LIKE | st.text(max_size=3), values, max_size=5)))
    def collect(value: Any) -> None:
        text = json_text(value)
        texts.append(text)
        ours.append(_python(text))

    collect()
    theirs = _node_stringify(interop_node, texts)
    differ = [
        (text, mine, node)
        for text, mine, node in zip(texts, ours, theirs, strict=True)
        if mine is not None and mine != node
    ]
    assert not differ, differ[:5]
    assert sum(mine is not None for mine in ours) > len(ours) // 2  # most were compared


def test_js_number_spells_doubles_as_javascript_does(interop_node: NodeTools) -> None:
    numbers: list[float] = []

    @settings(max_examples=500, deadline=None, derandomize=True)
    @given(
        st.floats(allow_nan=False, allow_infinity=False)
        | st.sampled_from([5e-324, 1e21, 1e-7, 2.0**53 + 2, 123456789.125, 1e-6, -0.0])
    )
    def collect(number: float) -> None:
        numbers.append(number)

    collect()
    texts = [repr(number) for number in numbers]  # `1e-07`, `1.5e+300`: valid JSON
    theirs = _node_stringify(interop_node, texts)
    differ = [
        (number, js_number(number), node)
        for number, node in zip(numbers, theirs, strict=True)
        if math.isfinite(number) and js_number(number) != node
    ]
    assert not differ, differ[:5]
