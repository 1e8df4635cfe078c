"""`replay.wire.event_json.from_json` is pydantic-core's `from_json`: same value, or a
`ValueError` where it raises one, on random JSON texts and their hostile relatives."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import from_json as pydantic_from_json

from replay.wire import event_json

KEYS = st.sampled_from(["type", "a", "runId", "é", "\ud800", "", "a\\u"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["\ud800", "\udfff x", "\\ud800", "日本", "\x00", "\t"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=12,
)
EDITS = st.sampled_from(
    [
        "",
        "x",
        ",",
        "}",
        "]",
        "[",
        "{",
        '"',
        "\\",
        "\\ud800",
        "\\uDC00",
        "\\u0041",
        "NaN",
        "Infinity",
        "-",
        "1e400",
        "01",
        ".5",
        "\ufeff",
        " ",
        "\n",
        "\t",
        '"a":1,"a":2',
        "9" * 5000,
    ]
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A JSON text of a random value, written one of several ways, maybe edited."""
    value = draw(VALUES)
    if draw(st.booleans()):
        depth = draw(st.sampled_from([1, 150, 199, 200, 201, 255, 300, 1500]))
        value = {"type": "CUSTOM", "value": [value] if depth == 1 else _nest(value, depth)}
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])),
    )
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 2))
        text = text[:at] + draw(EDITS) + text[at + cut :]
    return text


def _nest(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


def _outcome(parse: Any, text: str) -> tuple[str, str]:
    try:
        return "value", repr(parse(text))
    except (ValueError, TypeError) as error:  # TypeError: a lone surrogate, unescaped
        return "error", "TypeError" if isinstance(error, TypeError) else "ValueError"


@pytest.fixture(autouse=True)
def _json_goes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a run that has not loaded pydantic-core (the test has, to compare)."""
    monkeypatch.setattr(event_json, "json_first", lambda: True)


@settings(max_examples=1500, deadline=None)
@given(text=texts())
def test_the_value_or_the_error_is_pydantic_cores(text: str) -> None:
    assert _outcome(event_json.from_json, text) == _outcome(pydantic_from_json, text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1,"b":2,"a":3}',
        '{"a":NaN,"b":-Infinity,"c":1e400,"d":-0,"e":-0.0,"f":5e-324}',
        '{"a":2.2250738585072011e-308,"b":1.7976931348623157e308,"c":1E2}',
        '{"a":' + "9" * 40 + "}",
        '{"a":' + "9" * 5000 + "}",
        # A float of more digits than pydantic-core reads: json.loads gives infinity.
        "[" + "9" * 4301 + ".0]",
        '{"a":-' + "9" * 4301 + "e5}",
        '{"a":"' + "9" * 4301 + '","b":1.5}',  # digits in a string: a value either way
        '{"a":"\\ud800"}',
        '{"a":"\\\\ud800"}',
        '{"a":"x\x01"}',
        '\ufeff{"a":1}',
        '{"a":' + "[" * 199 + "]" * 199 + "}",
        '{"a":' + "[" * 200 + "]" * 200 + "}",
        '{"a":' + "[" * 900 + "]" * 900 + "}",
        '{"a":' + "[" * 5000 + "]" * 5000 + "}",
    ],
)
def test_known_differences_of_json_loads_are_decided_by_pydantic_core(text: str) -> None:
    assert _outcome(event_json.from_json, text) == _outcome(pydantic_from_json, text)


def test_bytes_go_to_pydantic_core() -> None:
    text = '{"a":"\u00e9"}'.encode("utf-16")
    assert _outcome(event_json.from_json, text) == _outcome(pydantic_from_json, text)  # type: ignore[arg-type]


def test_json_goes_first_only_until_the_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real `json_first`
    monkeypatch.setattr(event_json, "_budget", [2])
    monkeypatch.delitem(sys.modules, "pydantic_core")  # put back after the test
    assert event_json.parser() is event_json.from_json
    event_json.from_json("{}")
    event_json.from_json("{}")
    assert not event_json.json_first()


@settings(max_examples=200, deadline=None)
@given(
    runs=st.lists(
        st.tuples(st.integers(0, event_json.LONGEST_NUMBER + 3), st.sampled_from(["x", '"', "."])),
        max_size=4,
    )
)
def test_a_long_digit_run_is_found_as_a_search_from_every_digit_finds_it(
    runs: list[tuple[int, str]],
) -> None:
    # The pattern starts only at a run's first digit (else a long line of digits costs
    # its length squared); it must find exactly the runs the plain pattern finds.
    text = "".join("7" * length + after for length, after in runs)
    plain = re.compile(f"[0-9]{{{event_json.LONGEST_NUMBER + 1}}}")
    assert bool(event_json._LONG_DIGITS.search(text)) == bool(plain.search(text))
