"""The plain readers' strict parser (`event_json.strict_from_json`) and the piece
reader's (`replay.large.pieces._parse`, pydantic-core with `allow_inf_nan=False`) accept
exactly the same texts, with the same values: a `NaN`, `Infinity` or `-Infinity` literal
is refused by both, the word inside a string by neither, and `1e400` is JSON to both."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import from_json as pydantic_from_json

from replay.large import pieces
from replay.wire import event_json

WORDS = ["NaN", "Infinity", "-Infinity", "Infinity and beyond", 'a"NaN', "\\", "x\\", "é", ""]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),  # json.dumps writes NaN, Infinity
    st.sampled_from(WORDS),
    st.text(max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(WORDS), inner, max_size=3)
    ),
    max_leaves=10,
)
EDITS = st.sampled_from(
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-1e400",
        "1e-400",
        '"NaN"',
        "NaNx",
        "Na",
        "Infinit",
        "+Infinity",
        "-NaN",
        "nan",
        '"',
        "\\",
        '\\"',
        ",",
        ":",
        "[",
        "]",
        "{",
        "}",
        " ",
        "",
    ]
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A JSON-ish text: a random value (maybe nested deep) written out, maybe edited."""
    value = draw(VALUES)
    for _ in range(draw(st.sampled_from([0, 0, 1, 5, 60, 199, 201]))):
        value = [value] if draw(st.booleans()) else {"v": value}
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])),
    )
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 2))
        text = text[:at] + draw(EDITS) + text[at + cut :]
    return text


def _outcome(parse: Callable[[Any], Any], text: Any) -> tuple[str, str]:
    try:
        return "value", repr(parse(text))
    except ValueError:
        return "refused", ""


def _strict_json_first(text: str) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(event_json, "json_first", lambda: True)
        return event_json.strict_parser()(text)


def _strict_pydantic(text: str) -> Any:
    return event_json.strict_from_json(text, pydantic_from_json)


@settings(max_examples=2000, deadline=None)
@given(text=texts())
def test_the_strict_parser_and_the_pieces_parser_accept_the_same_texts(text: str) -> None:
    expected = _outcome(pieces._parse, text.encode("utf-8"))
    assert _outcome(_strict_json_first, text) == expected
    assert _outcome(_strict_pydantic, text) == expected


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ('{"a":NaN}', False),
        ('{"a":[1,{"b":-Infinity}]}', False),
        ('{"NaN":Infinity}', False),
        ('{"a":"NaN","b":"-Infinity"}', True),
        ('{"a":"x\\"NaN","b":"\\\\"}', True),
        ('{"a":1e400,"b":-1e400}', True),
        ('{"a":' + "[" * 150 + "NaN" + "]" * 150 + "}", False),
    ],
)
def test_known_cases(text: str, accepted: bool) -> None:
    expected = _outcome(pieces._parse, text.encode("utf-8"))
    assert (expected[0] == "value") is accepted
    assert _outcome(_strict_json_first, text) == expected
    assert _outcome(_strict_pydantic, text) == expected


def test_the_refusal_names_the_first_literal() -> None:
    with pytest.raises(event_json.JavaScriptLiteral) as refused:
        event_json.strict_from_json('{"a":"NaN","b":[-Infinity,NaN]}')
    assert refused.value.literal == "-Infinity"
    assert str(refused.value) == (
        "-Infinity is not JSON (TanStack's client, with JSON.parse, throws)"
    )
