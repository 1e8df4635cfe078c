"""Machine renderings: the diff git accepts, JSON lines, SARIF, GitHub annotations."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods import Rule
from codemods.report import github_annotations, json_lines, sarif, unified_diff
from codemods.runner import FileResult, FileStatus, Options, migrate_bytes
from codemods.site import Action, Site

SITE = Site(Rule.AG001, 3, 5, "move it, please", Action.TODO)
FAILED = FileResult(
    "b.py", FileStatus.FAILED, error="syntax error: x", error_line=2, error_column=1
)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    "source",
    [
        b"def f(c, a):\n    c.add_tool_approval_response(id=a.id, approved=True)",  # no final EOL
        b"\xef\xbb\xbfdef f(c, a):\r\n    c.add_tool_approval_response(id=a.id, approved=1)\r\n",
        b"# -*- coding: latin-1 -*-\nN = '\xe9'\ndef f(c, a):\n    return c.pending_interrupts\n",
        # Bytes `str.splitlines` cuts at but git does not: the diff's lines must be git's.
        "# Проверка: \u0445\ndef f(c, a):\n    return c.pending_interrupts\n".encode(),  # 0x85
        b"import os\n\x0c\n# a\x0bb\x1cc\ndef f(c, a):\n    return c.pending_interrupts\n",
        b"def f(c, a):\r    return c.pending_interrupts\rX = 1\r",  # CR only: one git line
        b"def f(c, a):\r\n    return c.pending_interrupts\rX = 1\n",
    ],
    ids=["no-final-eol", "bom-crlf", "latin-1", "byte-0x85", "form-feed", "cr-only", "cr-mixed"],
)
def test_diff_applies_with_git_apply(tmp_path: Path, source: bytes) -> None:
    target = tmp_path / "pkg" / "m.py"
    target.parent.mkdir()
    target.write_bytes(source)
    result = migrate_bytes(source, str(target), Options())
    assert result.updated is not None
    patch = unified_diff(result, cwd=str(tmp_path))
    assert patch.startswith(b"diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n")
    (tmp_path / "p.diff").write_bytes(patch)
    subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert target.read_bytes() == result.updated


def test_json_lines_parse_line_by_line() -> None:
    results = [FileResult("a.py", FileStatus.UNCHANGED, (SITE,)), FAILED]
    lines = [json.loads(line) for line in json_lines(results, cwd=".").splitlines()]
    assert lines == [
        {
            "type": "site",
            "file": "a.py",
            "line": 3,
            "column": 5,
            "rule": "AG001",
            "title": "Resolve approvals on the bound interrupt",
            "message": "move it, please",
            "action": "todo",
            "marked": False,
        },
        {"type": "failure", "file": "b.py", "line": 2, "column": 1, "message": "syntax error: x"},
    ]


def test_sarif_log() -> None:
    log = json.loads(sarif([FileResult("a.py", FileStatus.CHANGED, (SITE,)), FAILED], "1.0"))
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [r.value for r in Rule]
    [result] = run["results"]
    assert result["ruleId"] == "AG001"
    assert result["level"] == "warning"
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "a.py"},
        "region": {"startLine": 3, "startColumn": 5},
    }
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"] == "syntax error: x"
    assert run["invocations"][0]["executionSuccessful"] is False


def test_github_annotations_escape() -> None:
    site = Site(Rule.AG002, 1, 2, "50% done\nnext", Action.REWRITTEN)
    text = github_annotations([FileResult("a.py", FileStatus.CHANGED, (site, SITE)), FAILED])
    assert text.splitlines() == [
        "::notice file=a.py,line=1,col=2,"
        "title=AG002 Read interrupts instead of pending_interrupts::50%25 done%0Anext",
        "::warning file=a.py,line=3,col=5,"
        "title=AG001 Resolve approvals on the bound interrupt::move it, please",
        "::error file=b.py,line=2,col=1,title=agui migrate::syntax error: x",
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_patch_names_files_of_every_byte_as_git_apply_reads_them(tmp_path: Path) -> None:
    # A line break (or any control byte, `"`, `\`) in a name is quoted as git quotes it:
    # written as is, it ended the header and started a line of the patch's own.
    source = b"x = client.pending_interrupts\n"
    patch = b""
    names = [b"m" + bytes([byte]) + b".py" for byte in range(1, 256) if byte != ord("/")]
    names.append(b'x.py\n+++ evil.py\n"q\\')
    for name in names:
        target = tmp_path / os.fsdecode(name)
        target.write_bytes(source)
        result = migrate_bytes(source, str(target), Options())
        assert result.updated is not None
        patch += unified_diff(result, cwd=str(tmp_path))
    (tmp_path / "p.diff").write_bytes(patch)
    subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
    for name in names:
        assert (tmp_path / os.fsdecode(name)).read_bytes() == source.replace(
            b"pending_interrupts", b"interrupts"
        )
    assert not (tmp_path / "evil.py").exists()
    assert unified_diff(result, cwd=str(tmp_path)).startswith(
        b'diff --git "a/x.py\\n+++ evil.py\\n\\"q\\\\" "b/x.py\\n+++ evil.py\\n\\"q\\\\"\n'
    )
