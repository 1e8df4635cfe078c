"""`history_tool_calls` reads a request history's tool calls in both shapes and never
raises on a hostile body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.runs.history_tool_calls import history_tool_call_ids, holds_tool_call

LEGACY_RESUME = (
    Path(__file__).resolve().parents[2]
    / "fixtures/recordings/legacy/tool-approval.approve.resume.json"
)


def _without(message: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != key}


def test_the_real_legacy_follow_up_names_its_call_in_both_shapes() -> None:
    """`@tanstack/ai-client` 0.22.1 sends `toolCalls` and UIMessage `parts`; either alone
    still holds the call."""
    messages = json.loads(LEGACY_RESUME.read_text("utf-8"))["messages"]
    for shape in (messages, [_without(m, "parts") for m in messages]):
        assert history_tool_call_ids(shape) == {"call_transfer_1"}
    parts_only = [_without(m, "toolCalls") for m in messages]
    assert history_tool_call_ids(parts_only) == {"call_transfer_1"}
    assert holds_tool_call(parts_only, "call_transfer_1")
    neither = [_without(_without(m, "toolCalls"), "parts") for m in messages]
    assert history_tool_call_ids(neither) == set()
    assert not holds_tool_call(neither, "call_transfer_1")


def test_only_tool_call_parts_with_a_string_id_count() -> None:
    messages = [
        {"parts": [{"type": "tool-result", "id": "r1"}, {"type": "text", "id": "t1"}]},
        {"parts": [{"type": "tool-call", "id": 7}, {"type": "tool-call", "id": ""}]},
        {"parts": [{"type": "tool-call"}, "tool-call", None, ["tool-call"]]},
        {"toolCalls": [{"id": None}, {"id": ["c1"]}, "c1"], "parts": {"type": "tool-call"}},
        {"parts": [{"type": "tool-call", "id": "c2"}], "toolCalls": [{"id": "c3"}]},
    ]
    assert history_tool_call_ids(messages) == {"c2", "c3"}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)
PART = st.fixed_dictionaries(
    {}, optional={"type": st.sampled_from(["tool-call", "text"]) | JSON, "id": JSON}
)
MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "toolCalls": st.lists(PART | JSON, max_size=3) | JSON,
        "parts": st.lists(PART | JSON, max_size=3) | JSON,
        "role": JSON,
    },
)


@given(st.lists(MESSAGE | JSON, max_size=4) | JSON, st.text(max_size=4))
def test_a_hostile_history_never_raises(messages: Any, call_id: str) -> None:
    ids = history_tool_call_ids(messages)
    assert all(isinstance(i, str) and i for i in ids)
    assert holds_tool_call(messages, call_id) == (call_id in ids)
