"""`agui migrate` on hostile sources: random modules with site after site, broken the
way real files are (a BOM, CR and CRLF mixed with LF, form feeds, vertical tabs,
bytes `str.splitlines` would cut at, a NUL, invalid UTF-8, a file cut short).

Whatever the bytes: the runner returns a result and never raises; a failure is one line;
a changed file's diff applies with `git apply` and gives exactly the rewritten bytes;
and the rewritten file migrated again changes nothing. Example counts stay small (each
changed example runs `git apply`); `HOSTILE_SOURCE_EXAMPLES=2000` runs it long.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from codemods import runner
from codemods.report import unified_diff
from codemods.runner import FileResult, FileStatus, Options, migrate_bytes, run
from tests.codemods.random_modules import random_module

EXAMPLES = int(os.environ.get("HOSTILE_SOURCE_EXAMPLES", "40"))
TS_PROGRAM = (
    b"export function approve(client: any, a: any) {\n"
    b"  // notes\n"
    b"  client.addToolApprovalResponse({ id: a.id, approved: true });\n"
    b"  const n = client.pendingInterrupts.length;\n"
    b"}\n"
)
INSERTS = [
    b"\xef\xbb\xbf",
    b"\r",
    b"\r\n",
    b"\x0c",
    b"\x0b",
    b"\x1c",
    "# \u0445\u2028\n".encode(),  # Cyrillic ha (0x85 in its UTF-8) and a line separator
    b"\x00",
    b"\xff",
    b"\t",
    b" ",
]
"""What lands in a source file: line breaks of other kinds, bytes that only look like
one, bytes no parser takes."""


@st.composite
def hostile_sources(draw: st.DrawFn) -> tuple[str, bytes]:
    """A file name and its bytes: a random module (or a TS one), a few bytes changed."""
    if draw(st.booleans()):
        name, source = "m.py", random_module(draw(st.integers(0, 10_000)))
    else:
        name, source = "m.ts", TS_PROGRAM.replace(b"\n", draw(st.sampled_from([b"\n", b"\r\n"])))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(source)))
        kind = draw(st.sampled_from(["insert", "indent-form-feed", "replace-newline", "truncate"]))
        if kind == "insert":
            source = source[:at] + draw(st.sampled_from(INSERTS)) + source[at:]
        elif kind == "indent-form-feed":
            # At a line's start, before its indentation: Python ignores it, LibCST did not.
            line_start = max(source.rfind(b"\n", 0, at), source.rfind(b"\r", 0, at)) + 1
            source = source[:line_start] + b"\x0c" + source[line_start:]
        elif kind == "replace-newline":
            found = source.find(b"\n", at)
            if found >= 0:
                ending = draw(st.sampled_from([b"\r", b"\r\n", b"\x0c\n", b"\n\x0c"]))
                source = source[:found] + ending + source[found + 1 :]
        elif draw(st.integers(0, 3)) == 0:
            source = source[:at]
    return name, source


LOOP = b"\tfor a in todo:\n\t    client.add_tool_approval_response(id=a.id, approved=True)"


@pytest.mark.parametrize(
    ("source", "sites"),
    [
        # A lone CR ends a line for Python: later statements were looked for one line
        # too early, so their sites were missed until a second run, and the CR was lost.
        (
            b"def f(a):\n" + LOOP + b"\r\t# a comment\nn = len(client.pending_interrupts)\n\n"
            b"ok = event.name == 'approval-requested'\n",
            [("AG005", 2), ("AG001", 3), ("AG002", 5), ("AG006", 7)],
        ),
        # CR, then a form feed line: the same, from the module's first line on.
        (
            b"import os\r\x0c\n\r\nasync def g(a):\r\n" + LOOP.replace(b"\n", b"\r\n") + b"\r\n",
            [("AG005", 5), ("AG001", 6)],
        ),
    ],
    ids=["lone-cr", "cr-form-feed"],
)
def test_a_lone_cr_is_a_line_end_as_python_counts_it(
    source: bytes, sites: list[tuple[str, int]]
) -> None:
    result = migrate_bytes(source, "m.py", Options())
    assert [(site.rule.value, site.line) for site in result.sites] == sites
    assert result.updated is not None
    assert result.updated.count(b"\r") - result.updated.count(b"\r\n") == source.count(
        b"\r"
    ) - source.count(b"\r\n")
    again = migrate_bytes(result.updated, "m.py", Options())
    assert again.status in (FileStatus.UNCHANGED, FileStatus.SKIPPED), again


@pytest.mark.parametrize("ending", [b"\r", b"\r\n"])
def test_a_script_site_after_a_lone_cr_is_on_the_line_an_editor_shows(ending: bytes) -> None:
    body = (
        b"export function approve(client: any, a: any) {\n  // a\nconst z = 1;\n"
        b"  client.addToolApprovalResponse({ id: a.id, approved: true });\n"
        b"  const n = client.pendingInterrupts.length;\n}\n"
        b"const m = client.getPendingInterrupts();\n"
    )
    plain = migrate_bytes(body, "m.ts", Options())
    # The same lines, one of them ended by a lone CR (or CRLF) instead of LF.
    odd = migrate_bytes(body.replace(b"// a\n", b"// a" + ending, 1), "m.ts", Options())
    positions = [(site.rule.value, site.line, site.column) for site in plain.sites]
    assert positions == [("AG001", 4, 3), ("AG002", 5, 20), ("AG003", 7, 18)]
    assert [(site.rule.value, site.line, site.column) for site in odd.sites] == positions


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_sources())
def test_a_hostile_source_migrates_to_a_patch_git_applies(case: tuple[str, bytes]) -> None:
    name, source = case
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(source)
        result = migrate_bytes(source, str(path), Options())
        event(f"{name}: {result.status}")
        # The region path is a fast path: the whole-module path alone must agree.
        assert _key(result) == _key(_whole_module(source, str(path)))
        if result.status is FileStatus.FAILED:
            assert result.error
            assert "\n" not in result.error, result.error
            return
        if result.status is not FileStatus.CHANGED:
            return
        assert result.updated is not None
        patch = Path(directory) / "p.diff"
        patch.write_bytes(unified_diff(result, cwd=directory))
        applied = subprocess.run(
            ["git", "apply", "p.diff"],
            cwd=directory,
            capture_output=True,
            text=True,
        )
        assert applied.returncode == 0, applied.stderr
        assert path.read_bytes() == result.updated
    again = migrate_bytes(result.updated, str(path), Options())
    assert again.status in (FileStatus.UNCHANGED, FileStatus.SKIPPED), again
    assert _key(again) == _key(_whole_module(result.updated, str(path)))


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.error_line, result.sites)


def _whole_module(source: bytes, path: str) -> FileResult:
    """The plain twin of `migrate_bytes`: no region parsed on its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "_migrate_region", lambda *args: None)
        return migrate_bytes(source, path, Options())


@pytest.mark.parametrize("codec", ["idna", "punycode"])
def test_a_codec_that_raises_unicode_error_itself_fails_only_its_file(
    tmp_path: Path, codec: str
) -> None:
    # These codecs raise `UnicodeError`, the base class: caught as a decode or encode
    # error of one file, it must not end the run with a traceback.
    body = b"def f(client, a):\n" + LOOP.replace(b"\t", b"    ") + b"\n"
    odd = tmp_path / "odd.py"
    odd.write_bytes(f"# coding: {codec}\n".encode() + body)
    legacy = tmp_path / "legacy.py"
    legacy.write_bytes(body)
    first, second = run([str(odd), str(legacy)], Options(), jobs=1)
    assert first.status is FileStatus.FAILED
    assert first.error is not None
    assert "\n" not in first.error
    assert first.error.startswith(("cannot decode", "cannot encode")), first.error
    assert second.status is FileStatus.CHANGED
