"""`cli.errors.fail`'s one line, whatever its message holds: a name's undecodable bytes
(U+DC80-DCFF) as `\\xff`, any other lone surrogate (JSON's `"\\ud800"`) as `\\ud800`, in
the same line. A lone surrogate outside that range used to skip the byte rendering of the
whole message, so the name's bytes showed as `\\udcff`.

The joiners, presentation selectors and flag tags that only shape an emoji or a word pass
as they are (`👩‍💻.sse` used to read `👩\\u200d💻.sse`), and only there.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli.errors import fail

AGUI = str(Path(sys.executable).with_name("agui"))
LEGACY = Path(__file__).resolve().parents[2] / "examples" / "legacy" / "tool-approval.0.42.0.sse"

_ESCAPE = re.compile(r"\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))")


def _read_back(line: str) -> str:
    """The text a line of `fail` shows: `\\xNN` below 0x80 a control character, from 0x80
    an undecodable byte (U+DC00 + NN); `\\uNNNN` and `\\UNNNNNNNN` the code point."""

    def char(match: re.Match[str]) -> str:
        byte, short, long = match.groups()
        if byte is not None:
            value = int(byte, 16)
            return chr(value if value < 0x80 else 0xDC00 + value)
        return chr(int(short or long, 16))

    return _ESCAPE.sub(char, line)


def _told(message: str) -> tuple[int, str]:
    """What `fail(message)` prints on a strict UTF-8 stderr, and its exit code."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    with contextlib.redirect_stderr(stream):
        code = fail(message).exit_code
    return code, raw.getvalue().decode("utf-8")  # strict: no surrogate got through


# Every code point, lone surrogates included (`st.text()` leaves them out), with the
# undecodable-byte range and the other surrogates drawn often.
ANY_CHAR = st.one_of(
    st.characters(codec=None, categories=None),
    st.integers(0xDC80, 0xDCFF).map(chr),
    st.integers(0xD800, 0xDFFF).map(chr),
    st.sampled_from("\n\r\t\x1b\x7f\x85\x9b\u202e\u2028\ufeff\\"),
)


@given(st.text(ANY_CHAR, max_size=60))
def test_any_message_is_one_printable_line(message: str) -> None:
    code, said = _told(message)
    assert code == 2
    assert said.startswith("agui: ")
    assert said.endswith("\n")
    line = said[len("agui: ") : -1]
    _assert_safe(line)  # no line break, control, bidi or surrogate; no lone joiner
    if "\\" not in message:  # (a message's own backslashes, a `repr`'s, stay as they are)
        assert _read_back(line) == message


@given(st.text(ANY_CHAR.filter(lambda char: char != "\\"), max_size=60))
def test_undecodable_bytes_read_back_as_the_bytes(message: str) -> None:
    line = _told(message)[1][len("agui: ") : -1]
    escaped = [int(byte, 16) for byte, _, _ in _ESCAPE.findall(line) if byte]
    shown = [value for value in escaped if value >= 0x80]
    assert shown == [ord(char) - 0xDC00 for char in message if 0xDC80 <= ord(char) <= 0xDCFF]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("d\udcff/run.sse: no such file", "d\\xff/run.sse: no such file"),
        ("d\udcff/tools.json: [0] (\ud800): bad", "d\\xff/tools.json: [0] (\\ud800): bad"),
        ("\udcc3\udca9 \ud83d\ude00 \udfff", "\\xc3\\xa9 \\ud83d\\ude00 \\udfff"),
        ("\x1b[2J\x9b\u202e\n", "\\x1b[2J\\u009b\\u202e\\x0a"),
        ("repr: '\\ud800'", "repr: '\\ud800'"),
    ],
)
def test_each_surrogate_is_shown_by_its_kind(message: str, line: str) -> None:
    assert _told(message) == (2, f"agui: {line}\n")


@pytest.mark.skipif(sys.platform == "darwin", reason="needs a file name that is not UTF-8")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_real_error_naming_bytes_and_a_json_surrogate(unbuffered: bool, tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path) + b"/p\xff"
    os.mkdir(folder)
    tools = folder + b"/tools.json"
    with open(tools, "wb") as out:
        out.write(b'[{"name": "\\ud800", "parameters": 5}]')  # valid JSON, a lone surrogate
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    done = subprocess.run(
        [AGUI, "translate", "--tools", os.fsdecode(tools), str(LEGACY)],
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    name = f"{tmp_path}/p\\xff/tools.json"
    assert done.stderr.decode() == f"agui: {name}: tools[0] (\\ud800): unknown key 'parameters'\n"


_UNIT = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})|.", re.DOTALL)
JOINERS = "\u200c\u200d"
SELECTORS = "\ufe0e\ufe0f"
BIDI = {*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)), "\u200e", "\u200f"}
TAGS = range(0xE0000, 0xE0080)


def _assert_safe(line: str) -> None:
    """One printable line but for the shaping characters, each where it shapes: a joiner
    between two solid characters shown as themselves (never an escape's last letter: the
    line is read unit by unit, an escape being one unit), a selector after one, flag tags
    after `🏴` up to a CANCEL TAG."""
    assert not any(char in BIDI or char in "\n\r\x85\u2028\u2029\u061c" for char in line)
    units = _UNIT.findall(line)

    def solid(at: int) -> bool:
        unit = units[at] if 0 <= at < len(units) else ""
        return len(unit) == 1 and unit.isprintable() and not unit.isspace()

    in_flag = False
    for at, unit in enumerate(units):
        if len(unit) > 1:
            in_flag = False
            continue
        code = ord(unit)
        if code in TAGS:
            assert in_flag or units[at - 1] == "\U0001f3f4", line
            in_flag = code != 0xE007F
            continue
        assert not in_flag, line  # a flag's tags end with CANCEL TAG
        if unit in JOINERS:
            before = units[at - 1] if at else ""
            assert at, line
            assert solid(at - 1) or before == "\U000e007f", line
            assert solid(at + 1), line
            assert units[at + 1] not in SELECTORS, line
            continue
        if unit in SELECTORS:
            assert solid(at - 1), line
            assert units[at - 1] not in SELECTORS, line
            continue
        assert unit.isprintable(), line  # no control, format or surrogate character
    assert not in_flag, line


SHAPING = st.one_of(
    st.sampled_from([*JOINERS, *SELECTORS, "\U0001f3f4", "\U000e007f", " ", "a", "\x1b"]),
    st.sampled_from(["\u202e", "\u200e", "\U0001f469", "\U0001f3fd", "\u20e3", "1", "\udcff"]),
    st.integers(0xE0000, 0xE0080).map(chr),
    ANY_CHAR.filter(lambda char: char != "\\"),
)


@given(st.text(SHAPING, max_size=40))
def test_shaping_characters_pass_only_where_they_shape(message: str) -> None:
    code, said = _told(message)
    assert code == 2
    line = said[len("agui: ") : -1]
    _assert_safe(line)
    assert _read_back(line) == message


REAL_EMOJI = [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family
    "\U0001f469\u200d\U0001f4bb",  # woman technologist
    "\U0001f9d1\U0001f3fd\u200d\U0001f4bb",  # technologist, medium skin tone
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland
    "1\ufe0f\u20e3",  # keycap 1
    "#\ufe0f\u20e3",  # keycap #
    "\U0001f44d\U0001f3fb \U0001f44d\U0001f3ff",  # thumbs up, light and dark skin
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
    "\u2764\ufe0f\u200d\U0001f525",  # heart on fire
    "\u2764\ufe0e",  # heart, text presentation
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with a ZWNJ
    "\u0915\u094d\u200d\u0937",  # Devanagari half form, with a ZWJ
]


@pytest.mark.parametrize("emoji", REAL_EMOJI)
def test_real_emoji_and_scripts_come_through_unchanged(emoji: str) -> None:
    message = f"{emoji}.sse: no such file"
    assert _told(message) == (2, f"agui: {message}\n")


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("\u200dx", "\\u200dx"),  # first
        ("x\u200c", "x\\u200c"),  # last
        ("a\u200d\u200db", "a\\u200d\\u200db"),  # doubled
        ("a\u200d b", "a\\u200d b"),  # beside a space
        ("\x1b\u200db", "\\x1b\\u200db"),  # beside an escape
        ("a\u200d\u202e", "a\\u200d\\u202e"),  # beside a bidi override
        ("\ufe0fa", "\\ufe0fa"),  # a selector first
        ("a\ufe0f\ufe0f", "a\ufe0f\\ufe0f"),  # doubled
        ("\U0001f3f4\U000e0041\U000e007f", "\U0001f3f4\\U000e0041\\U000e007f"),  # capital tag
        ("x\U000e0067\U000e0062\U000e007f", "x\\U000e0067\\U000e0062\\U000e007f"),  # no flag
        ("\U0001f3f4\U000e0067\U000e0062", "\U0001f3f4\\U000e0067\\U000e0062"),  # no end
    ],
)
def test_a_shaping_character_out_of_place_is_escaped(message: str, line: str) -> None:
    assert _told(message) == (2, f"agui: {line}\n")


def test_a_missing_emoji_name_reads_as_typed(tmp_path: Path) -> None:
    name = "\U0001f469\u200d\U0001f4bb.sse"
    done = subprocess.run(
        [AGUI, "replay", name], capture_output=True, cwd=tmp_path, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode() == f"agui: {name}: no such file\n"
