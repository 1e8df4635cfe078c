"""The runner: byte-level prefilter, byte-exact output, failures as results, worker pool."""

from __future__ import annotations

import codecs
import random
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods import Rule, runner
from codemods.runner import FileStatus, Options, migrate_bytes, migrate_file, run
from codemods.site import Action

CALL = b"client.add_tool_approval_response(id=a.id, approved=True)"


def test_files_without_legacy_names_are_skipped_unparsed() -> None:
    # Not even valid Python: the prefilter decides before parsing.
    result = migrate_bytes(b"def (:\n", "x.py", Options())
    assert result.status is FileStatus.SKIPPED


def test_bom_and_crlf_survive_byte_exact() -> None:
    source = codecs.BOM_UTF8 + b"# caf\xc3\xa9\r\ndef f(client, a):\r\n    " + CALL + b"\r\n"
    result = migrate_bytes(source, "x.py", Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated is not None
    assert result.updated.startswith(codecs.BOM_UTF8 + b"# caf\xc3\xa9\r\ndef f(client, a):\r\n")
    assert b"\r\n    if interrupt is not None:\r\n" in result.updated
    assert b"\n" not in result.updated.replace(b"\r\n", b"")
    again = migrate_bytes(result.updated, "x.py", Options())
    assert again.status is FileStatus.SKIPPED  # nothing legacy is left


def test_a_declared_encoding_survives() -> None:
    source = b"# -*- coding: latin-1 -*-\nNAME = '\xe9'\nx = client.pending_interrupts\n"
    result = migrate_bytes(source, "x.py", Options())
    assert result.updated == source.replace(b"pending_interrupts", b"interrupts")


SITE = b"def f(client, a):\n    " + CALL + b"\n"


@pytest.mark.parametrize(
    ("source", "error", "where"),
    [
        (
            b"# -*- coding: unicode_escape -*-\nNAME = '\\u00e9 caf\xc3\xa9'\n" + SITE,
            "cannot rewrite in unicode_escape: decoding and encoding again changes byte 0x0a",
            (1, 33),
        ),
        (
            b"# coding: raw_unicode_escape\nNAME = '\\u00e9'\n" + SITE,
            "cannot rewrite in raw_unicode_escape: decoding and encoding again changes byte 0x5c",
            (2, 9),
        ),
        # cp932 decodes 0x87 0x90 and 0x81 0xe0 to the same character, and encodes 0x81 0xe0.
        (
            b"# coding: cp932\r\nNAME = '\x87\x90'\r\n" + SITE.replace(b"\n", b"\r\n"),
            "cannot rewrite in cp932: decoding and encoding again changes byte 0x87",
            (2, 9),
        ),
    ],
)
@pytest.mark.parametrize("path", ["region", "whole-module"])
def test_a_file_its_declared_codec_cannot_write_back_is_refused(
    monkeypatch: pytest.MonkeyPatch, source: bytes, error: str, where: tuple[int, int], path: str
) -> None:
    # Written back, such a file changed far from the site (unicode_escape escaped every
    # line end): it is refused whole, with the first byte that would change.
    if path == "whole-module":
        monkeypatch.setattr(runner, "_migrate_region", lambda *args: None)
    result = migrate_bytes(source, "x.py", Options())
    assert result.status is FileStatus.FAILED
    assert result.updated is None
    line, column = where
    assert result.error == (
        f"{error} at line {line}, column {column}; save the file as UTF-8 to migrate it"
    )
    assert (result.error_line, result.error_column) == where


@pytest.mark.parametrize(
    ("head", "encoding"),
    [
        ("# -*- coding: utf-8 -*-\nNAME = '\\u00e9 café ✓'\n", "utf-8"),
        ("NAME = '\\u00e9 café ✓'\n", "utf-8-sig"),
        ("# -*- coding: latin-1 -*-\nNAME = '\\u00e9 café'\n", "latin-1"),
        ("# coding: cp932\nNAME = 'ｶﾀｶﾅ 漢字'\n", "cp932"),
    ],
)
@pytest.mark.parametrize("path", ["region", "whole-module"])
def test_a_file_its_codec_writes_back_is_migrated_and_nothing_else_changes(
    monkeypatch: pytest.MonkeyPatch, head: str, encoding: str, path: str
) -> None:
    if path == "whole-module":
        monkeypatch.setattr(runner, "_migrate_region", lambda *args: None)
    word = head.split("'")[1]  # non-ASCII characters of the file's encoding
    tail = f"\nOTHER = '\\x41 {word}'  # after\n"
    source = (head + SITE.decode() + tail).encode(encoding)
    result = migrate_bytes(source, "x.py", Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated is not None
    before, after = head.encode(encoding), tail.encode(encoding)
    if encoding == "utf-8-sig":
        after = tail.encode()
    assert result.updated.startswith(before + b"def f(client, a):\n")
    assert result.updated.endswith(b"resolve_interrupt(True)\n" + after)


def test_syntax_error_is_a_failed_result_with_a_location() -> None:
    result = migrate_bytes(b"x = 1\ndef f(:\n    client.pending_interrupts\n", "x.py", Options())
    assert result.status is FileStatus.FAILED
    assert result.error is not None
    # Python's own words and position, never LibCST's list of expected tokens.
    assert result.error == "syntax error at line 2, column 7: invalid syntax"
    assert (result.error_line, result.error_column) == (2, 7)


def test_undecodable_file_is_a_failed_result() -> None:
    result = migrate_bytes(b"x = '\xff\xfe'  # client.pending_interrupts\n", "x.py", Options())
    assert result.status is FileStatus.FAILED
    assert result.error is not None
    assert result.error.startswith("cannot decode")


@pytest.mark.parametrize(
    ("source", "error", "where"),
    [
        (
            b"x = '\xff\xfe'  # client.pending_interrupts\n",
            "cannot decode: byte 0xff at line 1, column 6 is not valid utf-8",
            (1, 6),
        ),
        (
            b"a = '\xc3\xa9'\r\nb = 1  # \xe9 client.pending_interrupts\r\n",
            "cannot decode: byte 0xe9 at line 2, column 10 is not valid utf-8",
            (2, 10),
        ),
        (
            b"# coding: ascii\nb = '\xc3\xa9'  # client.pending_interrupts\n",
            "cannot decode: byte 0xc3 at line 2, column 6 is not valid ascii",
            (2, 6),
        ),
        (
            b"x = 1\ny = 2\x00  # client.pending_interrupts\n",
            "syntax error at line 2, column 6: source code string cannot contain null bytes",
            (2, 6),
        ),
        # A lone CR ends a line too, as it does for Python (which says line 3 for both).
        (
            b"a = 1\rb = 2\nc = '\xff' + client.pending_interrupts\n",
            "cannot decode: byte 0xff at line 3, column 6 is not valid utf-8",
            (3, 6),
        ),
        (
            b"a = 1\rb = 2\nc = 1\x00 + client.pending_interrupts\n",
            "syntax error at line 3, column 6: source code string cannot contain null bytes",
            (3, 6),
        ),
    ],
)
def test_undecodable_bytes_and_nul_bytes_are_located(
    source: bytes, error: str, where: tuple[int, int]
) -> None:
    result = migrate_bytes(source, "x.py", Options())
    assert result.status is FileStatus.FAILED
    assert (result.error, result.error_line, result.error_column) == (error, *where)


NUL_FILLER = b"".join(b"\n\ndef helper_%d(x):\n    return x + %d\n" % (i, i) for i in range(12))


@pytest.mark.parametrize(
    ("source", "where"),
    [
        (b'x = "a\x00b"\ndef f(client, a):\n    ' + CALL + b"\n", (1, 7)),
        # A long file, the NUL far from the site: the region path would parse the site alone.
        (b'x = "a\x00b"\n' + NUL_FILLER + b"\n\ndef f(client, a):\n    " + CALL + b"\n", (1, 7)),
        # In the region itself, in a string and in a comment.
        (NUL_FILLER + b'\n\ndef f(client, a):\n    s = b"\x00"\n    ' + CALL + b"\n", (52, 11)),
        (NUL_FILLER + b"\n\ndef f(client, a):\n    " + CALL + b"  # \x00\n", (52, 66)),
    ],
)
@pytest.mark.parametrize("path", ["region", "whole-module"])
def test_a_nul_byte_python_refuses_is_a_syntax_error_even_where_libcst_takes_it(
    monkeypatch: pytest.MonkeyPatch, source: bytes, where: tuple[int, int], path: str
) -> None:
    # CPython refuses any source holding a NUL byte; LibCST parses one in a string or a
    # comment, so the file was migrated and written though Python cannot run it.
    if path == "whole-module":
        monkeypatch.setattr(runner, "_migrate_region", lambda *args: None)
    result = migrate_bytes(source, "x.py", Options())
    assert result.status is FileStatus.FAILED
    assert result.updated is None
    message = "source code string cannot contain null bytes"
    assert result.error == f"syntax error at line {where[0]}, column {where[1]}: {message}"
    assert (result.error_line, result.error_column) == where
    clean = migrate_bytes(source.replace(b"\x00", b"0"), "x.py", Options())
    assert clean.status is FileStatus.CHANGED  # the NUL alone makes it fail


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            b"def f(client):\r    return client.pending_interrupts\r",
            b"def f(client):\r    return client.interrupts\r",
        ),
        (
            b"def f(client):\r    for a in client.pending_interrupts:\r"
            b"        client.add_tool_approval_response(id=a.id, approved=True)\r",
            b"def f(client):\r    client.resolve_interrupts(True)\r",
        ),
        (b"x = client.pending_interrupts", b"x = client.interrupts"),
    ],
)
def test_old_mac_line_ends_keep_the_last_one(source: bytes, expected: bytes) -> None:
    result = migrate_bytes(source, "x.py", Options())
    assert result.updated == expected


def test_the_last_old_mac_line_end_uses_the_modules_own_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The whole-module path knows the encoding LibCST detected: no second detection.
    source = b"# caf\xc3\xa9\rx = client.pending_interrupts\r"
    detections: list[object] = []
    detect = tokenize.detect_encoding

    def counted(readline: Callable[[], bytes]) -> tuple[str, list[bytes]]:
        detections.append(readline)
        return detect(readline)

    monkeypatch.setattr(runner, "_migrate_region", lambda *args: None)
    monkeypatch.setattr(tokenize, "detect_encoding", counted)
    result = migrate_bytes(source, "x.py", Options())
    assert result.updated == b"# caf\xc3\xa9\rx = client.interrupts\r"
    assert detections == []


def test_a_next_imported_outside_the_parsed_region_still_blocks_the_lookup() -> None:
    # The file is long, so only the function with the site is parsed; the import of a
    # `next` that the rewritten lookup would call sits far above it.
    body = "".join(f"def g{i}():\n    return {i}\n\n\n" for i in range(40))
    source = (
        "from paging import next\n\n\n"
        + body
        + "def f(client, a):\n    client.add_tool_approval_response(id=a, approved=True)\n"
    ).encode()
    result = migrate_bytes(source, "x.py", Options())
    assert [(s.rule, s.action) for s in result.sites] == [(Rule.AG001, Action.TODO)]
    assert result.updated is not None
    assert b"interrupt = next(" not in result.updated


def test_sites_report_original_lines_across_rules() -> None:
    # AG005 shrinks the loop and AG001 grows a statement before AG002 and AG006 run.
    source = (
        b"def f(client, a):\n"  # 1
        b"    for x in client.interrupts:\n"  # 2
        b"        client.add_tool_approval_response(id=x.id, approved=True)\n"  # 3
        b"    " + CALL + b"\n"  # 4
        b"    n = client.pending_interrupts\n"  # 5
        b"    return a.name == 'approval-requested'\n"  # 6
    )
    result = migrate_bytes(source, "x.py", Options())
    assert [(s.rule, s.line, s.action) for s in result.sites] == [
        (Rule.AG005, 2, Action.REWRITTEN),
        (Rule.AG001, 4, Action.REWRITTEN),
        (Rule.AG002, 5, Action.REWRITTEN),
        (Rule.AG006, 6, Action.TODO),
    ]


def test_selected_rules_only() -> None:
    source = b"def f(client, a):\n    " + CALL + b"\n    n = client.pending_interrupts\n"
    result = migrate_bytes(source, "x.py", Options(rules=frozenset({Rule.AG002})))
    assert [s.rule for s in result.sites] == [Rule.AG002]
    assert result.updated is not None
    assert CALL in result.updated


def test_unreadable_file_is_a_failed_result(tmp_path: Path) -> None:
    result = migrate_file(str(tmp_path / "missing.py"), Options())
    assert result.status is FileStatus.FAILED


@pytest.mark.parametrize(("jobs", "count"), [(1, 12), (2, 12), (2, 70)])
def test_run_keeps_order_and_survives_bad_files(tmp_path: Path, jobs: int, count: int) -> None:
    # 12 files run in this process; 70 start worker processes while reading.
    paths = []
    for index in range(count):
        path = tmp_path / f"m{index:02}.py"
        if index == 3:
            path.write_bytes(b"def broken(:\n    client.pending_interrupts\n")
        elif index % 2:
            path.write_bytes(b"x = client.pending_interrupts\n")
        else:
            path.write_bytes(b"x = 1\n")
        paths.append(str(path))
    paths.append(str(tmp_path / "gone.py"))
    seen: list[str] = []
    results = run(paths, Options(), jobs=jobs, progress=lambda r: seen.append(r.path))
    assert [r.path for r in results] == paths
    assert sorted(seen) == sorted(paths)
    statuses = [r.status for r in results]
    assert statuses[3] is FileStatus.FAILED
    assert statuses[-1] is FileStatus.FAILED
    assert statuses.count(FileStatus.CHANGED) == count // 2 - 1
    assert statuses.count(FileStatus.SKIPPED) == count - count // 2


FILLER = "".join(
    f"\n\ndef helper_{i}(x):\n    # unrelated\n    return x + {i}\n" for i in range(12)
)

REGIONS = {
    "function": "async def go(client, a):\n    await " + CALL.decode() + "  # note\n",
    "decorated": "# above\n@decorate\n# between\ndef go(client, a):\n    " + CALL.decode() + "\n",
    "same-line": "x = 1; y = client.pending_interrupts\n",
    "expression": "def go(client, a):\n    return " + CALL.decode() + "\n",
    "module-level": CALL.decode() + "\n",
    "batch": "from q import todo\n\ndef go(client):\n    for a in todo:\n        "
    + CALL.decode()
    + "\n",
    "batch-local": "def go(client, todo):\n    for a in todo:\n        " + CALL.decode() + "\n",
    "events": "def is_request(event):\n    return event.name == 'approval-requested'\n",
}


def whole_module(monkeypatch: pytest.MonkeyPatch, source: bytes) -> tuple[bytes | None, list]:
    with monkeypatch.context() as patch:
        patch.setattr(runner, "_migrate_region", lambda *args: None)
        result = migrate_bytes(source, "x.py", Options())
    return result.updated, [(s.rule, s.line, s.column, s.action) for s in result.sites]


@pytest.mark.parametrize("name", sorted(REGIONS))
@pytest.mark.parametrize("style", ["lf", "crlf", "bom", "latin-1"])
def test_parsing_only_the_region_matches_the_whole_module(
    monkeypatch: pytest.MonkeyPatch, name: str, style: str
) -> None:
    text = '"""Module."""\n\nimport os\n' + FILLER + "\n\n" + REGIONS[name] + FILLER
    if style == "latin-1":
        source = ("# -*- coding: latin-1 -*-\n" + text + "NAME = 'é'\n").encode("latin-1")
    else:
        source = text.replace("\n", "\r\n" if style == "crlf" else "\n").encode()
        if style == "bom":
            source = codecs.BOM_UTF8 + source
    result = migrate_bytes(source, "x.py", Options())
    sites = [(s.rule, s.line, s.column, s.action) for s in result.sites]
    assert (result.updated, sites) == whole_module(monkeypatch, source)
    assert sites, "every region has a site"
    if result.updated is not None:
        again = migrate_bytes(result.updated, "x.py", Options())
        assert again.updated is None  # idempotent through the region path too


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (
            b"x = " + b"(" * 1300 + b"client.pending_interrupts" + b")" * 1300 + b"\n",
            "syntax error: too many nested parentheses",
        ),
        (
            b"x = " + b"not " * 5000 + b"client.pending_interrupts\n",
            "cannot parse: nested too deeply",
        ),
    ],
)
def test_code_nested_deeper_than_python_allows_is_a_failed_result(
    source: bytes, error: str
) -> None:
    # LibCST's native parser dies with SIGSEGV on the first; it is never handed such code.
    result = migrate_bytes(source, "x.py", Options())
    assert result.status is FileStatus.FAILED
    assert result.error == error


@pytest.mark.parametrize("seed", range(6))
def test_paths_from_a_generator_equal_paths_from_a_list(tmp_path: Path, seed: int) -> None:
    """The CLI hands `run` the directory walk itself; results must not depend on that."""
    rng = random.Random(seed)
    count = rng.choice([1, 5, runner.EARLY_POOL - 1, runner.EARLY_POOL, runner.EARLY_POOL + 7])
    bodies = [
        b"x = 1\n",
        b"x = client.pending_interrupts\n",
        b"def broken(:\n    client.pending_interrupts\n",
        b"def go(client, a):\n    " + CALL + b"\n",
    ]
    paths = []
    for index in range(count):
        path = tmp_path / f"m{index:03}.py"
        path.write_bytes(rng.choice(bodies))
        paths.append(str(path))
    if rng.random() < 0.5:
        paths.insert(rng.randrange(len(paths) + 1), str(tmp_path / "gone.py"))
    jobs = rng.choice([1, 2])
    seen: list[str] = []
    listed = run(paths, Options(), jobs=jobs)
    walked = run((p for p in paths), Options(), jobs=jobs, progress=lambda r: seen.append(r.path))
    assert walked == listed
    assert [r.path for r in walked] == paths
    assert sorted(seen) == sorted(paths)
