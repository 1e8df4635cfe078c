"""Run the selected rules over many files and return one `FileResult` per file.

Files are read as bytes and skipped on a byte-level check before parsing (most files
of a real repository never mention the legacy names); the rest are parsed once and
passed through the rules in `RULE_ORDER`, in worker processes when there are enough
of them. A failure in one file becomes that file's result and never stops the run.
The runner never writes: the CLI decides whether to diff, write or check.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial

import libcst as cst
from libcst.codemod import CodemodContext

from codemods import Rule
from codemods.command import Settings, Site
from codemods.outline import Outline
from codemods.rules import RULE_ORDER, triggers

# Below this many files to parse, starting worker processes costs more than it saves.
MIN_FILES_PER_WORKER = 4


class FileStatus(StrEnum):
    """What the run did with a file."""

    SKIPPED = "skipped"  # no legacy name in its bytes: never parsed
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Options:
    """What to run: the rules (any order; they run in `RULE_ORDER`) and their settings."""

    rules: frozenset[Rule] = frozenset(Rule)
    settings: Settings = field(default_factory=Settings)


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file's outcome. `updated` is set only when the file would change."""

    path: str
    status: FileStatus
    sites: tuple[Site, ...] = ()
    original: bytes | None = None
    updated: bytes | None = None
    error: str | None = None
    error_line: int | None = None
    error_column: int | None = None


def migrate_bytes(source: bytes, path: str, options: Options) -> FileResult:
    """Run the rules over one file's bytes; never raises for a bad file."""
    names = options.settings.names
    active = [
        (rule, command)
        for rule, command in RULE_ORDER
        if rule in options.rules and any(t in source for t in triggers(rule, names))
    ]
    if not active:
        return FileResult(path, FileStatus.SKIPPED)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        # The location is reported separately; drop libcst's own "error at L:C:" prefix.
        detail = re.sub(r"^(parser error: )?(error at \d+:\d+: )?", "", error.message)
        message = f"syntax error: {detail}"
        return _failed(path, message, error.raw_line, error.raw_column + 1)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return _failed(path, f"cannot decode: {error}")
    sites: list[Site] = []
    # Maps a line of the current tree (index = line - 1) to the line in `source`, so
    # every site is reported where the user sees it, whichever rule found it.
    lines_now: list[int] | None = None
    latest: str | None = None
    outline = _outline(source, module.encoding)
    for rule, command_type in active:
        command = command_type(CodemodContext(filename=path), options.settings, outline)
        try:
            updated = command.transform_module(module)
        except Exception as error:  # one broken rule must not stop the run
            return _failed(path, f"internal error in {rule}: {type(error).__name__}: {error}")
        for site in command.sites:
            line = site.line if lines_now is None else lines_now[site.line - 1]
            sites.append(_moved(site, line))
        if command.changed:
            code = latest = updated.code
            lines_now = _line_map(module.code if outline is None else outline.text, code, lines_now)
            outline = Outline.of(code)
            module = updated
    sites.sort(key=lambda site: (site.line, site.column, site.rule))
    # Code generation is the costliest step after parsing: reuse the last rule's output.
    result = source if latest is None else latest.encode(module.encoding)
    if result == source:
        return FileResult(path, FileStatus.UNCHANGED, tuple(sites))
    return FileResult(path, FileStatus.CHANGED, tuple(sites), source, result)


def migrate_file(path: str, options: Options) -> FileResult:
    """Read one file and migrate it; an unreadable file is a failed result."""
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        return _failed(path, f"cannot read: {error.strerror or error}")
    return migrate_bytes(source, path, options)


def run(
    paths: Sequence[str],
    options: Options,
    *,
    jobs: int | None = None,
    progress: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """Migrate every path; results come back in the order of `paths`."""
    results: list[FileResult | None] = [None] * len(paths)
    wanted = [t for rule in options.rules for t in triggers(rule, options.settings.names)]
    candidates: list[tuple[int, bytes]] = []
    for index, path in enumerate(paths):
        try:
            with open(path, "rb") as handle:
                source = handle.read()
        except OSError as error:
            results[index] = _failed(path, f"cannot read: {error.strerror or error}")
        else:
            if any(t in source for t in wanted):
                candidates.append((index, source))
            else:
                results[index] = FileResult(path, FileStatus.SKIPPED)
        if results[index] is not None and progress is not None:
            progress(results[index])  # type: ignore[arg-type]
    for index, result in zip(
        (index for index, _ in candidates),
        _migrate_all([(paths[i], source) for i, source in candidates], options, jobs),
        strict=True,
    ):
        results[index] = result
        if progress is not None:
            progress(result)
    return [result for result in results if result is not None]


def _migrate_all(
    work: list[tuple[str, bytes]], options: Options, jobs: int | None
) -> Iterable[FileResult]:
    workers = min(jobs or os.cpu_count() or 1, len(work) // MIN_FILES_PER_WORKER)
    task = partial(_migrate_pair, options)
    if workers <= 1:
        yield from map(task, work)
        return
    chunk = max(1, min(16, len(work) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        try:
            yield from pool.map(task, work, chunksize=chunk)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _migrate_pair(options: Options, pair: tuple[str, bytes]) -> FileResult:
    return migrate_bytes(pair[1], pair[0], options)


def _failed(
    path: str, message: str, line: int | None = None, column: int | None = None
) -> FileResult:
    return FileResult(path, FileStatus.FAILED, error=message, error_line=line, error_column=column)


def _outline(source: bytes, encoding: str) -> Outline | None:
    try:
        return Outline.of(source.decode(encoding))
    except (UnicodeDecodeError, LookupError):
        return None


def _moved(site: Site, line: int) -> Site:
    if line == site.line:
        return site
    return Site(site.rule, line, site.column, site.message, site.action, site.marked)


def _line_map(before: str, after: str, previous: list[int] | None) -> list[int]:
    """For each line of `after`, the original line it came from (edits map to their start)."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    origin = previous if previous is not None else list(range(1, len(old) + 2))
    mapped: list[int] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            mapped.extend(origin[i1:i2])
        else:
            start = origin[min(i1, len(origin) - 1)]
            mapped.extend([start] * (j2 - j1))
    mapped.append(origin[-1])  # a site on a final line without newline
    return mapped
