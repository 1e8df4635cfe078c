"""Positions of TypeScript sites in every machine format: the line and character column
of the call in the file as it is on disk (BOM, CRLF, characters outside the BMP)."""

from __future__ import annotations

import codecs
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.app import app
from codemods.typescript.document import line_starts, position_in

runner = CliRunner()
# An emoji (one code point, two UTF-16 units, four bytes) and an accented letter sit
# before the call on its line, behind a BOM and CRLF line ends.
SOURCE = (
    "\ufeffimport { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'\r\n"
    "import { tools } from './tools'\r\n"
    "const client = new ChatClient({ connection: fetchServerSentEvents('/x'), tools })\r\n"
    "export function stored(id: string) {\r\n"
    "  const tag = '👍é'; const done = client.addToolApprovalResponse({ id, approved: true })\r\n"
    "  return [tag, done]\r\n"
    "}\r\n"
)
LINE = 5
COLUMN = SOURCE.splitlines()[LINE - 1].index("client.add") + 1


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.ts").write_bytes(SOURCE.encode())
    return tmp_path


def migrate(project: Path, *args: str) -> str:
    old = Path.cwd()
    os.chdir(project)
    try:
        result = runner.invoke(app, ["migrate", *args, "app.ts"])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_json_and_github_give_the_character_column(project: Path) -> None:
    [site] = [json.loads(line) for line in migrate(project, "--json").splitlines()]
    assert (site["line"], site["column"], site["action"]) == (LINE, COLUMN, "todo")
    annotation = migrate(project, "--format", "github")
    assert f"file=app.ts,line={LINE},col={COLUMN}," in annotation


def test_sarif_says_its_columns_are_code_points(project: Path) -> None:
    run = json.loads(migrate(project, "--format", "sarif"))["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    [result] = run["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": LINE, "startColumn": COLUMN}


def test_a_syntax_error_on_bytes_that_are_not_utf8_reads_as_replacement_characters(
    tmp_path: Path,
) -> None:
    (tmp_path / "bad.ts").write_bytes(b"const s = 1\n\xff\xfe addToolApprovalResponse(\n")
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = runner.invoke(app, ["migrate", "bad.ts"])
    finally:
        os.chdir(old)
    assert result.exit_code == 2
    [line] = [x for x in result.stderr.splitlines() if x.startswith("bad.ts:")]
    assert line.startswith("bad.ts:2:1: syntax error: unexpected '\ufffd\ufffd")
    assert "\\udc" not in line


def rescanned_position(source: bytes, offset: int, first: int) -> tuple[int, int]:
    """The plain twin of `position_in`: count the line ends before `offset` anew."""
    line_start, line = first, 1
    for match in re.finditer(rb"\r\n|\r|\n", source[:offset]):
        line, line_start = line + 1, match.end()
    return line, len(source[line_start:offset].decode("utf-8", "replace")) + 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " ", "\r", "\n", "\r\n", "é", "👍", "\ufeff"])).map("".join),
    st.booleans(),
)
def test_the_line_start_table_gives_the_rescanned_positions(text: str, bom: bool) -> None:
    source = (codecs.BOM_UTF8 if bom else b"") + text.encode()
    first = len(codecs.BOM_UTF8) if bom else 0
    starts = line_starts(source, first)
    for offset in range(first, len(source) + 1):
        if source[offset - 1 : offset + 1] == b"\r\n":
            continue  # no site starts between CR and LF
        assert position_in(source, starts, offset) == rescanned_position(source, offset, first)
