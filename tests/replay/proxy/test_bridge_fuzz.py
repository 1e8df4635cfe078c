"""The `--native` bridge on hostile input (tests.hostile_values): request bodies whose
every field may be any JSON value (`messages`, `forwardedProps`, `resume` included),
numbers no double holds, `NaN` (Python's reader takes it, as the proxy reads bodies),
nesting past the limits; and legacy upstream streams reordered and cut short.

Properties: a continuation becomes a follow-up the proxy can write, or an `Unbridgeable`
refusal (its one `RUN_ERROR`), nothing else; the downstream translation never raises and
writes only JSON events `JSON.parse` reads.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from replay.proxy.app import _json_object
from replay.proxy.bridge import NativeStream, Unbridgeable, legacy_follow_up
from replay.wire.canonical import wire_json
from tests.hostile_values import Raw, json_text, legacy_streams, request_bodies

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NOT_JSON = st.sampled_from(
    [Raw("NaN"), Raw("-Infinity"), Raw("[" * 900 + "]" * 900), Raw('{"a":' * 400 + "1" + "}" * 400)]
)
"""What Python's reader takes and no JSON.parse would: literals, and nesting deep enough
to exhaust a recursive step."""


def _posted(body: dict[str, Any], extra: Any, where: str) -> dict[str, Any] | None:
    """The body as the proxy reads it from the client's bytes, one field spoiled."""
    if extra is not None:
        body = {**body, where: extra}
    return _json_object(json_text(body).encode("utf-8", "surrogatepass"))


INFINITE_ARGUMENTS = {
    "resume": [{"interruptId": "client_tool_c", "status": "resolved", "payload": 1}],
    "messages": [
        {
            "id": "m",
            "role": "assistant",
            "toolCalls": [{"id": "c", "function": {"name": "pick", "arguments": '{"a":1e400}'}}],
        }
    ],
}
"""Found here: the part's `input`, parsed from the arguments, held Infinity, and writing
the follow-up raised CanonicalJsonError (a 500 from the proxy)."""


@FUZZ
@example(body=INFINITE_ARGUMENTS, extra=None, where="state")
@given(
    body=request_bodies(),
    extra=st.none() | NOT_JSON,
    where=st.sampled_from(["messages", "resume", "forwardedProps", "state"]),
)
def test_a_continuation_is_bridged_or_refused(body: dict[str, Any], extra: Any, where: str) -> None:
    posted = _posted(body, extra, where)
    if posted is None:
        return  # not a JSON object: the proxy passes the bytes on as they came
    reason = ""
    try:
        follow_up = legacy_follow_up(posted)
    except Unbridgeable as refusal:
        reason = str(refusal)
    else:
        json.loads(wire_json(follow_up), parse_constant=_refuse)
        return
    assert reason  # the one line of the RUN_ERROR the client gets
    assert "\n" not in reason


@FUZZ
@example(
    data=(
        b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
        b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t","finishReason":"tool_calls"}'
        b'\n\ndata: {"type":"CUSTOM","name":"tool-input-available",'
        b'"value":{"toolCallId":"c","toolName":"pick","input":{}}}\n\n'
    ),
    body={"messages": [{"role": "tool", "toolCallId": {}, "content": '{"pendingExecution":true}'}]},
    extra=None,
    where="messages",
    cut=64,
)  # found here: an unhashable toolCallId raised TypeError in the snapshot
@given(
    data=legacy_streams(),
    body=request_bodies(),
    extra=st.none() | NOT_JSON,
    where=st.sampled_from(["messages", "resume", "forwardedProps"]),
    cut=st.integers(1, 64),
)
def test_the_downstream_translation_never_raises(
    data: bytes, body: dict[str, Any], extra: Any, where: str, cut: int
) -> None:
    stream = NativeStream(_posted(body, extra, where), tools=None)
    out = b"".join(stream.feed(data[at : at + cut]) for at in range(0, len(data), cut))
    out += stream.close()
    for line in out.decode("utf-8").split("\n"):
        if line.startswith("data: "):
            json.loads(line[6:], parse_constant=_refuse)


def _refuse(literal: str) -> Any:
    raise AssertionError(f"{literal} reached the native client")
