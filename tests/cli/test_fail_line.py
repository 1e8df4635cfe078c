"""`cli.errors.fail`'s one line, whatever its message holds: a name's undecodable bytes
(U+DC80-DCFF) as `\\xff`, any other lone surrogate (JSON's `"\\ud800"`) as `\\ud800`, in
the same line. A lone surrogate outside that range used to skip the byte rendering of the
whole message, so the name's bytes showed as `\\udcff`.
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
    assert line.isprintable()  # no line break, control, format or surrogate character
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
