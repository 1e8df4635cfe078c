"""`agui migrate`: rewrite call sites of the legacy approval API to interrupts (Python,
TypeScript/JavaScript, and the scripts of Vue/Svelte components).

Presentation only: options, config, the output format and the exit code live here;
discovery, rules and rendering of machine formats live in `codemods`.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.errors import ExitCode, fail, handled_errors
from codemods import RULE_TITLES, Rule

if TYPE_CHECKING:
    from rich.console import Console

    from codemods.runner import FileResult, Options
    from codemods.settings import FalsePolicy


class OutputFormat(StrEnum):
    """What goes to stdout."""

    DIFF = "diff"
    JSON = "json"
    SARIF = "sarif"
    GITHUB = "github"


class FalseAs(StrEnum):
    """Command-line spelling of `codemods.command.FalsePolicy`."""

    DENIAL = "denial"
    CANCEL = "cancel"


POLICY_TEXT: dict[str, str] = {
    "denial": "{denial}, a denial (what ai-client 0.33.2 does)",
    "cancel": "{cancel}, a payloadless cancel (--false-as cancel)",
}
"""The summary's last line, in the spelling of the languages the run read (`_policy_line`)."""
POLICY_SPELLING: dict[str, dict[str, str]] = {
    "python": {
        "denial": "approved=False → resolve_interrupt(False)",
        "cancel": "approved=False → cancel()",
    },
    "script": {
        "denial": "approved: false → resolveInterrupt(false)",
        "cancel": "approved: false → cancel()",
    },
}


def migrate(
    paths: list[Path] = typer.Argument(
        None,
        metavar="PATH...",
        help="Files or directories to migrate (default: the current directory); '-' = stdin.",
        show_default=False,
    ),
    write: bool = typer.Option(False, "--write", "-w", help="Apply the changes in place."),
    check: bool = typer.Option(
        False,
        "--check",
        help="Print only the summary; exit 1 when a file would change or needs a new TODO "
        "(a component's markup naming the legacy API included).",
    ),
    select: list[str] = typer.Option(
        [],
        "--select",
        metavar="RULE",
        help="Run only these rules (AG001,...; repeatable).",
        show_default=False,
    ),
    ignore: list[str] = typer.Option(
        [], "--ignore", metavar="RULE", help="Skip these rules (repeatable).", show_default=False
    ),
    exclude: list[str] = typer.Option(
        [],
        "--exclude",
        metavar="GLOB",
        help="Glob of files or directories to skip, on top of .git, .venv, venv, "
        "node_modules, build, dist, __pycache__, the JavaScript build folders .next, .nuxt, "
        ".output, .vinxi, .svelte-kit, .turbo, and what .gitignore ignores (repeatable).",
        show_default=False,
    ),
    false_as: FalseAs | None = typer.Option(
        None,
        "--false-as",
        help="What approved=False becomes: a denial (default, what the client does) or cancel().",
        show_default=False,
    ),
    jobs: int = typer.Option(
        0,
        "--jobs",
        "-j",
        metavar="N",
        help="Worker processes (default: one per core).",
        show_default=False,
    ),
    output_format: OutputFormat = typer.Option(
        OutputFormat.DIFF,
        "--format",
        help="Findings report format: diff (the changes as a unified diff, the default), "
        "json (JSON lines), sarif or github (annotations).",
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Each site changed or flagged, and each failed file, as JSON lines on stdout "
        "(= --format json).",
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="On stderr, only failures: no TODO list, no summary."
    ),
    stdin_filename: str | None = typer.Option(
        None,
        "--stdin-filename",
        metavar="NAME",
        help="With '-': the file stdin holds (Chat.tsx, App.vue); its extension picks the "
        "language (default: Python).",
        show_default=False,
    ),
) -> None:
    """Rewrite legacy approval call sites (add_tool_approval_response, pending_interrupts,
    resume_interrupts, ...) to the interrupt API. Reads .py and .ts/.tsx/.js/.jsx files
    and the <script> blocks of .vue/.svelte components. Dry run by default: prints a diff.

    Exit codes: 0 done; 1 --check found changes or new TODOs; 2 a file failed or bad usage.
    """
    with handled_errors():
        if as_json:
            if output_format not in (OutputFormat.DIFF, OutputFormat.JSON):
                raise fail(f"--json and --format {output_format.value} cannot be combined")
            output_format = OutputFormat.JSON
        if write and check:
            raise fail("--write and --check cannot be combined", ExitCode.CANNOT_RUN)
        if jobs < 0:
            raise fail("--jobs must be 0 (one per core) or more", ExitCode.CANNOT_RUN)
        given = paths or [Path(".")]
        if Path("-") in given and len(given) > 1:
            raise fail("'-' (stdin) cannot be combined with other paths", ExitCode.CANNOT_RUN)
        if stdin_filename is not None and given != [Path("-")]:
            raise fail("--stdin-filename names what '-' (stdin) holds; read stdin with '-'")
        if write and Path("-") in given:
            raise fail(
                "--write cannot rewrite stdin; without it the migrated code goes to stdout",
                ExitCode.CANNOT_RUN,
            )
        code = _migrate(
            given,
            write,
            check,
            select,
            ignore,
            exclude,
            false_as,
            jobs,
            output_format,
            quiet,
            stdin_filename,
        )
        raise typer.Exit(int(code))


def _migrate(
    given: list[Path],
    write: bool,
    check: bool,
    select: list[str],
    ignore: list[str],
    exclude: list[str],
    false_as: FalseAs | None,
    jobs: int,
    output_format: OutputFormat,
    quiet: bool = False,
    stdin_filename: str | None = None,
) -> ExitCode:
    from codemods.config import ConfigError, load_config, parse_rules
    from codemods.discovery import DEFAULT_EXCLUDES
    from codemods.runner import Options
    from codemods.settings import FalsePolicy

    stdin = given == [Path("-")]
    try:
        config = load_config(Path.cwd() if stdin else given[0])
        chosen = parse_rules(select, "--select") if select else config.select
        dropped = set(parse_rules(ignore, "--ignore")) | set(config.ignore)
    except ConfigError as error:
        raise fail(str(error), ExitCode.CANNOT_RUN) from None
    rules = frozenset(chosen if chosen is not None else Rule) - dropped
    if not rules:
        # `--select "$RULES"` with an empty variable would otherwise scan every file with
        # no rule at all, and `--check` would pass without having checked anything.
        known = ", ".join(rule.value for rule in Rule)
        raise fail(f"no rule left to run: --select/--ignore leave none (known: {known})")
    settings = config.settings
    if false_as is not None:
        from dataclasses import replace

        settings = replace(settings, false_as=FalsePolicy(false_as.value))
    options = Options(rules, settings)
    from rich.console import Console

    console = Console(stderr=True, highlight=False, quiet=quiet)
    if stdin:
        return _migrate_stdin(options, check, output_format, console, stdin_filename)
    for path in given:
        try:
            os.stat(path)
        except FileNotFoundError:
            raise fail(f"{path}: no such file or directory", ExitCode.CANNOT_RUN) from None
        except OSError as error:  # a symlink loop: say so, not "no such file"
            raise fail(f"{path}: {error.strerror or error}", ExitCode.CANNOT_RUN) from None
    excludes = (*DEFAULT_EXCLUDES, *config.exclude, *exclude)
    results = _run(given, excludes, options, jobs, console)
    if write:
        _remove_stale_temp_files(results, console)
    written = _write(results) if write else []
    _render(results, output_format, write or check, check)
    _summary(console, results, options, written, write)
    if any(r.status == "failed" for r in results) or written:
        return ExitCode.CANNOT_RUN
    if check and any(r.status == "changed" or _unmarked_todo(r) for r in results):
        return ExitCode.FINDINGS
    return ExitCode.OK


def _unmarked_todo(result: FileResult) -> bool:
    """A TODO no marker can hold (a Vue/Svelte markup site where no HTML comment can go,
    in `v-pre` or a `<textarea>`, say): the file does not change, yet `--check` must not
    pass while it is there."""
    from codemods.site import Action

    return any(site.action is Action.TODO and not site.marked for site in result.sites)


def _run(
    given: list[Path],
    excludes: Sequence[str],
    options: Options,
    jobs: int,
    console: Console,
) -> list[FileResult]:
    from codemods.discovery import discover
    from codemods.runner import run

    if not console.is_terminal:
        # Files are read while the tree is still being walked.
        return run((str(path) for path in discover(given, excludes)), options, jobs=jobs or None)
    files = [str(path) for path in discover(given, excludes)]  # the bar needs the total
    from rich.progress import Progress

    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("migrate", total=len(files))
        advance: Callable[[FileResult], None] = lambda _: progress.advance(task)  # noqa: E731
        return run(files, options, jobs=jobs or None, progress=advance)


def _migrate_stdin(
    options: Options,
    check: bool,
    output_format: OutputFormat,
    console: Console,
    name: str | None = None,
) -> ExitCode:
    """Stdin is Python unless `--stdin-filename` names the file it holds (a `.tsx` read
    as Python would have no legacy name and pass as "skipped")."""
    from codemods.runner import migrate_bytes

    source = sys.stdin.buffer.read()
    result = migrate_bytes(source, name or "-", options)
    if result.status == "failed":
        where = f":{result.error_line}:{result.error_column}" if result.error_line else ""
        raise fail(f"<stdin>{where}: {result.error}", ExitCode.CANNOT_RUN)
    if output_format is OutputFormat.DIFF:
        if not check:
            sys.stdout.flush()
            sys.stdout.buffer.write(result.updated if result.updated is not None else source)
            sys.stdout.flush()
    else:
        _render([result], output_format, True, check)
    _summary(console, [result], options, [], False)
    if check and result.status == "changed":
        return ExitCode.FINDINGS
    return ExitCode.OK


def _remove_stale_temp_files(results: list[FileResult], console: Console) -> None:
    """Remove the temp files a killed `--write` left beside these files, saying so."""
    from replay.wire.output_file import remove_stale_temp_files

    def report(line: str) -> None:
        console.print(line, markup=False, soft_wrap=True)

    remove_stale_temp_files((result.path for result in results), report)


def _write(results: list[FileResult]) -> list[str]:
    """Write changed files atomically; returns one error line per file that failed.

    A file is written only while it still holds the bytes the run read: an editor that
    saved it meanwhile (or a checkout that removed it) would otherwise have its work
    replaced by a migration of the old content, or the file brought back.
    """
    from cli.visible_text import visible_line
    from codemods.source_file import read_source
    from replay.wire.output_file import write_output

    errors = []
    for result in results:
        if result.updated is None:
            continue
        try:
            now = read_source(result.path)
        except FileNotFoundError:
            now = None
        except OSError:
            now = b""  # no longer a readable regular file: not what was read
        if now != result.original:
            why = (
                "deleted since agui read it; not recreated"
                if now is None
                else "changed since agui read it; left as it is (run agui migrate again)"
            )
            errors.append(visible_line(f"{result.path}: cannot write: {why}"))
            continue
        try:
            write_output(result.path, result.updated)
        except OSError as error:
            errors.append(visible_line(f"{result.path}: cannot write: {error.strerror or error}"))
    return errors


def _render(
    results: list[FileResult], output_format: OutputFormat, quiet_diff: bool, check: bool
) -> None:
    from codemods import report

    match output_format:
        case OutputFormat.DIFF:
            if not quiet_diff:
                # The patch is bytes (each file's own encoding), so it bypasses the
                # text layer; flush around it to keep the order of anything else.
                sys.stdout.flush()
                for result in results:
                    if result.updated is not None:
                        sys.stdout.buffer.write(report.unified_diff(result))
                sys.stdout.flush()
        case OutputFormat.JSON:
            sys.stdout.write(report.json_lines(results))
        case OutputFormat.SARIF:
            from cli.app import _installed_version

            sys.stdout.write(report.sarif(results, _installed_version()))
        case OutputFormat.GITHUB:
            sys.stdout.write(report.github_annotations(results))


def _summary(
    console: Console,
    results: list[FileResult],
    options: Options,
    write_errors: list[str],
    wrote: bool,
) -> None:
    from rich.table import Table

    from cli.visible_text import visible_line
    from codemods.report import shown_path
    from codemods.site import Action

    statuses = Counter(str(result.status) for result in results)
    rewritten: Counter[Rule] = Counter()
    todos: Counter[Rule] = Counter()
    for result in results:
        if not result.sites and result.status != "failed":
            continue  # nothing to say about it (most files): no path to work out
        # (a file name may hold any byte but `/`: a line break there would forge a line)
        path = visible_line(shown_path(result.path)) if result.path != "-" else "<stdin>"
        if result.status == "failed":
            where = f":{result.error_line}:{result.error_column}" if result.error_line else ""
            # Failures go past the console so that --quiet (a quiet console) shows them.
            sys.stderr.write(f"{path}{where}: {visible_line(result.error or '')}\n")
        for site in result.sites:
            if site.action is Action.TODO:
                todos[site.rule] += 1
                state = "TODO (already marked)" if site.marked else "TODO"
                console.print(
                    f"{path}:{site.line}:{site.column}: {site.rule.value} {state}: {site.message}",
                    markup=False,
                    soft_wrap=True,
                )
            else:
                rewritten[site.rule] += 1
    for line in write_errors:
        sys.stderr.write(line + "\n")

    # On a terminal, tables; on a pipe (a CI log, `2> log`) the same columns as plain lines,
    # unwrapped and without box drawing, so a row stays one greppable line.
    files = Table(title="agui migrate", show_header=True, header_style="bold")
    files.add_column("files")
    files.add_column("count", justify="right")
    file_rows: list[tuple[str, ...]] = []
    changed_label = "changed" if wrote else "would change"
    for label, key in (
        ("scanned", None),
        ("skipped (no legacy names)", "skipped"),
        (changed_label, "changed"),
        ("failed", "failed"),
    ):
        count = len(results) if key is None else statuses[key]
        if key == "failed":
            count += len(write_errors)
        elif key == "changed":
            count -= len(write_errors)  # a file that could not be written did not change
        files.add_row(label, str(count))
        file_rows.append((label, str(count)))

    rules = Table(show_header=True, header_style="bold")
    rules.add_column("rule")
    rules.add_column("title")
    rules.add_column("rewritten", justify="right")
    rules.add_column("TODOs", justify="right")
    rule_rows: list[tuple[str, ...]] = []
    for rule in Rule:
        if rule in options.rules:
            row = (rule.value, RULE_TITLES[rule], str(rewritten[rule]), str(todos[rule]))
            rules.add_row(*row)
            rule_rows.append(row)
    if console.is_terminal:
        console.print(files)
        console.print(rules)
    else:
        console.print("agui migrate", markup=False, soft_wrap=True)
        for line in _plain_table(("files", "count"), file_rows, right=(1,)):
            console.print(line, markup=False, soft_wrap=True)
        for line in _plain_table(("rule", "title", "rewritten", "TODOs"), rule_rows, right=(2, 3)):
            console.print(line, markup=False, soft_wrap=True)
    console.print(_policy_line(results, options), markup=False, soft_wrap=True)


def _policy_line(results: list[FileResult], options: Options) -> str:
    """What `approved: false` became, spelled as the files read spell it: Python's
    `resolve_interrupt(False)`, TypeScript's `resolveInterrupt(false)`, both for a run of
    both (a run that read no file of either kind shows Python's)."""
    from codemods import typescript

    policy: FalsePolicy = options.settings.false_as
    scripts = [typescript.is_script(result.path) for result in results]
    python = POLICY_SPELLING["python"][policy.value]
    script = POLICY_SPELLING["script"][policy.value]
    if scripts and all(scripts):
        spelled = script
    elif any(scripts):
        spelled = f"{python} (TS/JS: {script})"
    else:
        spelled = python
    return "policy: " + POLICY_TEXT[policy.value].format(**{policy.value: spelled})


def _plain_table(
    header: tuple[str, ...], rows: list[tuple[str, ...]], *, right: tuple[int, ...]
) -> list[str]:
    """A table as padded lines: columns two spaces apart, `right` columns right-aligned."""
    lines = [header, *rows]
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    return [
        "  ".join(
            cell.rjust(width) if column in right else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    ]
