"""The report's small parts: the schema outline and the atomic writer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.runs.html_report import ReportNotWritable, atomic_text
from replay.runs.html_report.schema_outline import MAX_DEPTH, MAX_LINES, outline

APPROVAL = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "approved": {"const": True},
                "editedArgs": {
                    "type": "object",
                    "properties": {"amount": {"type": "number"}},
                    "required": ["amount"],
                },
            },
            "required": ["approved"],
            "additionalProperties": False,
        },
        {"type": "object", "properties": {"approved": {"const": False}}, "required": ["approved"]},
    ]
}


def test_an_approval_schema_reads_as_its_two_branches() -> None:
    assert outline(APPROVAL) == [
        "one of:",
        "  - object",
        "    approved: = true",
        "    editedArgs?: object",
        "      amount: number",
        "    (no other properties)",
        "  - object",
        "    approved: = false",
    ]


@pytest.mark.parametrize(
    ("schema", "lines"),
    [
        ({}, ["any value"]),
        (True, ["any value"]),
        (False, ["nothing is accepted"]),
        ("odd", ['"odd"']),
        ({"enum": ["a", 1]}, ['one of "a", 1']),
        ({"type": ["string", "null"], "format": "date-time"}, ["string | null (date-time)"]),
        (
            {"type": "array", "items": {"type": "object", "properties": {"id": {}}}},
            ["array", "  items: object", "    id?: any value"],
        ),
        (
            {"anyOf": [{"type": "string"}, {"type": "number"}]},
            ["any of:", "  - string", "  - number"],
        ),
    ],
)
def test_outline_shapes(schema: Any, lines: list[str]) -> None:
    assert outline(schema) == lines


def test_a_deep_or_huge_schema_stays_small() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(100):
        deep = {"type": "object", "properties": {"a": deep}}
    assert len(outline(deep)) == MAX_DEPTH + 1
    assert outline(deep)[-1].strip() == "a?: …"
    wide = {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(5000)}}
    assert len(outline(wide)) == MAX_LINES
    assert outline(wide)[-1] == "…"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["type", "properties", "oneOf", "items", "const", "enum", "required", "x"]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


def test_required_names_that_are_not_strings_are_ignored() -> None:
    schema = {"type": "object", "required": [[], "a"], "properties": {"a": {}, "b": {}}}
    assert outline(schema) == ["object", "  a: any value", "  b?: any value"]


@given(JSON)
def test_any_json_outlines_without_raising(schema: Any) -> None:
    lines = outline(schema)
    assert 1 <= len(lines) <= MAX_LINES
    assert all(isinstance(line, str) for line in lines)


def test_the_file_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old")

    def fail_midway() -> None:
        with atomic_text(target) as stream:
            stream.write("half a page")
            raise RuntimeError("the replay failed")

    with pytest.raises(RuntimeError):
        fail_midway()
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    with atomic_text(target) as stream:
        stream.write("new ✓")
        assert target.read_text() == "old"
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_unwritable_place_is_one_clear_error(tmp_path: Path) -> None:
    def write(path: Path) -> None:
        with atomic_text(path) as stream:
            stream.write("x")

    with pytest.raises(ReportNotWritable, match=r"missing/report\.html: cannot write"):
        write(tmp_path / "missing" / "report.html")
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(ReportNotWritable, match=r"dir\.html: cannot write"):
        write(tmp_path / "dir.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.html"]
