"""Hypothesis strategies for hostile JSON *texts*: every JSON type in every field.

`tests.hostile_streams` draws whole recordings of mostly plausible events; this module
draws the values inside them as the text a peer sends, so that what no Python value
round-trips through `json.dumps` reaches the parsers too: numbers spelled `1e400`,
`-0`, `2**53 + 1`, `1` and 400 zeros; lone surrogate escapes; nesting past the
parsers' limits; duplicate keys. The fuzz tests of the translator, the `--native`
bridge, `agui resume` and `wire_json` build their streams and bodies from here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.interop.scripted import TRICKY_NUMBERS, TRICKY_TEXT


@dataclass(frozen=True, slots=True)
class Raw:
    """JSON text written as it is: a number spelling, or a whole hostile object."""

    text: str


NUMBER_SPELLINGS = (
    "1e400",
    "-1e400",
    "1e308",
    "1e-400",
    "-0",
    "-0.0",
    "0.0",
    "9007199254740993",
    "-9007199254740993",
    "1" + "0" * 400,
    "-1" + "0" * 310,
    "123456789012345678901234567890",
    "1E21",
    "5e-324",
    "0.1",
)
"""Numbers JSON's grammar allows that no double holds exactly, or only as Infinity."""

DUPLICATE_KEYS = (
    Raw('{"a":1,"a":2}'),
    Raw('{"id":"c","id":["c"]}'),
    Raw('{"type":"tool-call","type":{}}'),
)
DEEP = (Raw("[" * 300 + "]" * 300), Raw('{"a":' * 260 + "1" + "}" * 260))
"""Nesting past pydantic-core's 200 levels and agui's own 256."""

ID_TEXTS = st.sampled_from(["c", "c2", "m", "r1", "t", "", "approval_c", "\ud800", "__proto__"])
"""Ids from a handful (so events and bodies refer to each other), empty and hostile ones."""

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(TRICKY_NUMBERS),
    st.builds(Raw, st.sampled_from(NUMBER_SPELLINGS)),
    st.sampled_from(TRICKY_TEXT),
    ID_TEXTS,
)
KEYS = st.sampled_from(["a", "1", "01", "id", "type", "content", "__proto__", "", "\ud800"])
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(KEYS, inner, max_size=3)
        | st.sampled_from(DUPLICATE_KEYS * 3 + DEEP)
    ),  # (deep values rarer: they refuse all)
    max_leaves=6,
)
"""Any JSON value, hostile, small."""

lenient_values = st.recursive(
    scalars | st.builds(Raw, st.sampled_from(["NaN", "Infinity", "-Infinity"])),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
)
"""Values of a file Python's reader takes: `NaN` and `Infinity` too (JSON.parse would not)."""


def anything_or(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The field's plausible values mostly, and any JSON value (of the wrong type) else."""
    return st.one_of(strategy, strategy, values)


def json_text(value: Any) -> str:
    """The JSON text of a drawn value: `Raw` written as it is, strings as `JSON.stringify`
    writes them (a lone surrogate escaped), keys in the order drawn."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        members = (json_text(str(key)) + ":" + json_text(item) for key, item in value.items())
        return "{" + ",".join(members) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(json_text(item) for item in value) + "]"
    if isinstance(value, str):
        # Non-ASCII raw, as TanStack writes it; a lone surrogate has no UTF-8 form: escaped.
        return json.dumps(value, ensure_ascii=not _has_utf8_form(value))
    return json.dumps(value, allow_nan=False)


def _has_utf8_form(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


TOOL_NAMES = st.sampled_from(["transfer", "pick_color", "ping", "", "toString"])
ROLES = st.sampled_from(["assistant", "user", "tool", "system"])


def _fields(draw: st.DrawFn, **plausible: st.SearchStrategy[Any]) -> dict[str, Any]:
    """Some of the fields, each plausible or of any JSON type."""
    names = draw(st.lists(st.sampled_from(sorted(plausible)), unique=True))
    return {name: draw(anything_or(plausible[name])) for name in names}


@st.composite
def legacy_events(draw: st.DrawFn) -> dict[str, Any]:
    """One event of a legacy run that pauses (or a native one), its fields hostile."""
    kind = draw(st.integers(0, 11))
    call = {"toolCallId": ID_TEXTS}
    if kind == 0:
        return {"type": "RUN_STARTED", **_fields(draw, runId=ID_TEXTS, threadId=ID_TEXTS)}
    if kind == 1:
        return {
            "type": "TOOL_CALL_START",
            **_fields(
                draw,
                **call,
                toolCallName=TOOL_NAMES,
                parentMessageId=ID_TEXTS,
                index=values,
                model=values,
            ),
        }
    if kind == 2:
        delta = st.sampled_from(['{"a":', "1" * 400, "1e400}", "}", '"\\ud800"', ""])
        return {"type": "TOOL_CALL_ARGS", **_fields(draw, **call, delta=delta)}
    if kind == 3:
        return {
            "type": "TOOL_CALL_END",
            **_fields(draw, **call, input=values, toolName=TOOL_NAMES, metadata=values),
        }
    if kind == 4:
        finish = _fields(
            draw,
            runId=ID_TEXTS,
            threadId=ID_TEXTS,
            result=values,
            usage=values,
            timestamp=values,
            model=values,
            rawEvent=values,
            metadata=values,
        )
        reason = draw(anything_or(st.just("tool_calls")))
        return {"type": "RUN_FINISHED", "finishReason": reason, **finish}
    if kind in (5, 6):
        name = draw(st.sampled_from(["approval-requested", "tool-input-available"]))
        body = _fields(draw, **call, toolName=TOOL_NAMES, input=values, approval=values)
        if name == "approval-requested" and draw(st.booleans()):
            body["approval"] = _fields(draw, id=ID_TEXTS, needsApproval=st.just(True))
        if kind == 5:
            field = draw(st.sampled_from(["value", "data"]))
            return {"type": "CUSTOM", "name": name, field: draw(anything_or(st.just(body)))}
        return {"type": name, **body}
    if kind == 7:
        return {
            "type": draw(st.sampled_from(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"])),
            **_fields(draw, messageId=ID_TEXTS, role=ROLES, delta=st.sampled_from(TRICKY_TEXT)),
        }
    if kind == 8:
        return {
            "type": "TOOL_CALL_RESULT",
            **_fields(draw, **call, messageId=ID_TEXTS, content=st.sampled_from(TRICKY_TEXT)),
        }
    if kind == 9:
        return {"type": "MESSAGES_SNAPSHOT", "messages": draw(anything_or(st.lists(messages())))}
    if kind == 10:
        return {"type": "RUN_ERROR", **_fields(draw, message=st.just("boom"), code=ID_TEXTS)}
    return {"type": draw(values), **_fields(draw, **call, messageId=ID_TEXTS)}


@st.composite
def legacy_streams(draw: st.DrawFn, max_events: int = 12) -> bytes:
    """One-line `data:` frames of hostile legacy events, maybe reordered and cut short."""
    events = draw(st.lists(legacy_events(), max_size=max_events))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(events)))
        events[at:at] = draw(paused_run())
    frames = [f"data: {json_text(event)}\n\n".encode() for event in events]
    if draw(st.booleans()):
        frames.insert(draw(st.integers(0, len(frames))), b"data: [DONE]\n\n")
    if frames and draw(st.integers(0, 4)) == 0:
        frames = draw(st.permutations(frames))
    data = b"".join(frames)
    if data and draw(st.integers(0, 4)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """One history message: AG-UI `toolCalls`, UIMessage `parts`, tool results; hostile."""
    tool_call = st.builds(
        lambda given: given,
        st.fixed_dictionaries(
            {},
            optional={
                "id": anything_or(ID_TEXTS),
                "type": anything_or(st.just("function")),
                "function": anything_or(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "name": anything_or(TOOL_NAMES),
                            "arguments": anything_or(
                                st.sampled_from(['{"a":1e400}', "{", "{}", '{"n":-0}'])
                            ),
                        },
                    )
                ),
            },
        ),
    )
    part = st.fixed_dictionaries(
        {},
        optional={
            "type": anything_or(st.sampled_from(["tool-call", "text", "tool-result"])),
            "id": anything_or(ID_TEXTS),
            "state": values,
            "approval": values,
            "output": values,
            "input": values,
            "name": anything_or(TOOL_NAMES),
        },
    )
    content_part = st.fixed_dictionaries(
        {"type": anything_or(st.sampled_from(["text", "image", "audio"]))},
        optional={"metadata": st.none() | values, "text": st.sampled_from(TRICKY_TEXT)},
    )
    return _fields(
        draw,
        id=ID_TEXTS,
        role=ROLES,
        content=st.sampled_from([*TRICKY_TEXT, '{"pendingExecution":true}'])
        | st.lists(content_part, max_size=2),
        toolCallId=ID_TEXTS,
        toolCalls=st.lists(tool_call, max_size=3),
        parts=st.lists(part, max_size=3),
    )


@st.composite
def request_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A request body (a first request or a continuation); every field may be the wrong
    type: `messages`, `forwardedProps`, `resume` included."""
    entry = st.fixed_dictionaries(
        {},
        optional={
            "interruptId": anything_or(
                st.sampled_from(["approval_c", "client_tool_c", "approval_", "x", ""])
            ),
            "status": anything_or(st.sampled_from(["resolved", "cancelled"])),
            "payload": anything_or(st.fixed_dictionaries({"approved": anything_or(st.booleans())})),
        },
    )
    return _fields(
        draw,
        threadId=ID_TEXTS,
        runId=ID_TEXTS,
        parentRunId=ID_TEXTS,
        messages=st.lists(messages(), max_size=4),
        forwardedProps=st.dictionaries(KEYS, values, max_size=2),
        resume=st.lists(entry, max_size=3),
        tools=st.just([]),
        context=st.just([]),
        state=values,
    )


@st.composite
def paused_run(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A legacy run that pauses on its tool calls, with a few of its values hostile."""
    run = draw(st.sampled_from(["r1", "r2"]))
    events: list[dict[str, Any]] = [{"type": "RUN_STARTED", "runId": run, "threadId": "t"}]
    legacy: list[dict[str, Any]] = []
    for call_id in draw(st.lists(ID_TEXTS, min_size=1, max_size=3)):
        name = draw(TOOL_NAMES)
        events.append({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name})
        args = draw(st.dictionaries(KEYS, values, max_size=2))
        events.append({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json_text(args)})
        end: dict[str, Any] = {"type": "TOOL_CALL_END", "toolCallId": call_id}
        if draw(st.booleans()):
            end["input"] = draw(st.builds(Raw, st.just(json_text(args))) | values)
        events.append(end)
        value: dict[str, Any] = {"toolCallId": call_id, "toolName": name, "input": args}
        approval = draw(st.booleans())
        if approval:
            value["approval"] = {
                "id": draw(anything_or(st.just(f"a_{call_id}"))),
                "needsApproval": True,
            }
        kind = "approval-requested" if approval else "tool-input-available"
        legacy.append({"type": "CUSTOM", "name": kind, "value": value})
    finish = {"type": "RUN_FINISHED", "runId": run, "threadId": "t", "finishReason": "tool_calls"}
    for field in draw(
        st.lists(
            st.sampled_from(
                ["result", "usage", "timestamp", "rawEvent", "model", "runId", "threadId"]
            ),
            unique=True,
            max_size=2,
        )
    ):
        finish[field] = draw(values)
    return [*events, finish, *legacy]
