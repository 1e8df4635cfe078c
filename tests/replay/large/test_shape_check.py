"""`replay.large.shape_check.all_valid` answers exactly what pydantic answers, and fast.

Equivalence is property-tested against `replay.wire.events.validate_batch` on real-looking
events of every type (the native recordings plus one seed per remaining type), mutated
the ways a hostile or sloppy stream would be. Separate tests pin that the fast path
really decides the common shapes alone, and that what it cannot prove goes to pydantic.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import EventType
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import SchemaValidator, ValidationError

import replay.large.shape_check as shape_check
from replay.large.shape_check import all_valid
from replay.wire.event_models import EVENT_ADAPTER
from replay.wire.event_schema_gen import _Reducer
from replay.wire.event_schema_table import TABLE
from replay.wire.events import validate_batch

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"
MAX_SAFE = 9007199254740991


def _recorded_events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for path in sorted(NATIVE.glob("*.sse")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :]))
    return events


RECORDED = _recorded_events()

SEEDS: list[dict[str, Any]] = [
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "hi"},
    {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{}"},
    {
        "type": "TOOL_CALL_RESULT",
        "messageId": "m2",
        "toolCallId": "c1",
        "content": [{"type": "text", "text": "ok"}],
        "role": "tool",
    },
    {"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}, "timestamp": 5},
    {
        "type": "STATE_DELTA",
        "delta": [{"op": "add", "path": "/count", "value": 2}, {"op": "remove", "path": "/x"}],
    },
    {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "d", "role": "developer", "content": "be brief"},
            {"id": "s", "role": "system", "content": "sys"},
            {"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"id": "t", "role": "tool", "content": "42", "toolCallId": "c1"},
            {"id": "a", "role": "activity", "activityType": "plan", "content": {"s": 1}},
        ],
    },
    {"type": "ACTIVITY_SNAPSHOT", "messageId": "m3", "activityType": "plan", "content": {}},
    {
        "type": "ACTIVITY_DELTA",
        "messageId": "m3",
        "activityType": "plan",
        "patch": [{"op": "replace", "path": "/a", "value": 1}],
    },
    {"type": "RAW", "event": {"anything": [1, 2]}, "source": "openai"},
    {"type": "CUSTOM", "name": "ping", "value": None},
    {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
        "input": {"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": []},
    },
    {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "outcome": {"type": "success", "pendingToolCallIds": ["c1"]},
        "usage": [{"inputTokens": 3, "outputTokens": 0, "model": "m"}],
    },
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "cancelled"}},
    {"type": "RUN_ERROR", "message": "boom", "code": "E1"},
    {"type": "STEP_STARTED", "stepName": "plan"},
    {"type": "STEP_FINISHED", "stepName": "plan", "timestamp": 0},
    {"type": "REASONING_START", "messageId": "r1"},
    {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "hmm"},
    {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
    {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "delta": "x"},
    {"type": "REASONING_END", "messageId": "r1"},
    {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "tool-call",
        "entityId": "c1",
        "encryptedValue": "xyz",
    },
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": {"type": "success"}},
    {"type": "SUBAGENT_ERROR", "subagentRunId": "s1", "message": "failed"},
]
EVENTS = RECORDED + SEEDS

ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    0.5,
    float("nan"),
    MAX_SAFE,
    MAX_SAFE + 1,
    -MAX_SAFE,
    -MAX_SAFE - 1,
    10**30,
    "",
    "x",
    "assistant",
    "user",
    "reasoning",
    "tool-call",
    "success",
    "interrupt",
    "text",
    "add",
    "/a",
    "not a pointer",
    "RUN_STARTED",
    "TEXT_MESSAGE_CONTENT",
    "UNKNOWN_TYPE",
    "text_message_content",
    EventType.RUN_STARTED,
    EventType.TEXT_MESSAGE_CONTENT,
    [],
    ["a"],
    [1],
    {},
    {"a": 1},
    {1: "a"},
    {"type": "text", "text": "t"},
    ("a",),
    b"bytes",
]
"""Values a field is set to: wrong types, bool and float for ints, bounds and just past
them, literal values of the right and wrong fields, enum members for their values."""

values = st.one_of(
    st.sampled_from(ODD_VALUES),
    st.integers(),
    st.floats(),
    st.text(max_size=5),
    st.lists(st.sampled_from(ODD_VALUES[:12]), max_size=2),
    st.dictionaries(st.text(max_size=3), st.sampled_from(ODD_VALUES[:12]), max_size=2),
)


def _snake(name: Any) -> Any:
    """The snake_case spelling of a key (a mutated nested value may have other keys)."""
    if not isinstance(name, str):
        return name
    return "".join("_" + char.lower() if char.isupper() else char for char in name)


def _containers(value: Any) -> list[Any]:
    """The dicts and lists in `value`, itself included, outermost first."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A real-looking event with zero or more mutations, at the top or nested inside.

    Every drawn value is copied: a later mutation may change it in place.
    """

    def fresh(strategy: st.SearchStrategy[Any]) -> Any:
        return copy.deepcopy(draw(strategy))

    event: dict[str, Any] = fresh(st.sampled_from(EVENTS))
    for _ in range(draw(st.integers(0, 3))):
        containers = _containers(event)
        target = draw(st.sampled_from(containers[:1] * 3 + containers))  # favour the top
        if isinstance(target, list):
            replace: bool = draw(st.booleans())
            if target and replace:
                target[draw(st.integers(0, len(target) - 1))] = fresh(values)
            else:
                target.append(fresh(values))
            continue
        keys = list(target)
        action = draw(st.sampled_from(["drop", "extra", "snake", "both", "value", "value", "type"]))
        if action == "type":
            target["type"] = fresh(
                st.one_of(st.sampled_from(list(EventType)), st.sampled_from(ODD_VALUES))
            )
        elif action == "extra":
            extra_names = ["extra", "x", "é", "\ud800", "message_id", "tool_call_id"]
            name = draw(st.sampled_from(extra_names))
            target[name] = fresh(values)
        elif keys:
            key = draw(st.sampled_from(keys))
            if action == "drop":
                del target[key]
            elif action == "snake":
                target[_snake(key)] = target.pop(key)
            elif action == "both":
                target[_snake(key)] = target[key]
            else:
                target[key] = fresh(values)
    return event


def test_seeds_and_recordings_are_valid_events() -> None:
    """The property tests start from valid events of every type (else they test less)."""
    assert validate_batch(EVENTS)
    seen = {event["type"] for event in EVENTS}
    assert seen == {member.value for member in EventType}


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_single_events_agree_with_pydantic(event: dict[str, Any]) -> None:
    assert all_valid([event]) == validate_batch([event])


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(EVENTS), mutated()), min_size=1, max_size=12))
def test_batches_agree_with_pydantic(batch: list[dict[str, Any]]) -> None:
    assert all_valid(batch) == validate_batch(batch)


@pytest.mark.parametrize(
    "event",
    [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d", "timestamp": MAX_SAFE},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d", "timestamp": -MAX_SAFE},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d", "timestamp": None},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "user"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "metadata": {"k": [1]}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "finishReason": "tool_calls"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m", "extra": {"any": [None, 1.5]}, "é": 1},
    ],
)
def test_valid_edges_are_decided_by_the_fast_path(
    event: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shape_check, "_fallback", _no_fallback)
    assert all_valid([event])


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("timestamp", MAX_SAFE + 1),
        ("timestamp", -MAX_SAFE - 1),
        ("timestamp", True),
        ("timestamp", 1.0),
        ("timestamp", "1"),
        ("delta", 1),
        ("delta", None),
        ("messageId", ["m"]),
        ("message_id", "m"),
        ("\ud800", 1),
        ("type", EventType.TEXT_MESSAGE_CONTENT),
        ("type", "TOOL_CALL_ARGS"),
    ],
)
def test_what_the_fast_path_cannot_prove_goes_to_pydantic(key: str, value: Any) -> None:
    event = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d", "timestamp": 1}
    event[key] = value
    calls: list[list[dict[str, Any]]] = []

    def fallback(datas: list[dict[str, Any]]) -> bool:
        calls.append(datas)
        return validate_batch(datas)

    plain = {"type": "TEXT_MESSAGE_END", "messageId": "m"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shape_check, "_fallback", fallback)
        answer = all_valid([plain, event, plain])
    assert answer == validate_batch([event])
    assert calls == [[event]]  # only the unproven event, never the proven ones


def test_recorded_events_are_decided_without_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    """The speed-up cannot silently vanish: real shapes never reach the fallback."""
    monkeypatch.setattr(shape_check, "_fallback", _no_fallback)
    assert all_valid(RECORDED)
    assert all_valid(RECORDED * 3)
    for event in RECORDED:
        assert all_valid([event])


def test_unsupported_schema_nodes_fall_back() -> None:
    """A JSON pointer `pattern` is beyond the fast path: pydantic decides, both ways."""
    good = {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]}
    bad = {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "no slash", "value": 1}]}
    assert not validate_batch([bad])
    calls: list[int] = []

    def fallback(datas: list[dict[str, Any]]) -> bool:
        calls.append(len(datas))
        return validate_batch(datas)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shape_check, "_fallback", fallback)
        assert all_valid([good])
        assert not all_valid([bad])
    assert calls == [1, 1]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    count: int = Field(default=0, ge=0)


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class _MinLength(BaseModel):
    model_config = ConfigDict(str_min_length=3)
    name: str


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True)
    name: str


class _Validated(BaseModel):
    name: str = Field(pattern="^a")


def test_model_compilation_refuses_what_could_change_validity() -> None:
    lenient = _compiled(_Lenient.__pydantic_core_schema__)
    assert lenient is not None
    assert lenient([{"name": "ab"}, {"name": "x", "count": 0}])
    assert not lenient([{"name": "x", "count": -1}])  # not proven (pydantic rejects it)
    assert lenient([{"name": "x", "other": 1}])  # extra="allow": any extra value
    strict_extra = _compiled(_Closed.__pydantic_core_schema__)
    assert strict_extra is not None
    assert strict_extra([{"name": "x"}])
    assert not strict_extra([{"name": "x", "other": 1}])  # extra="forbid": refused
    for model in (_MinLength, _Strict):
        assert _compiled(model.__pydantic_core_schema__) is None
    # Fields compile per key set: an unsupported field refuses the dicts that have it.
    validated = _compiled(_Validated.__pydantic_core_schema__)
    assert validated is not None
    assert not validated([{"name": "abc"}])
    assert _compiled({"type": "int", "multiple_of": 2}) is None
    assert _compiled({"type": "str", "pattern": "a"}) is None
    assert _compiled({"type": "float"}) is None
    assert _compiled({"type": "int", "strict": True}) is None
    assert _compiled({"type": "literal", "expected": [1]}) is None


NODE_SCHEMAS: list[dict[str, Any]] = [
    {"type": "str"},
    {"type": "str", "min_length": 1, "max_length": 2},
    {"type": "int", "ge": -2, "le": 2},
    {"type": "int", "gt": -2, "lt": 2},
    {"type": "int"},
    {"type": "bool"},
    {"type": "any"},
    {"type": "literal", "expected": [EventType.RUN_STARTED]},
    {"type": "literal", "expected": ["assistant", "user"]},
    {"type": "nullable", "schema": {"type": "int", "ge": 0}},
    {"type": "list", "items_schema": {"type": "str"}, "min_length": 1},
    {"type": "dict", "keys_schema": {"type": "str"}, "values_schema": {"type": "int"}},
    {
        "type": "union",
        "choices": [{"type": "str"}, {"type": "list", "items_schema": {"type": "bool"}}],
    },
]


@pytest.mark.parametrize("schema", NODE_SCHEMAS)
@settings(max_examples=150)
@given(
    st.lists(
        st.one_of(values, st.sampled_from(["RUN_STARTED", EventType.RUN_STARTED, 2, -2])),
        max_size=4,
    )
)
def test_each_node_check_proves_only_what_pydantic_accepts(
    schema: dict[str, Any], column: list[Any]
) -> None:
    check = _compiled(schema)
    assert check is not None
    validator = SchemaValidator(schema)
    if check(column):
        for value in column:
            validator.validate_python(value)
    if all(check([value]) for value in column):
        assert check(column)


def test_enum_literals_accept_their_str_value_both_ways() -> None:
    """A literal of an enum member accepts the member's str value (pydantic lax) ..."""
    schema: Any = {"type": "literal", "expected": [EventType.RUN_STARTED]}
    check = _compiled(schema)
    assert check is not None
    assert check(["RUN_STARTED"])
    SchemaValidator(schema).validate_python("RUN_STARTED")
    # ... the member itself is left to pydantic, and other strings are not proven.
    assert not check([EventType.RUN_STARTED])
    assert not check(["RUN_FINISHED"])
    with pytest.raises(ValidationError):
        SchemaValidator(schema).validate_python("RUN_FINISHED")


def test_the_event_union_is_what_the_fast_path_compiles() -> None:
    """It reads the generated table of the adapter's schema: a tagged union over `type`
    keyed by `EventType`, every member a model the table can decide."""
    schema = EVENT_ADAPTER.core_schema
    assert schema["type"] == "tagged-union"
    assert schema["discriminator"] == "type"
    event = TABLE["event"]
    assert event[:2] == ["tagged", "type"]
    assert set(event[2]) == {member.value for member in EventType}
    assert all(node[0] == "model" for node in event[2].values())
    assert shape_check._top_union() is not None


def _compiled(schema: Any) -> shape_check.Check | None:
    """The column check of a core schema, through its table node (as the generator
    reduces it), which is how the event union's own checks are built."""
    reducer = _Reducer()
    return shape_check._compile(reducer.node(dict(schema)), reducer.models)


def _no_fallback(datas: list[dict[str, Any]]) -> bool:
    raise AssertionError(f"pydantic was asked about {len(datas)} events")
