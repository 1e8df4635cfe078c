"""Every location `agui migrate` prints for a file it cannot parse counts the same way:
1-based line, 1-based column in characters (a BOM is none), as editors and CPython's
own caret display count, for Python and TypeScript alike.

CPython handed bytes reports most syntax errors at a column counting UTF-8 bytes, so a
Python error after non-ASCII text was put several columns to the right of where it is.
"""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.runner import FileResult, FileStatus, Options, migrate_bytes

CALL = "client.add_tool_approval_response(1)"
TS_CALL = "client.addToolApprovalResponse(x)"


def failed(source: bytes, name: str) -> FileResult:
    result = migrate_bytes(source, name, Options())
    assert result.status is FileStatus.FAILED, result
    assert result.error is not None
    return result


@pytest.mark.parametrize(
    ("source", "where", "message"),
    [
        (f"x = 'éé'; {CALL[:-2]}\n".encode(), (1, 44), "'(' was never closed"),
        (f"s = 'ééé' ; {CALL} $\n".encode(), (1, 50), "invalid syntax"),
        (f"def f():\n    s = '日本語' $ {CALL}\n".encode(), (2, 15), "invalid syntax"),
        (f"é = (1, 2 3)  # {CALL}\n".encode(), (1, 9), "invalid syntax. Perhaps you forgot"),
        (f"s = 'ééé' +) ; {CALL}\n".encode(), (1, 12), "unmatched ')'"),
        (f"s = '日本語'\r\ns = '😀' $ {CALL}\r\n".encode(), (2, 9), "invalid syntax"),
        (f"s = 'é'\0 + {CALL}\n".encode(), (1, 8), "source code string cannot contain"),
        # The BOM is no column; a latin-1 file counts its characters, one a byte.
        (codecs.BOM_UTF8 + f"s = '日本語' $ {CALL}\n".encode(), (1, 11), "invalid syntax"),
        (
            f"# -*- coding: latin-1 -*-\ns = 'éà' $ {CALL}\n".encode("latin-1"),
            (2, 10),
            "invalid syntax",
        ),
    ],
)
def test_python_syntax_errors_count_characters(
    source: bytes, where: tuple[int, int], message: str
) -> None:
    result = failed(source, "x.py")
    assert (result.error_line, result.error_column) == where
    assert result.error is not None
    assert result.error.startswith(f"syntax error at line {where[0]}, column {where[1]}: ")
    assert message in result.error


@pytest.mark.parametrize(
    ("source", "name", "line", "culprit"),
    [
        (f"const s = '日本語'; {TS_CALL};\nconst t = '😀é' ) ;\n", "x.ts", 2, " ) "),
        (f"\ufefflet t = 'é😀'; {TS_CALL} ; let = ;\n", "x.tsx", 1, "= ;"),
        (
            f"<p>日本語</p><script lang=\"ts\">{TS_CALL}; let t = 'é' ) ;</script>",
            "X.vue",
            1,
            " ) ",
        ),
        # An unclosed block is reported at its tag.
        (f"<p>ok</p>\n<p>é😀</p> <script>\n{TS_CALL}\n", "X.svelte", 2, "<script>"),
    ],
)
def test_typescript_syntax_errors_count_characters(
    source: str, name: str, line: int, culprit: str
) -> None:
    result = failed(source.encode(), name)
    text = source.removeprefix("\ufeff").splitlines()[line - 1]
    column = text.index(culprit) + (1 if culprit.startswith(" ") else 0) + 1
    assert (result.error_line, result.error_column) == (line, column)
    assert not text[: column - 1].isascii()  # so characters and bytes differ


TEXT = st.text(st.sampled_from(["a", " ", "\t", "é", "日", "😀", "\u0301"]), max_size=12)


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT, st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
def test_a_column_indexes_the_offending_character_in_either_language(
    before: str, inside: str, newline: str, bom: bool
) -> None:
    """The column, counted in characters from 1, points at the character the parser
    stopped at, in Python and TypeScript alike, whatever non-ASCII text precedes it."""
    prefix = codecs.BOM_UTF8 if bom else b""
    python = f"# {before}{newline}s = '{inside}' $ {CALL}{newline}"
    script = f"// {before}{newline}const s = '{inside}' ) ; {TS_CALL}{newline}"
    for text, name, culprit in ((python, "x.py", "$"), (script, "x.ts", ")")):
        result = failed(prefix + text.encode(), name)
        assert result.error_line == 2
        line = text.split(newline)[1]
        assert result.error_column is not None
        assert line[result.error_column - 1] == culprit, (result.error, line)
