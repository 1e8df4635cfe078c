"""Hypothesis strategies that mutate real recordings, byte by byte, the way transports and
hand edits break them.

`tests.hostile_streams` builds recordings from small made-up events; these start from
what TanStack really wrote (the test bed's recordings, the benchmark generator's output)
and change a few places: a byte flipped inside a JSON string, a file cut inside a
multi-byte UTF-8 sequence, `id:`/`event:`/`retry:` lines and comments between or inside
frames, CR and CRLF mixed with LF, a very long line, numbers JSON allows but no
integer or float type holds, nesting at and past agui's limit, duplicate keys, keys
and values spelled with escapes or non-ASCII characters. Each mutation keeps most of
the recording intact, so the fast paths (templates, the shape check, settled
stretches) still take most of it and meet the damage in the middle of their work.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent
RECORDINGS = sorted((ROOT / "fixtures" / "recordings").glob("*/*.sse"))
"""The test bed's recordings of TanStack's real servers, legacy and native."""

FLIP_BYTES = [b"\x00", b"\xff", b"\xc3", b"\\", b'"', b"\n", b"\r", b"\x1b", b"{", b"}", b"\t"]
"""What a flipped byte inside a JSON string becomes: each breaks a different layer."""
MULTI_BYTE = ["é", "中", "😀", "\u2028", "\ufeff"]
"""Characters whose UTF-8 takes two, three and four bytes (and two JavaScript line
separators a JSON string may hold raw)."""
FIELD_LINES = [
    b"id: 7\n",
    b"id\n",
    b"id: a\x00b\n",
    b"event: message\n",
    b"event:\n",
    b"retry: 1000\n",
    b"retry: x\n",
    b": keep-alive\n",
    b":\n",
    b"unknown: field\n",
    b"data\n",
]
"""SSE lines that are not `data: <json>`: fields the WHATWG rules keep or ignore."""
NUMBERS = [
    b"1e400",
    b"-1e400",
    b"1e-400",
    b"123456789012345678901234567890",
    b"-0",
    b"0.0",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1E2",
    b"9007199254740993",
]
"""Numbers JSON's grammar (or Python's lenient reader) allows that no float or 64-bit
integer holds exactly."""
ODD_KEYS = [
    b'"\\u0074ype"',
    b'"typ\\u0065"',
    '"ключ"'.encode(),
    b'"\xc3\xa9"',
    b'"\\ud83d\\ude00"',
    b'""',
    b'"type "',
    b'"\\ud800"',
]
"""Keys spelled with escapes (one of them is `type` itself), non-ASCII or empty."""
STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
KEY_VALUE = re.compile(rb'"([A-Za-z]+)":("(?:[^"\\\n]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)')
NUMBER = re.compile(rb"(?<=:)-?[0-9][0-9.eE+-]*")
FRAME_END = re.compile(rb"\n\n")


def _at(data: bytes, pattern: re.Pattern[bytes], pick: int) -> re.Match[bytes] | None:
    matches = list(pattern.finditer(data))
    return matches[pick % len(matches)] if matches else None


Mutation = Callable[[bytes], bytes]


@st.composite
def mutations(draw: st.DrawFn) -> Mutation:
    """One change to a recording's bytes, at a drawn place."""
    pick = draw(st.integers(0, 1 << 16))
    kind = draw(
        st.sampled_from(
            [
                "flip",
                "cut-utf8",
                "field-line",
                "line-endings",
                "long-line",
                "number",
                "deep",
                "duplicate-key",
                "odd-key",
                "escaped-value",
                "spaces",
                "truncate",
            ]
        )
    )
    if kind == "flip":
        byte = draw(st.one_of(st.sampled_from(FLIP_BYTES), st.binary(min_size=1, max_size=1)))
        into = draw(st.integers(1, 40))

        def flip(data: bytes) -> bytes:
            found = _at(data, STRING, pick)
            if found is None:
                return data
            at = found.start() + min(into, len(found.group()) - 1)
            return data[:at] + byte + data[at + 1 :]

        return flip
    if kind == "cut-utf8":
        char = draw(st.sampled_from(MULTI_BYTE)).encode()
        keep = draw(st.integers(1, len(char) - 1))
        at_end = draw(st.booleans())

        def cut(data: bytes) -> bytes:
            found = _at(data, STRING, pick)
            if found is None:
                return data
            at = found.start() + 1
            broken = char[:keep]
            if at_end:  # the file ends inside the character
                return data[:at] + broken
            return data[:at] + broken + data[at:]  # a stray lead byte, then the rest

        return cut
    if kind == "field-line":
        line = draw(st.sampled_from(FIELD_LINES))
        inside = draw(st.booleans())

        def field(data: bytes) -> bytes:
            found = _at(data, FRAME_END, pick)
            if found is None:
                return line + data
            # Between frames (after the blank line) or inside one (before its `data:`
            # line's end, i.e. after the first LF of the separator).
            at = found.start() + 1 if inside else found.end()
            return data[:at] + line + data[at:]

        return field
    if kind == "line-endings":
        ending = draw(st.sampled_from([b"\r\n", b"\r"]))
        count = draw(st.integers(1, 6))

        def endings(data: bytes) -> bytes:
            starts = [m.start() for m in re.finditer(rb"\n", data)]
            if not starts:
                return data
            chosen = {starts[(pick + 7 * n) % len(starts)] for n in range(count)}
            out = bytearray()
            last = 0
            for at in sorted(chosen):
                out += data[last:at] + ending
                last = at + 1
            return bytes(out + data[last:])

        return endings
    if kind == "long-line":
        length = draw(st.sampled_from([4096, 70_000, 1 << 20]))
        filler = draw(st.sampled_from([b"x", b"\xc3\xa9", b"\\n", b" "]))

        def long_line(data: bytes) -> bytes:
            found = _at(data, STRING, pick)
            if found is None:
                return data
            at = found.start() + 1
            return data[:at] + filler * (length // len(filler)) + data[at:]

        return long_line
    if kind == "number":
        number = draw(st.sampled_from(NUMBERS))

        def renumber(data: bytes) -> bytes:
            found = _at(data, NUMBER, pick)
            if found is None:
                return data
            return data[: found.start()] + number + data[found.end() :]

        return renumber
    if kind == "deep":
        depth = draw(st.sampled_from([255, 256, 257, 1000]))
        opener = draw(st.sampled_from([b"[", b'{"a":']))
        closer = b"]" if opener == b"[" else b"}"

        def deepen(data: bytes) -> bytes:
            found = _at(data, KEY_VALUE, pick)
            if found is None:
                return data
            value = opener * depth + b"1" + closer * depth
            return data[: found.start(2)] + value + data[found.end(2) :]

        return deepen
    if kind == "duplicate-key":
        first = draw(st.booleans())
        other = draw(st.sampled_from([b'"x"', b"1", b"null", b"[]", b'"RUN_FINISHED"']))

        def duplicate(data: bytes) -> bytes:
            found = _at(data, KEY_VALUE, pick)
            if found is None:
                return data
            pair = b'"' + found.group(1) + b'":' + other
            if first:  # the duplicate comes first, so the recorded value wins
                return data[: found.start()] + pair + b"," + data[found.start() :]
            return data[: found.end()] + b"," + pair + data[found.end() :]

        return duplicate
    if kind == "odd-key":
        key = draw(st.sampled_from(ODD_KEYS))
        rename = draw(st.booleans())

        def odd(data: bytes) -> bytes:
            found = _at(data, KEY_VALUE, pick)
            if found is None:
                return data
            if rename:  # the key itself is spelled differently
                return data[: found.start()] + key + data[found.start(2) - 1 :]
            return data[: found.end()] + b"," + key + b":1" + data[found.end() :]

        return odd
    if kind == "escaped-value":

        def escape(data: bytes) -> bytes:
            found = _at(data, KEY_VALUE, pick)
            if found is None or not found.group(2).startswith(b'"') or len(found.group(2)) < 3:
                return data
            # The value's first character as a \u escape: the same string to a JSON
            # reader, different bytes to anything that matches text.
            value = found.group(2)
            if value[1:2] == b"\\" or value[1] >= 0x80:
                return data
            spelled = b'"\\u%04x' % value[1] + value[2:]
            return data[: found.start(2)] + spelled + data[found.end(2) :]

        return escape
    if kind == "spaces":
        space = draw(st.sampled_from([b" ", b"\t", b"  ", b"\n "]))

        def spaced(data: bytes) -> bytes:
            found = _at(data, KEY_VALUE, pick)
            if found is None:
                return data
            at = found.start(2) - 1  # around the colon
            return data[:at] + space + b":" + space + data[at + 1 :]

        return spaced

    fraction = draw(st.floats(0, 1))

    def truncate(data: bytes) -> bytes:
        return data[: int(len(data) * fraction)]

    return truncate


@st.composite
def mutated(draw: st.DrawFn, base: bytes, most: int = 4) -> bytes:
    """`base` with one to `most` mutations applied in turn."""
    data = base
    for change in draw(st.lists(mutations(), min_size=1, max_size=most)):
        data = change(data)
    return data


@st.composite
def mutated_recordings(draw: st.DrawFn, most: int = 4) -> bytes:
    """A real recording (sometimes two, as one timeline file) with a few mutations."""
    chosen = draw(st.lists(st.sampled_from(RECORDINGS), min_size=1, max_size=2))
    base = b"".join(path.read_bytes() for path in chosen)
    return draw(mutated(base, most))
