"""Form feeds in a file's indentation: Python ignores what precedes them, LibCST's tokenizer
refuses some such lines ("no matching outer block for dedent" at 1:1) and silently drops
the form feed from others. `agui migrate` migrates such a file through a view without
them (`codemods.form_feed`), on the region and the whole-module path alike, and puts each
form feed back where it was."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import codemods.form_feed
from codemods import runner
from codemods.form_feed import FormFeedView, restore, view
from codemods.runner import FileResult, FileStatus, Options, migrate_bytes
from codemods.site import Action
from tests.codemods.random_modules import random_module

ROOT = Path(__file__).resolve().parents[2]
# Found by test_hostile_sources: the region path never parsed line 4 and rewrote the file;
# the second run took the whole-module path and called valid Python a syntax error at 1:1.
FOUND = (
    b"import os\r\n\r\nclass K79(Base):\r\n\x0c\t@decorate(\r\n\t    1)\r\n\tclass K98(Base):\r\n"
    b"\t\tpass\r\n\t\tpass\r\n\t\tx = 1\r\n"
    b"\tself.client.add_tool_approval_response(id=a.id, approved=False)  # no\r\n"
    b"\treturn None\r\n\r\n"
)
MARKER = (
    "\t# TODO(agui): AG001 move this approval answer into a method or function: in a class "
    "body the lookup's generator cannot see the class's own names \u2014 "
    "README#ag001-resolve-approvals-on-the-bound-interrupt\r\n"
).encode()
CALL = "client.add_tool_approval_response(id=a.id, approved=True)"
# Where a form feed sits in a line's leading whitespace, and what LibCST 1.x makes of it
# ("refused": a ParserSyntaxError; "dropped": `module.code` loses the form feed).
PLACEMENTS = [
    (
        "before a nested block's first line",
        "class A:\n    def f(self):\n\x0c        x = 1\n",
        "refused",
    ),
    (
        "before a decorator in a class",
        "class K:\n\x0c\t@d(\n\t    1)\n\tclass J:\n\t\tpass\n",
        "refused",
    ),
    ("at a top-level statement", "x = 1\n\x0cy = 2\n", "dropped"),
    ("before a block's first line", "def f():\n\x0c    x = 1\n    y = 2\n", "dropped"),
    ("before a later line of a block", "def f():\n    x = 1\n\x0c    y = 2\n", "dropped"),
    ("before tab indentation", "def f():\n\tx = 1\n\x0c\ty = 2\n", "dropped"),
    ("after the indentation (a dedent)", "def f():\n    x = 1\n    \x0cy = 2\n", "dropped"),
    ("between the indentation's chars", "def f():\n    x = 1\n    \x0c    y = 2\n", "dropped"),
    (
        "before a dedent to an outer block",
        "class A:\n    def f():\n        x = 1\n\x0c    y = 2\n",
        "dropped",
    ),
    ("two of them", "def f():\n    x = 1\n\x0c \x0c    y = 2\n", "dropped"),
]
# Placements LibCST reads and writes back exactly (left alone by the view).
HARMLESS = [
    "x = 1\n\x0c\ny = 2\n",  # a blank line
    "def f():\n    x = 1\n    \x0c\n    y = 2\n",
    "def f():\n    x = 1\n\x0c    # c\n    y = 2\n",  # before a comment
    "def f():\n    x = 1\n  \x0c  # c\n    y = 2\n",
    "x =\x0c1\n",
    "x = 1\x0c\n",
    "x = 1\n\x0c",
]


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.error_line, result.sites)


def _whole_module(source: bytes) -> FileResult:
    """The plain twin: the whole-module path alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "_migrate_region", lambda *args: None)
        return migrate_bytes(source, "m.py", Options())


@pytest.mark.parametrize(("where", "source", "libcst"), PLACEMENTS, ids=[p[0] for p in PLACEMENTS])
def test_libcst_misreads_form_feeds_python_accepts(where: str, source: str, libcst: str) -> None:
    ast.parse(source)
    try:
        code = cst.parse_module(source).code
    except cst.ParserSyntaxError:
        assert libcst == "refused", where
    else:
        assert (libcst, code == source) == ("dropped", False), where
    cut = view(source)
    assert cut is not None
    assert "\x0c" not in cut.text
    assert cst.parse_module(cut.text).code == cut.text
    assert ast.dump(ast.parse(cut.text)) == ast.dump(ast.parse(source))


@pytest.mark.parametrize("source", HARMLESS)
def test_form_feeds_libcst_reads_exactly_are_not_cut(source: str) -> None:
    assert cst.parse_module(source).code == source
    assert view(source) is None


def test_the_found_file_migrates_and_a_second_run_changes_nothing() -> None:
    first = migrate_bytes(FOUND, "m.py", Options())
    at = FOUND.index(b"\tself.client")
    assert first.status is FileStatus.CHANGED, first.error
    assert first.updated == FOUND[:at] + MARKER + FOUND[at:]  # the form feed kept on line 4
    assert [(s.rule.value, s.line, s.column, s.action) for s in first.sites] == [
        ("AG001", 10, 2, Action.TODO)
    ]
    assert _key(_whole_module(FOUND)) == _key(first)
    second = migrate_bytes(first.updated, "m.py", Options())
    assert second.status is FileStatus.UNCHANGED, second.error
    assert [(s.line, s.marked) for s in second.sites] == [(11, True)]
    assert _key(_whole_module(first.updated)) == _key(second)


@pytest.mark.parametrize(
    ("source", "expected", "column"),
    [
        # The rewritten line keeps the form feed in front of it.
        (
            f"import os\n\ndef f(client, a):\n    x = 1\n\x0c    {CALL}\n",
            "import os\n\ndef f(client, a):\n    x = 1\n\x0c    interrupt = next(",
            6,
        ),
        # A top-level line far from the site keeps it too (LibCST alone dropped it).
        (
            f"import os\n\x0cx = 1\n\ndef f(client, a):\n    {CALL}\n",
            "import os\n\x0cx = 1\n\ndef f(client, a):\n    interrupt = next(",
            5,
        ),
        # The block's first line: LibCST alone failed on `default_indent` '\x0c    '.
        (
            f"import os\n\ndef f(client, a):\n\x0c    x = 1\n    {CALL}\n",
            "import os\n\ndef f(client, a):\n\x0c    x = 1\n    interrupt = next(",
            5,
        ),
    ],
    ids=["on-the-site", "far-from-the-site", "first-in-block"],
)
def test_a_form_feed_stays_where_it_was(source: str, expected: str, column: int) -> None:
    result = migrate_bytes(source.encode(), "m.py", Options())
    assert result.status is FileStatus.CHANGED, result.error
    assert result.updated is not None
    assert result.updated.decode().startswith(expected)
    assert result.updated.count(b"\x0c") == 1
    assert [(site.line, site.column) for site in result.sites] == [(5, column)]
    assert _key(_whole_module(source.encode())) == _key(result)


def test_a_form_feed_in_a_string_is_the_strings_own() -> None:
    source = "x = '''\n\x0c  kept\n'''\ndef f():\n\x0c    y = 1\n"
    cut = view(source)
    assert cut is not None
    assert cut.text == "x = '''\n\x0c  kept\n'''\ndef f():\n    y = 1\n"
    assert cut.cuts == {5: "\x0c"}


def test_a_cut_that_would_land_in_a_string_is_refused() -> None:
    cut = view("def f():\n\x0c    x = 1\n")
    assert cut is not None
    # Line 2 kept as it was, but now inside a string: a form feed there would change it.
    assert restore(cut, "s = '''\n    x = 1\n'''\n") is None
    assert (
        restore(cut, "def f():\n    x = 1\n    y = 2\n") == "def f():\n\x0c    x = 1\n    y = 2\n"
    )


REFUSED = (
    "LibCST cannot read a form feed before indentation here (Python accepts it) and it "
    "could not be kept in the rewritten code; file left untouched"
)


def test_when_a_form_feed_cannot_be_put_back_both_paths_refuse_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(codemods.form_feed, "restore", lambda *args: None)
    result = migrate_bytes(FOUND, "m.py", Options())
    assert (result.status, result.error, result.error_line, result.error_column) == (
        FileStatus.FAILED,
        REFUSED,
        4,
        1,
    )
    assert "syntax error" not in REFUSED
    assert _key(_whole_module(FOUND)) == _key(result)


def _agui(cwd: Path, prelude: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", f"{prelude}from cli.app import main; main()", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_the_cli_migrates_the_found_file_twice(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_bytes(FOUND)
    first = _agui(tmp_path, "", "migrate", "--write", "m.py")
    assert (first.returncode, first.stdout) == (0, ""), first.stderr
    assert "syntax error" not in first.stderr
    at = FOUND.index(b"\tself.client")
    assert (tmp_path / "m.py").read_bytes() == FOUND[:at] + MARKER + FOUND[at:]
    second = _agui(tmp_path, "", "migrate", "--check", "m.py")
    assert (second.returncode, second.stdout) == (0, ""), second.stderr
    assert "Traceback" not in first.stderr + second.stderr


def test_the_cli_refusal_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_bytes(FOUND)
    # The refusal is a safety net no known file reaches: make the way back fail.
    refuse = "import codemods.form_feed as f; f.restore = lambda *a: None; "
    done = _agui(tmp_path, refuse, "migrate", "--write", "m.py")
    assert done.returncode == 2
    assert done.stdout == ""
    assert [line for line in done.stderr.splitlines() if "m.py" in line] == [f"m.py:4:1: {REFUSED}"]
    assert "Traceback" not in done.stderr
    assert (tmp_path / "m.py").read_bytes() == FOUND


def _with_form_feeds(seed: int) -> bytes:
    """A random module with form feeds put in the leading whitespace of some lines."""
    rng = random.Random(seed)
    lines = random_module(seed).split(b"\n")
    for _ in range(rng.randint(1, 4)):
        # Not after the final line end: LibCST drops a file's last whitespace-only line
        # when no line end follows it, form feed or not (a limit of its own).
        index = rng.randrange(len(lines) - 1)
        line = lines[index]
        at = rng.randint(0, len(line) - len(line.lstrip(b" \t")))
        lines[index] = line[:at] + rng.choice((b"\x0c", b"\x0c\x0c", b" \x0c")) + line[at:]
    return b"\n".join(lines)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_form_feeds_in_indentation_region_equals_whole_module(seed: int) -> None:
    source = _with_form_feeds(seed)
    try:
        ast.parse(source)
    except SyntaxError:  # a form feed mid-indentation can dedent a line wrongly
        valid = False
    else:
        valid = True
    fast = migrate_bytes(source, "m.py", Options())
    assert _key(fast) == _key(_whole_module(source))
    if not valid:
        return
    assert fast.status is not FileStatus.FAILED, fast.error
    if fast.updated is not None:
        text = source.decode()
        parsed = view(text) or FormFeedView(text, {})
        # LibCST drops whitespace-only lines before the end of a file (spaces as well
        # as form feeds): a limit of its own that this property does not judge.
        if cst.parse_module(parsed.text).code == parsed.text:
            assert fast.updated.count(b"\x0c") == source.count(b"\x0c")
        again = migrate_bytes(fast.updated, "m.py", Options())
        assert again.status in (FileStatus.UNCHANGED, FileStatus.SKIPPED), again
        assert _key(_whole_module(fast.updated)) == _key(again)
