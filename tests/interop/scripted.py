"""Shared parts of the randomised differential tests on the `scripted` scenario.

The scenario plays the model turns a request carries (`forwardedProps`, see
`scenario_catalog.mjs`), so a test draws a whole script here and plays it on the real
servers. `test_translate_differential.py` and `test_resume_differential.py` draw their
scripts from the same tool catalogue and the same tricky values: unicode (lone
surrogates, U+2028, control characters), nested and empty objects, `__proto__` keys and
numbers such as `1e21`, `-0`, `0.1`, `1e-7`, `2**53 + 1`.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

SCENARIO = "scripted"
TURNS_KEY = "aguiScriptedTurns"  # SCRIPTED_TURNS_KEY in scenario_catalog.mjs
INTERRUPTS_KEY = "aguiScriptedInterrupts"  # SCRIPTED_INTERRUPTS_KEY there
APPROVAL_TOOLS = ("transfer", "delete_file", "reboot", "archive", "sign")
CLIENT_TOOLS = ("pick_color", "ask_user", "rate")
SERVER_TOOLS = ("list_changes", "ping")

TRICKY_NUMBERS = (
    0,
    -0.0,
    0.1,
    1e21,
    1e20,
    1e-7,
    0.000001,
    1.5,
    2.0,
    -3,
    9007199254740993,
    123456789012345678901234567890,
    1e300,
    5e-324,
)
TRICKY_TEXT = (
    "",
    "\ud800 lone surrogate",
    "Zoë 🚀",
    "\u2028\u2029",
    "tab\there",
    'quote " and \\',
    "日本語",
    "\x00\x1f",
)

numbers = st.one_of(
    st.sampled_from(TRICKY_NUMBERS),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
)
texts = st.one_of(st.sampled_from(TRICKY_TEXT), st.text(max_size=6))
# `__proto__` is an own key to `JSON.parse` but the prototype to an object literal.
keys = st.one_of(st.sampled_from(("a", "b", "", "ü", "n1", "__proto__")), st.text(max_size=4))
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)
objects = st.dictionaries(keys, values, max_size=3)

ARGS = {
    "transfer": st.fixed_dictionaries({"amount": numbers, "recipient": texts}),
    "delete_file": st.fixed_dictionaries({"path": texts}),
    "archive": st.fixed_dictionaries(
        {"ids": st.lists(numbers, max_size=3)}, optional={"note": texts}
    ),
    "pick_color": st.fixed_dictionaries({"options": st.lists(texts, max_size=3)}),
    "rate": st.fixed_dictionaries({}, optional={"subject": texts}),
    "sign": st.fixed_dictionaries({"document": texts}),
    "list_changes": st.fixed_dictionaries({"release": texts}),
    "reboot": objects,
    "ask_user": objects,
    "ping": objects,
}
deltas = st.lists(
    st.one_of(st.sampled_from(TRICKY_TEXT[1:]), st.text(max_size=5)),
    min_size=1,
    max_size=3,
)


@st.composite
def tool_call(draw: st.DrawFn, name: str, call_id: str, *, between: bool) -> dict[str, Any]:
    """One call: its args as JSON (the server writes them) or as raw model text."""
    args = draw(ARGS[name])
    call: dict[str, Any] = {"id": call_id, "name": name}
    form = draw(st.sampled_from(("args", "text", "chunks")))
    if form == "args":
        call["args"] = args
    else:
        spaced = draw(st.booleans())
        text = json.dumps(
            args,
            ensure_ascii=draw(st.booleans()),
            separators=(", ", ": ") if spaced else (",", ":"),
        )
        call["argsText"] = text
        if form == "chunks" and len(text) > 1:
            cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=3)))
            bounds = [0, *cuts, len(text)]
            call["argsChunks"] = [text[a:b] for a, b in itertools.pairwise(bounds)]
    if between and draw(st.booleans()):
        call["textBefore"] = draw(deltas)
    return call
