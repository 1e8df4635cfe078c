"""The proof without pydantic (replay/wire/event_proof.py) never calls an invalid event
valid, decides the common case, and comes from the installed `ag_ui.core`.

Events are drawn from the generated table itself (every event type, model and field,
valid values), then mutated at random: values of another JSON type, floats, bools and
huge ints for ints, lone surrogates, missing required fields, Python names next to
aliases, extra keys. Whatever the proof accepts, pydantic's `TypeAdapter(Event)` must
accept; the unmutated events the proof must accept. The decoder gives the same items
with the proof as with pydantic alone, on the hostile recordings of the fuzz campaign.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import replay.wire.events as events_module
from replay.wire import event_schema_gen
from replay.wire.event_models import EventType, ValidationError, validate
from replay.wire.event_proof import KNOWN_EVENT_TYPES, proven
from replay.wire.event_schema_table import TABLE
from replay.wire.events import CHECKED, RecordedEvent, decode_events
from replay.wire.sse import decode_chunks
from tests.hostile_streams import recordings

ROOT = Path(__file__).resolve().parents[3]
MANY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**53 - 2, max_value=2**70),
    st.floats(allow_nan=True),
    st.sampled_from(["", "x", "\ud800", "é", "12", "true", "assistant", "RUN_STARTED"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "type", "\udc80"]), st.integers(), max_size=2),
)
"""Values of every JSON kind (and then some) to put where the schema wants another."""
ODD_KEYS = st.sampled_from(["extra", "é", "x\ud800", "\udfff", "run_id", "message_id", ""])


def test_the_committed_table_is_what_the_installed_ag_ui_generates() -> None:
    """Regenerate with `python -m replay.wire.event_schema_gen` after upgrading ag-ui-protocol."""
    assert event_schema_gen.TABLE_PATH.read_text("utf-8") == event_schema_gen.render()


def test_the_event_types_are_ag_uis() -> None:
    assert {member.value for member in EventType} == KNOWN_EVENT_TYPES
    assert TABLE["event"] is not None  # the union is understood: the fast path exists


@st.composite
def _value(
    draw: st.DrawFn, node: Any, depth: int, mutate: bool, skipped: list[str] | None = None
) -> Any:
    """A value the schema `node` accepts (and that the proof covers), maybe mutated;
    `skipped` collects the required fields the proof leaves to pydantic (not drawn)."""
    if mutate and draw(st.integers(0, 9)) == 0:
        return draw(ODD_VALUES)
    kind = node[0]
    if kind == "any":
        return draw(st.one_of(ODD_VALUES, st.recursive(st.integers(), st.lists, max_leaves=3)))
    if kind == "bool":
        return draw(st.booleans())
    if kind == "str":
        low, high = node[1] or 0, node[2]
        return draw(st.text(min_size=low, max_size=min(high or 6, low + 6)))
    if kind == "int":
        ge, le, gt, lt = node[1:5]
        low = ge if ge is not None else (gt + 1 if gt is not None else -(2**60))
        high = le if le is not None else (lt - 1 if lt is not None else 2**60)
        return draw(st.one_of(st.integers(low, high), st.sampled_from([low, high])))
    if kind == "literal":
        return draw(st.sampled_from(node[1]))
    if kind == "nullable":
        if draw(st.booleans()):
            return None
        return draw(_value(node[1], depth, mutate, skipped))
    if kind == "list":
        low, high = node[2] or 0, node[3]
        size = draw(st.integers(low, min(high or 2, low + (2 if depth < 4 else 0))))
        return [draw(_value(node[1], depth + 1, mutate, skipped)) for _ in range(size)]
    if kind == "dict":
        size = draw(st.integers(node[3] or 0, node[3] or 2))
        keys = [draw(_value(node[1], depth + 1, mutate, skipped)) for _ in range(size)]
        try:
            return {key: draw(_value(node[2], depth + 1, mutate, skipped)) for key in keys}
        except TypeError:  # an unhashable key drawn by a mutation
            return {}
    if kind == "union":
        return draw(_value(draw(st.sampled_from(node[1])), depth, mutate, skipped))
    if kind == "tagged":
        tag = draw(st.sampled_from(sorted(node[2])))
        value = draw(_value(node[2][tag], depth, mutate, skipped))
        if isinstance(value, dict) and not (mutate and draw(st.integers(0, 9)) == 0):
            value[node[1]] = tag
        return value
    assert kind == "model", node
    model = TABLE["models"][node[1]]
    out: dict[str, Any] = {}
    for alias, (field, required) in model["fields"].items():
        if field is None:
            if required and skipped is not None:
                skipped.append(alias)
            continue  # a field the proof leaves to pydantic: not drawn valid here
        if required or (depth < 4 and draw(st.booleans())):
            out[alias] = draw(_value(field, depth + 1, mutate, skipped))
    if mutate:
        for _ in range(draw(st.integers(0, 2))):
            choice = draw(st.integers(0, 3))
            if choice == 0 and out:
                del out[draw(st.sampled_from(sorted(out)))]
            elif choice == 1 and model["names"]:
                out[draw(st.sampled_from(model["names"]))] = draw(ODD_VALUES)
            else:
                out[draw(ODD_KEYS)] = draw(ODD_VALUES)
    return out


def _pydantic_accepts(data: Any) -> bool:
    try:
        validate(data)
    except ValidationError:
        return False
    return True


@MANY
@given(st.data())
def test_what_the_proof_accepts_pydantic_accepts(data: st.DataObject) -> None:
    event = data.draw(_value(TABLE["event"], 0, mutate=True))
    if proven(event):
        assert _pydantic_accepts(event), event


@MANY
@given(st.data())
def test_valid_events_of_every_type_are_proven_without_pydantic(data: st.DataObject) -> None:
    skipped: list[str] = []
    event = data.draw(_value(TABLE["event"], 0, mutate=False, skipped=skipped))
    assume(not skipped)  # a required field only pydantic decides (a JSON pointer's pattern)
    assert _pydantic_accepts(event), event
    assert proven(event), event


def test_every_valid_event_of_the_recordings_is_proven() -> None:
    """The common case really is decided without pydantic: real recordings, every event."""
    count = 0
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*.sse")) + sorted(
        (ROOT / "examples").glob("*.sse")
    ):
        for item in decode_events(str(path), decode_chunks([path.read_bytes()])):
            if isinstance(item, RecordedEvent) and _pydantic_accepts(item.data):
                assert proven(item.data), (path, item.data)
                count += 1
    assert count > 100


@contextmanager
def _pydantic_only() -> Iterator[None]:
    """The plain twin: nothing proven, pydantic validates every event."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(events_module, "proven", lambda data: False)
        yield


def _comparable(items: list[Any]) -> list[Any]:
    """Items with each event's model built (a `CHECKED` one on reading it)."""
    return [
        (item.location, item.data, item.text, item.event)
        if isinstance(item, RecordedEvent)
        else item
        for item in items
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=recordings(max_events=30), per_message=st.booleans())
def test_the_decoder_gives_the_same_items_with_the_proof_and_without(
    data: bytes, per_message: bool
) -> None:
    def decode() -> list[Any]:
        stream = decode_chunks([data])
        messages = list(stream) if per_message else stream  # the per-message path too
        return list(decode_events("s.sse", messages))

    fast = decode()
    with _pydantic_only():
        plain = decode()
    assert _comparable(fast) == _comparable(plain)


def test_a_proven_event_carries_checked_and_builds_its_model_on_reading() -> None:
    frame = b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
    (item,) = decode_events("s.sse", decode_chunks([frame]))
    assert isinstance(item, RecordedEvent)
    slot = events_module._EVENT_MEMBER.__get__(item, RecordedEvent)
    assert slot is CHECKED
    model: Any = item.event
    assert model is not None
    assert model.run_id == "r"


def test_the_generator_checks_or_rewrites_a_stale_table_and_help_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "event_schema_table.py"
    stale.write_text("TABLE = {}\n", encoding="utf-8")
    monkeypatch.setattr(event_schema_gen, "TABLE_PATH", stale)
    with pytest.raises(SystemExit) as stop:
        event_schema_gen.main(["--help"])
    assert stop.value.code == 0
    assert event_schema_gen.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert stale.read_text("utf-8") == "TABLE = {}\n"
    assert event_schema_gen.main([]) == 0
    assert stale.read_text("utf-8") == event_schema_gen.render()
    assert event_schema_gen.main(["--check"]) == 0
    assert [path.name for path in tmp_path.iterdir()] == ["event_schema_table.py"]


def test_the_generator_writes_through_a_symlinked_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real.py"
    real.write_text("TABLE = {}\n", encoding="utf-8")
    link = tmp_path / "event_schema_table.py"
    link.symlink_to(real)
    monkeypatch.setattr(event_schema_gen, "TABLE_PATH", link)
    assert event_schema_gen.main([]) == 0
    assert link.is_symlink()
    assert real.read_text("utf-8") == event_schema_gen.render()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["event_schema_table.py", "real.py"]
