"""Run the selected rules over many files and return one `FileResult` per file.

Files are read as bytes and skipped on a byte-level check before parsing (most files
of a real repository never mention the legacy names); in the rest only the region
that mentions them is parsed (`codemods.region`), once, and passed through the rules in
`RULE_ORDER`, in worker processes when there are enough of them. Only the processes
that parse import libcst (an eighth of a second): a big run's workers load it while
this process is still reading and prefiltering files. A failure in one file becomes
that file's result and never stops the run.
The runner never writes: the CLI decides whether to diff, write or check.

Kept whole (about 450 lines): the worker processes import their tasks from this module
by name, and those tasks are the one-file migration itself, so the pool and the file
step share one module; how lines move across a rewrite is `codemods.line_diff`.
"""

from __future__ import annotations

import ast
import io
import os
import re
import signal
import threading
import time
import tokenize
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import partial
from itertools import chain, islice
from typing import TYPE_CHECKING

from codemods import Rule, typescript
from codemods.line_diff import follow_line_ends, line_map
from codemods.outline import NEWLINE, Outline, line_breaks
from codemods.region import MEMBER_HEADER, locate
from codemods.settings import Settings
from codemods.site import Site
from codemods.source_file import read_source
from codemods.triggers import fewest, file_triggers

if TYPE_CHECKING:
    import libcst as cst

    from codemods.command import RuleCommand

# Below this many files to parse, starting worker processes costs more than it saves.
MIN_FILES_PER_WORKER = 4
# From this many paths on, workers start before reading finishes; they get files in
# batches of BATCH to keep the per-task overhead small.
EARLY_POOL = 64
BATCH = 4
CRASHED = "cannot parse: the parser crashed on this file (its worker process died)"
SAVE_AS_UTF8 = "save the file as UTF-8 to migrate it"


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
    if typescript.is_script(path):
        return _migrate_script(source, path, options)
    names = options.settings.names
    rules = [r for r in options.rules if any(t in source for t in file_triggers(r, names))]
    if not rules:
        return FileResult(path, FileStatus.SKIPPED)
    if b"\0" in source:
        # CPython refuses a file holding a NUL byte anywhere, LibCST only outside
        # strings and comments: such a file is a syntax error, never rewritten.
        return _failed(path, *_syntax_error(source, 1, 1))
    if b"\x0c" in source:
        through_view = _migrate_form_feeds(source, path, options)
        if through_view is not None:
            return through_view
    import libcst as cst

    from codemods.rules import RULE_ORDER

    active = [(rule, command) for rule, command in RULE_ORDER if rule in rules]
    region = _migrate_region(source, path, options, active)
    if region is not None:
        return region
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        message, line, column = _syntax_error(source, error.raw_line, error.raw_column + 1)
        return _failed(path, message, line, column)
    except (SyntaxError, UnicodeError, LookupError) as error:  # any codec's error
        return _failed(path, *_decode_error(source, error))
    outline = _outline(source, module.encoding)
    unfaithful = None if outline is None else _round_trip(source, outline.text, module.encoding)
    if unfaithful is not None:
        return _failed(path, *unfaithful)
    try:
        code, sites = _apply(module, outline, options, active)
    except Exception as error:  # one broken rule must not stop the run
        return _failed(path, f"internal error: {type(error).__name__}: {error}")
    result: bytes | None = source
    if code is not None:
        regenerated = module.code  # (generated anew on each read)
        code = dropped_whitespace_kept(source.decode(module.encoding), regenerated, code)
        result = _encode(
            _final_cr(source, follow_line_ends(regenerated, code), module.encoding),
            module.encoding,
        )
    if result is None:
        return _failed(path, f"cannot encode the result in {module.encoding}")
    if result == source:
        return FileResult(path, FileStatus.UNCHANGED, tuple(sites))
    return FileResult(path, FileStatus.CHANGED, tuple(sites), source, result)


def _migrate_form_feeds(source: bytes, path: str, options: Options) -> FileResult | None:
    """Migrate a file with form feeds in its indentation through `codemods.form_feed`.

    Both the region and the whole-module path then parse the view, so they agree; the
    view's result is mapped back to the file's bytes, lines and columns. None: there is
    nothing to cut (or the file does not decode, or Python cannot parse it), so the file
    goes the usual way and is reported as it is.
    """
    from codemods.form_feed import restore, view

    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
        text = source.decode(encoding)
        cut = view(text)
        if cut is None or text.encode(encoding) != source:
            return None
        cut_source = cut.text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        return None
    result = migrate_bytes(cut_source, path, options)
    sites = tuple(replace(site, column=cut.column(site.line, site.column)) for site in result.sites)
    if result.status is FileStatus.FAILED:
        if result.error_line is None or result.error_column is None or result.error is None:
            return result
        column = cut.column(result.error_line, result.error_column)
        message = result.error.replace(
            f"line {result.error_line}, column {result.error_column}",
            f"line {result.error_line}, column {column}",
            1,
        )
        return replace(result, error=message, error_column=column)
    if result.updated is None:
        return replace(result, sites=sites)
    restored = restore(cut, result.updated.decode(encoding))
    if restored is None:
        line = min(cut.cuts)
        return _failed(
            path,
            "LibCST cannot read a form feed before indentation here (Python accepts it) "
            "and it could not be kept in the rewritten code; file left untouched",
            line,
            1,
        )
    updated = _encode(restored, encoding)
    if updated is None:
        return _failed(path, f"cannot encode the result in {encoding}")
    if updated == source:
        return FileResult(path, FileStatus.UNCHANGED, sites)
    return FileResult(path, FileStatus.CHANGED, sites, source, updated)


def _migrate_script(source: bytes, path: str, options: Options) -> FileResult:
    """A TypeScript/JavaScript file or a Vue/Svelte component: the tree-sitter engine,
    imported only when needed."""
    if not any(t in source for t in typescript.triggers(options.rules)):
        return FileResult(path, FileStatus.SKIPPED)
    from codemods.typescript.engine import migrate_script

    try:
        outcome = migrate_script(source, path, options.rules, options.settings)
    except Exception as error:  # one broken rule must not stop the run
        return _failed(path, f"internal error: {type(error).__name__}: {error}")
    if outcome.error is not None:
        return _failed(path, outcome.error, outcome.error_line, outcome.error_column)
    if outcome.updated is None:
        return FileResult(path, FileStatus.UNCHANGED, outcome.sites)
    return FileResult(path, FileStatus.CHANGED, outcome.sites, source, outcome.updated)


def _migrate_region(
    source: bytes, path: str, options: Options, active: list[tuple[Rule, type[RuleCommand]]]
) -> FileResult | None:
    """Parse only the statements that mention a trigger (`codemods.region`), splice them back.

    Parsing is most of a rule run's cost, and a file with call sites usually has them in
    one function or a few methods of a class; `ast` (C speed) finds their lines. None
    means "use the whole module": no `ast` outline, a large region, a region LibCST would
    indent new blocks in differently, or a rule that needs the whole file.
    """
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
        text = source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        return None
    unfaithful = _round_trip(source, text, encoding)
    if unfaithful is not None:
        return _failed(path, *unfaithful)
    outline = Outline.of(text)
    if outline.unparsable is not None:
        return _failed(path, outline.unparsable)
    indent = outline.first_indent()
    if indent is None or outline.statements is None:
        return None
    wanted = tuple(t for _, command in active for t in command.triggers(options.settings.names))
    region = locate(outline.statements, outline.lines_with(wanted))
    if region is None:
        return FileResult(path, FileStatus.UNCHANGED)
    starts = [0] + [match.end() for match in NEWLINE.finditer(text)]
    begin = starts[region.start - 1]
    end = starts[region.last] if region.last < len(starts) else len(text)
    if (end - begin) * 2 > len(text):
        return None  # most of the file: parse it whole
    # Members of a class go under a stand-in class line ending like the file's first line
    # (LibCST takes a module's newline for the code it generates from there).
    header = MEMBER_HEADER + _first_newline(text) if region.member else ""
    region_text = header + text[begin:end]
    import libcst as cst

    from codemods.command import NeedsWholeModule

    try:
        module = cst.parse_module(region_text)
        if module.default_indent != indent:
            return None  # new blocks would be indented unlike the whole module's
        region_outline = replace(
            Outline.of(region_text, partial=True, encoding=encoding),
            outside=text[:begin] + text[end:],
        )
        code, sites = _apply(module, region_outline, options, active)
        if code is not None:
            code = dropped_whitespace_kept(region_text, module.code, code)
    except NeedsWholeModule:
        return None
    except cst.ParserSyntaxError:
        return None  # the whole-module parse reports it with the right location
    except Exception as error:  # one broken rule must not stop the run
        return _failed(path, f"internal error: {type(error).__name__}: {error}")
    if code is not None:
        if not code.startswith(header):
            return None  # a rule changed the stand-in line: parse the whole file instead
        code = code[len(header) :]
    shift = region.start - (2 if header else 1)  # the region's first line is line 1 or 2
    sites = [_moved(site, site.line + shift) for site in sites]
    if code is None:
        return FileResult(path, FileStatus.UNCHANGED, tuple(sites))
    result = _encode(follow_line_ends(text, text[:begin] + code + text[end:]), encoding)
    if result is None:
        return _failed(path, f"cannot encode the result in {encoding}")
    if result == source:
        return FileResult(path, FileStatus.UNCHANGED, tuple(sites))
    return FileResult(path, FileStatus.CHANGED, tuple(sites), source, result)


def _apply(
    module: cst.Module,
    outline: Outline | None,
    options: Options,
    active: list[tuple[Rule, type[RuleCommand]]],
) -> tuple[str | None, list[Site]]:
    """Run the rules in order; the final code (None: unchanged) and the sites, sorted."""
    sites: list[Site] = []
    # Maps a line of the current tree (index = line - 1) to the line in the first one, so
    # every site is reported where the user sees it, whichever rule found it.
    lines_now: list[int] | None = None
    latest: str | None = None
    partial = outline is not None and outline.partial
    encoding = outline.encoding if outline is not None else module.encoding
    for position, (_, command_type) in enumerate(active, start=1):
        command = command_type(options.settings, outline)
        updated = command.transform_module(module)
        for site in command.sites:
            line = site.line if lines_now is None else lines_now[site.line - 1]
            sites.append(_moved(site, line))
        if command.changed:
            # Code generation is costly: the last rule's output is the result.
            code = latest = updated.code
            if position < len(active):  # a later rule needs positions in the new code
                before = module.code if outline is None else outline.text
                lines_now = line_map(before, code, lines_now)
                outline = replace(
                    Outline.of(code, partial=partial, encoding=encoding),
                    outside=None if outline is None else outline.outside,
                )
            module = updated
    sites.sort(key=lambda site: (site.line, site.column, site.rule))
    return latest, sites


def migrate_file(path: str, options: Options) -> FileResult:
    """Read one file and migrate it; an unreadable file is a failed result."""
    try:
        source = read_source(path)
    except OSError as error:
        return _failed(path, f"cannot read: {error.strerror or error}")
    return migrate_bytes(source, path, options)


def run(
    paths: Iterable[str],
    options: Options,
    *,
    jobs: int | None = None,
    progress: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """Migrate every path; results come back in the order of `paths`.

    `paths` may be a generator (the CLI passes the directory walk itself): files are read
    while it goes on, so the workers start on the first files to parse instead of after
    the whole tree has been listed.
    """
    upcoming = iter(paths)
    listed: list[str] = list(islice(upcoming, EARLY_POOL))
    results: list[FileResult | None] = []
    wanted = fewest(
        t for rule in options.rules for t in file_triggers(rule, options.settings.names)
    )
    wanted_in_scripts = fewest(typescript.triggers(options.rules))
    workers = jobs or os.cpu_count() or 1
    # A big run starts its workers at once, so parsing overlaps reading the other files.
    pool = None
    if workers > 1 and len(listed) >= EARLY_POOL:
        # The workers start with the first batch and load the rules at once.
        pool = ProcessPoolExecutor(workers, initializer=_load_rules)
    submitted: list[tuple[list[int], Future[list[FileResult]]]] = []
    batch: list[tuple[int, bytes]] = []
    local: list[tuple[int, bytes]] = []

    sources: dict[int, bytes] = {}  # what the workers got, in case one of them dies

    def submit() -> None:
        assert pool is not None
        sources.update(batch)
        work = [(listed[i], source) for i, source in batch]
        submitted.append(([i for i, _ in batch], pool.submit(_migrate_batch, options, work)))
        batch.clear()

    def done(index: int, result: FileResult) -> None:
        results[index] = result
        if progress is not None:
            progress(result)

    try:
        for index, path in enumerate(chain(tuple(listed), upcoming)):
            if index >= len(listed):
                listed.append(path)
            results.append(None)
            try:
                source = read_source(path)
            except OSError as error:
                done(index, _failed(path, f"cannot read: {error.strerror or error}"))
                continue
            keys = wanted_in_scripts if typescript.is_script(path) else wanted
            if not any(t in source for t in keys):
                done(index, FileResult(path, FileStatus.SKIPPED))
            elif pool is None:
                local.append((index, source))
            else:
                batch.append((index, source))
                if len(batch) == BATCH:
                    submit()
        if batch:
            submit()
        work = [(listed[i], source) for i, source in local]
        for (index, _), result in zip(local, _migrate_all(work, options, jobs), strict=True):
            done(index, result)
        for position, (indices, future) in enumerate(submitted):
            try:
                batch_results = future.result()
            except BrokenProcessPool:
                # A worker died (a native crash in the parser): every batch not yet
                # collected is redone one file at a time, so the crash costs one file.
                rest = [i for later, _ in submitted[position:] for i in later]
                for index, result in zip(
                    rest, _isolated([(listed[i], sources[i]) for i in rest], options), strict=True
                ):
                    done(index, result)
                break
            for index, result in zip(indices, batch_results, strict=True):
                done(index, result)
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.shutdown()
    return [result for result in results if result is not None]


def _load_rules() -> None:
    _worker_start()
    import codemods.rules  # noqa: F401  (libcst and the rule classes)


def _worker_start() -> None:
    """How every worker process begins.

    Ctrl-C is the main process's to handle: a terminal sends it to the workers too, and
    each would print a traceback. A worker whose main process is gone (SIGTERM, or Ctrl-C,
    which ends it without the interpreter's teardown) ends as well: nothing would ever
    close its queue, and it would wait on it for good.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="agui-parent-watch", daemon=True).start()


def _migrate_batch(options: Options, work: list[tuple[str, bytes]]) -> list[FileResult]:
    return [migrate_bytes(source, path, options) for path, source in work]


def _migrate_all(
    work: list[tuple[str, bytes]], options: Options, jobs: int | None
) -> Iterable[FileResult]:
    workers = min(jobs or os.cpu_count() or 1, len(work) // MIN_FILES_PER_WORKER)
    task = partial(_migrate_pair, options)
    if workers <= 1:
        yield from map(task, work)
        return
    chunk = max(1, min(16, len(work) // (workers * 4)))
    finished = 0
    with ProcessPoolExecutor(max_workers=workers, initializer=_worker_start) as pool:
        try:
            for result in pool.map(task, work, chunksize=chunk):
                finished += 1
                yield result
        except BrokenProcessPool:
            pool.shutdown(wait=False, cancel_futures=True)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        else:
            return
    # A worker died (a native crash in the parser): the files not yet reported are
    # redone one at a time, so the crash costs only the file that caused it.
    yield from _isolated(work[finished:], options)


def _isolated(work: list[tuple[str, bytes]], options: Options) -> list[FileResult]:
    """Migrate each file in a worker of its own; a file that kills its worker fails alone."""
    results: list[FileResult] = []
    pool = ProcessPoolExecutor(max_workers=1, initializer=_worker_start)
    try:
        for pair in work:
            try:
                results.append(pool.submit(_migrate_pair, options, pair).result())
            except BrokenProcessPool:
                results.append(_failed(pair[0], CRASHED))
                pool.shutdown(wait=False, cancel_futures=True)
                pool = ProcessPoolExecutor(max_workers=1, initializer=_worker_start)
    finally:
        pool.shutdown()
    return results


def _migrate_pair(options: Options, pair: tuple[str, bytes]) -> FileResult:
    return migrate_bytes(pair[1], pair[0], options)


def _syntax_error(source: bytes, line: int, column: int) -> tuple[str, int, int]:
    """`syntax error at line L, column C` and, when Python can say it, what is wrong.

    LibCST's own message lists every token its grammar expected ("expected one of !=,
    %, &, ...") which tells a user nothing; CPython's parser names the problem ("'('
    was never closed") and where it is. It is handed the decoded text, not the bytes:
    of bytes, most of its offsets count UTF-8 bytes, of text characters, as its own
    caret display, editors and every other location agui prints do.
    """
    detail = ""
    encoding = _encoding(source)
    try:
        text = source.decode(encoding).removeprefix("\ufeff")  # the BOM is no column
    except (UnicodeError, LookupError):  # LibCST decoded it: not expected; count bytes then
        text = None
    try:
        ast.parse(source if text is None else text)
    except SyntaxError as error:
        if error.msg:
            detail = f": {error.msg}"
        if error.lineno:
            line, column = error.lineno, error.offset or 1
        elif b"\0" in source:  # Python names no position for a NUL byte
            line, column = _location(source, source.index(b"\0"), encoding)
    except (ValueError, RecursionError, MemoryError):
        pass
    return f"syntax error at line {line}, column {column}{detail}", line, column


def _encoding(source: bytes) -> str:
    """The encoding Python reads `source` in (its cookie or BOM, else UTF-8)."""
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:  # an unknown cookie, or a first line that is not UTF-8
        return "utf-8"


def _round_trip(
    source: bytes, text: str, encoding: str
) -> tuple[str, int | None, int | None] | None:
    """Why `source` (decoded to `text`) cannot be written back in `encoding`, or None.

    The rules work on decoded text and the result is encoded again, so a codec whose
    encode does not give back the bytes it decoded would change the file far from any
    site: `unicode_escape` escapes every line end, `raw_unicode_escape` turns `\\u00e9`
    in a string into a raw byte, cp932 maps two byte pairs to one character.
    """
    try:
        again = text.encode(encoding)
    except UnicodeError:  # a codec such as idna raises the base class
        return f"cannot encode in {encoding} the text it decoded: {SAVE_AS_UTF8}", None, None
    if again == source:
        return None
    at = next(
        (i for i, (old, new) in enumerate(zip(source, again, strict=False)) if old != new),
        min(len(source), len(again)),
    )
    line, column = _location(source, at, encoding)
    byte = f"byte 0x{source[at : at + 1].hex()}" if at < len(source) else "the end"
    return (
        f"cannot rewrite in {encoding}: decoding and encoding again changes {byte} "
        f"at line {line}, column {column}; {SAVE_AS_UTF8}",
        line,
        column,
    )


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def dropped_whitespace_kept(parsed: str, regenerated: str, code: str) -> str:
    """`code` with the blank and comment lines LibCST drops near the end of a file put back.

    LibCST's module of `x = 1\n  \n  ` generates `x = 1\n  `, one of `x = 1\n\t\n  # c`
    generates `x = 1\n  # c`, and one of `x = 1\n  # c\n  ` generates `x = 1\n  `:
    blank lines and comments before the file's last, indented line are lost, far from
    any site. `regenerated` (the untouched module's code) tells what was dropped from
    `parsed` (the text it was parsed from); when that is only whitespace and comments,
    it goes back into `code` (the rules' result) before the same ending, as long as the
    rules left that ending as it was.
    """
    if regenerated == parsed:
        return code
    same = 0
    for old, new in zip(parsed, regenerated, strict=False):
        if old != new:
            break
        same += 1
    ending = regenerated[same:]
    if not parsed.endswith(ending) or len(parsed) - len(ending) < same:
        return code
    dropped = parsed[same : len(parsed) - len(ending)]
    if not code.endswith(ending) or not all(
        not line or line.startswith("#")
        for line in (part.lstrip(" \t\f") for part in _LINE_BREAK.split(dropped))
    ):
        return code
    return code[: len(code) - len(ending)] + dropped + ending


def _final_cr(source: bytes, code: str, encoding: str) -> str:
    """`code` with the final `\r` LibCST drops from a file with old Mac line ends.

    LibCST's module of `x = 1\r` generates `x = 1` (it keeps a final `\n` or `\r\n`),
    so the last line of such a file would lose its ending. `encoding` is the parsed
    module's: detecting it again would only repeat LibCST's work.
    """
    if code.endswith(("\r", "\n")) or not source.endswith(b"\r"):
        return code
    return code + "\r" if source.decode(encoding).endswith("\r") else code


def _decode_error(source: bytes, error: Exception) -> tuple[str, int | None, int | None]:
    """`cannot decode: …` with the line and column of the first undecodable byte.

    LibCST says only "invalid or missing encoding declaration"; decoding again with the
    file's declared (or default) encoding names the byte and where it is.
    """
    try:
        try:
            encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
        except SyntaxError as undeclared:
            # Raised when a first line without a cookie is not UTF-8: find the byte.
            if "invalid or missing encoding declaration" not in str(undeclared):
                raise
            encoding = "utf-8"
        source.decode(encoding)
    except UnicodeDecodeError as bad:
        line, column = _location(source, bad.start, encoding)
        byte = source[bad.start : bad.start + 1].hex()
        reason = f"byte 0x{byte} at line {line}, column {column} is not valid {encoding}"
        return f"cannot decode: {reason}", line, column
    except (SyntaxError, UnicodeError, LookupError) as other:
        return f"cannot decode: {other}", None, None
    return f"cannot decode: {error}", None, None


def _location(source: bytes, offset: int, encoding: str) -> tuple[int, int]:
    """1-based line and column (in characters) of byte `offset`.

    Lines end where Python's tokenizer ends them (`line_breaks`: CRLF, CR or LF, mixed
    too); latin-1 maps each byte to one character, so any file's bytes can be counted.
    """
    start = max(source.rfind(b"\n", 0, offset), source.rfind(b"\r", 0, offset)) + 1
    line = line_breaks(source[:start].decode("latin-1")) + 1
    prefix = source[start:offset].decode(encoding, errors="replace")
    return line, len(prefix.removeprefix("\ufeff")) + 1


def _failed(
    path: str, message: str, line: int | None = None, column: int | None = None
) -> FileResult:
    return FileResult(path, FileStatus.FAILED, error=message, error_line=line, error_column=column)


def _encode(code: str, encoding: str) -> bytes | None:
    try:
        return code.encode(encoding)
    except UnicodeError:  # a codec such as idna raises the base class
        return None


def _outline(source: bytes, encoding: str) -> Outline | None:
    try:
        return Outline.of(source.decode(encoding), encoding=encoding)
    except (UnicodeError, LookupError):
        return None


def _first_newline(text: str) -> str:
    """The file's first line ending (a file without one: a newline)."""
    match = NEWLINE.search(text)
    return "\n" if match is None else match.group()


def _moved(site: Site, line: int) -> Site:
    if line == site.line:
        return site
    return Site(site.rule, line, site.column, site.message, site.action, site.marked)
