"""`agui replay`: read recordings, fold them into runs, check them, and show or emit them.

The command is a loop over one streaming pipeline (decode → optional legacy translation
→ validation → optional normalisation → runs → checks) feeding one of three outputs:
the timeline (default), NDJSON events (`--json`) or a check report (`--check`,
`--format`). Options are parsed into `ReplayOptions`; `run_replay` does the job and
returns the exit code, so new options only touch the signature and that dataclass.

Kept whole (about 470 lines): one command's presentation — its options, the views over
the replay-check job, `--export` and `--html` — which change together when an option is
added; the work itself is `replay.jobs.replay_check`.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli.errors import ExitCode, handled_errors, stderr, stderr_line, stderr_print
from cli.stdout import write_utf8
from cli.visible_text import visible
from replay.serve.pacing import FAST, Pace, Pacer, Sleep
from replay.wire.errors import InvalidRequest, UnreadableInput

if TYPE_CHECKING:
    from rich.console import Console

    from replay.runs.html_report import HtmlReport
    from replay.runs.html_report.model import Summary
    from replay.runs.transcript import RunTranscript
    from replay.wire.delta_run import DeltaRun
    from replay.wire.events import RecordedEvent
    from replay.wire.problems import Problem
    from replay.wire.recording import Exchange

MAX_PACE_GAP = 5.0
"""Longest pause `--pace` inserts between two events, in seconds (after scaling): a
recording spanning a coffee break should not stall the terminal."""


class ReportFormat(StrEnum):
    """Formats for check results."""

    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"
    JUNIT = "junit"


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """Everything `agui replay` was asked to do."""

    recordings: tuple[str, ...]
    check: bool = False
    strict: bool = False
    json_events: bool = False
    report_format: ReportFormat | None = None
    pace: Pace = FAST
    normalize: bool = False
    native: bool = False
    tools: Path | None = None
    html: Path | None = None
    """`--html`: also write the self-contained report page there."""

    @property
    def report(self) -> ReportFormat | None:
        """The check report to write on stdout, if any (`--check` alone means text)."""
        if self.report_format is not None:
            return self.report_format
        if self.check and not self.json_events:
            return ReportFormat.TEXT
        return None


def load_tools(path: Path) -> list[dict[str, Any]]:
    """Tool declarations for `--native`: a JSON array, or an object with a `tools` array
    (`replay.interrupts.descriptors.load_tools`, whose refusals name the file)."""
    from replay.interrupts.descriptors import InvalidTools
    from replay.interrupts.descriptors import load_tools as read_tools

    try:
        return read_tools(path)
    except InvalidTools as error:
        if not path.exists():
            raise UnreadableInput(f"{path}: no such file") from None
        raise InvalidRequest(str(error)) from None


def run_replay(
    options: ReplayOptions,
    *,
    out: Console | None = None,
    sleep: Sleep = time.sleep,
    now: Callable[[], Any] | None = None,
) -> ExitCode:
    """Do the whole job; return the exit code (raises only when the job cannot be done)."""
    from cli.read_progress import ReadingBar, reading_bar
    from replay.jobs.replay_check import check_recordings
    from replay.runs.normalize import compact_json, ndjson
    from replay.runs.reports import (
        json_report,
        junit_report,
        sarif_report,
        sort_findings,
        summary_line,
        text_report,
    )

    tools = load_tools(options.tools) if options.tools is not None else None
    report = options.report
    timeline = None
    if report is None and not options.json_events and options.html is None:
        from cli.stdout import timeline_stdout
        from cli.timeline import Timeline

        timeline = Timeline(out or timeline_stdout())
    write = sys.stdout.write
    pacer = None
    if report is None and options.html is None and options.pace.factor is not None:
        pacer = Pacer(options.pace, sleep, max_gap=MAX_PACE_GAP)
    found: list[Problem] = []

    # `--json` lines are written in batches (one joined write, recorded text reused
    # when it already is the compact form); they are flushed before anything goes to
    # stderr, so a terminal shows both in order, and at once when pacing.
    pending_lines: list[RecordedEvent | DeltaRun | bytes] = []
    batch_lines = options.json_events and pacer is None

    def flush_lines() -> None:
        if pending_lines:
            write_utf8(ndjson(pending_lines))
            pending_lines.clear()

    class View:
        """The job's results on the terminal: timeline, `--json` lines or findings."""

        # The page needs every run's transcript, which folded reading does not build.
        per_event = pacer is not None or timeline is not None or options.html is not None
        writes_lines = batch_lines  # (else `line` ignores what it is given)
        progress: ReadingBar | None = None  # a large file read in pieces tells it

        def source(self, exchange: Exchange) -> None:
            if timeline is not None:
                timeline.source(exchange.source, exchange.request)

        def event(self, item: RecordedEvent) -> None:
            """Pace, then show or write the event."""
            if pacer is not None:
                pacer.wait(item.data)
            if timeline is not None:
                timeline.event(item)
            elif batch_lines:
                pending_lines.append(item)
                if len(pending_lines) >= 1024:
                    flush_lines()
            elif options.json_events:
                write(compact_json(item.data) + "\n")

        def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
            if not batch_lines:
                return
            if type(item) is bytes:
                # A settled stretch's lines are most of a piece: written as they are,
                # after what is pending, not copied into one batch with it.
                flush_lines()
                write_utf8(item)
                return
            pending_lines.append(item)
            if len(pending_lines) >= 1024:
                flush_lines()

        def run(self, run: RunTranscript) -> None:
            if timeline is not None:
                timeline.run(run)
            if page is not None:
                page.run(run)

        def problem(self, problem: Problem) -> None:
            if page is not None:
                page.problem(problem)
            if report is not None:
                found.append(problem)
            elif timeline is not None:
                timeline.problem(problem)
            elif page is None or options.json_events:
                flush_lines()
                # with its severity, as `--check` and the timeline write it
                stderr_line(visible(text_report([problem], strict=options.strict).rstrip("\n")))

    page = _html_report(options.html, options) if options.html is not None else None
    # Results written while reading (events, a timeline) show progress themselves.
    streams_results = options.json_events or timeline is not None
    try:
        with reading_bar("checking", results_on_terminal=streams_results) as bar:
            view = View()
            view.progress = bar
            summary = check_recordings(
                options.recordings,
                view,
                strict=options.strict,
                normalize=options.normalize,
                native=options.native,
                tools=tools,
                now=now,
            )
        flush_lines()
        if page is not None:
            page.finish()
    finally:
        if page is not None:
            page.discard()
    if timeline is not None:
        timeline.close()

    sources = list(options.recordings)
    found = sort_findings(found, sources)
    if report is ReportFormat.TEXT:
        # messages quote the recording (tool names, ids): shown, never obeyed by a terminal
        write(visible(text_report(found, strict=options.strict)))
    elif report is ReportFormat.JSON:
        write(json_report(found, sources, strict=options.strict))
    elif report is ReportFormat.SARIF:
        write(
            sarif_report(
                found, strict=options.strict, version=_version(), entry_lines=_har_lines(found)
            )
        )
    elif report is ReportFormat.JUNIT:
        write(junit_report(found, sources, strict=options.strict))
    if report is not None or summary.counts.total():
        stderr_print(f"agui replay: {summary_line(summary.counts)}")
    if page is not None and page.summary is not None:
        stderr_line(f"agui replay: wrote {options.html} ({_page_line(page.summary)})")
    return ExitCode.FINDINGS if summary.failed else ExitCode.OK


def _refuse_html_over_input(html: Path, recordings: Sequence[str], tools: Path | None) -> None:
    """`--html` naming a recording (or the request body beside it, or `--tools`) would
    replace what was just read with the page: the recording is lost."""
    from cli.overwrites import overwritten_input
    from replay.wire.recording import STDIN, sidecar_request_path

    read = [Path(name) for name in recordings if name != STDIN]
    read += [sidecar for path in list(read) if (sidecar := sidecar_request_path(path))]
    if tools is not None:
        read.append(tools)
    found = overwritten_input([html], read)
    if found is not None:
        raise InvalidRequest(
            f"--html: {html} would replace {found[1]}, which this replay reads; write the page"
            " elsewhere"
        )


class ExportWhat(StrEnum):
    """What `--export` writes."""

    ITEMS = "items"
    MESSAGES = "messages"


def run_export(recordings: tuple[str, ...], what: ExportWhat) -> ExitCode:
    """Write the paused run's items or history, as `agui resume --items/--messages` reads
    them, so a hand-built resume starts from what the server really sent."""
    from replay.resume.paused_run import choose_run, paused_run_from, read_runs
    from replay.wire.recording import open_recordings

    runs = read_runs(open_recordings(recordings))
    # Nothing is sent, so an answered run is exported too when no other is left.
    run = choose_run(runs.runs, None, force=True)
    paused = paused_run_from(run)
    document = list(paused.interrupts) if what is ExportWhat.ITEMS else list(paused.messages)
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    stderr.print(
        f"agui: {what.value} of run {paused.run_id} on thread {paused.thread_id}; resume it "
        f"with: agui resume --thread-id {paused.thread_id} --run-id {paused.run_id} "
        "--items ITEMS.json --messages MESSAGES.json …",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return ExitCode.OK


def _html_report(path: Path, options: ReplayOptions) -> HtmlReport:
    """Start the `--html` page, with the interrupt wording the timeline uses."""
    from cli.timeline import KIND_LABELS, answer_hint
    from replay.interrupts.descriptor_reader import kind_of
    from replay.runs.html_report import HtmlReport

    def describe(descriptor: Mapping[str, Any]) -> tuple[str, str]:
        return KIND_LABELS[kind_of(descriptor)], answer_hint(dict(descriptor))

    return HtmlReport.start(path, options.recordings, native=options.native, describe=describe)


def _page_line(summary: Summary) -> str:
    runs = f"{summary.runs} run{'' if summary.runs == 1 else 's'}"
    paused = f"{summary.paused} paused, {summary.unanswered} unanswered interrupt"
    return f"{runs}, {paused}{'' if summary.unanswered == 1 else 's'}"


def _pace(value: str) -> Pace:
    try:
        return Pace.parse(value)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--pace") from None


def _har_lines(found: Sequence[Problem]) -> dict[str, list[int]]:
    """For each HAR file a finding points into, where its entries start (SARIF regions)."""
    from replay.runs.reports import har_entry_lines

    lines: dict[str, list[int]] = {}
    for problem in found:
        location = problem.location
        if location is None or "#entry" not in location.source:
            continue
        path = location.source.rsplit("#entry", 1)[0]
        if path not in lines:
            try:
                text = Path(path).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            lines[path] = har_entry_lines(text)
    return lines


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agui-cli")
    except PackageNotFoundError:
        return ""


def replay(
    recordings: list[str] = typer.Argument(
        ...,
        metavar="RECORDING...",
        help="SSE, NDJSON or HAR recordings (`-` for stdin); several form one timeline.",
        show_default=False,
    ),
    check: bool = typer.Option(
        False, "--check", help="Report findings instead of the timeline (exit 1 on errors)."
    ),
    strict: bool = typer.Option(False, "--strict", help="Warnings fail the check too."),
    json_events: bool = typer.Option(
        False,
        "--json",
        help="The events as JSON lines (NDJSON) on stdout, compact, ids as recorded"
        " (see --normalize).",
    ),
    report_format: ReportFormat | None = typer.Option(
        None,
        "--format",
        help="Findings report format: text, json, sarif or junit (implies --check).",
        case_sensitive=False,
        show_default=False,
    ),
    pace: str = typer.Option(
        "fast",
        "--pace",
        metavar="real|fast|FACTOR",
        help="Replay with the recorded timing (`real`), as fast as possible, or N times faster.",
    ),
    normalize: bool = typer.Option(
        False,
        "--normalize",
        help="Replace run/message/generic interrupt ids and clock values with stable tokens.",
    ),
    native: bool = typer.Option(
        False, "--native", help="Show legacy approval events translated to native interrupts."
    ),
    tools: Path | None = typer.Option(
        None,
        "--tools",
        metavar="FILE",
        help="Tool declarations (JSON) used by --native to build interrupt descriptors.",
        show_default=False,
    ),
    html: Path | None = typer.Option(
        None,
        "--html",
        metavar="OUT",
        help="Also write one self-contained HTML page of the runs, pauses, answers and findings.",
        show_default=False,
    ),
    serve: str | None = typer.Option(
        None,
        "--serve",
        metavar="[HOST:]PORT",
        help="Serve the recording as a live AG-UI endpoint (127.0.0.1 unless HOST is given).",
        show_default=False,
    ),
    verbatim: bool = typer.Option(
        False,
        "--verbatim",
        help="With --serve: send the recorded bytes untouched (no id rewriting).",
    ),
    line_endings: str = typer.Option(
        "lf", "--line-endings", metavar="lf|crlf", help="With --serve: how SSE frames end."
    ),
    # a str, not a Path: Path("") is ".", and an empty name (an unset $VAR) must be refused
    log: str | None = typer.Option(
        None,
        "--log",
        metavar="FILE",
        help="With --serve: append every request (with its body, never headers) as JSON lines "
        "('-' = stdout).",
        show_default=False,
    ),
    cors: str | None = typer.Option(
        None,
        "--cors",
        metavar="ORIGIN",
        help="With --serve: let a browser page on ORIGIN call the server (CORS is off otherwise).",
        show_default=False,
    ),
    export: ExportWhat | None = typer.Option(
        None,
        "--export",
        metavar="items|messages",
        help="Write the newest unanswered paused run's pending items or history as JSON "
        "(the --items / --messages files of a hand-built `agui resume`).",
        case_sensitive=False,
        show_default=False,
    ),
) -> None:
    """Read, check and show recorded AG-UI runs (SSE, NDJSON or HAR).

    stdout gets the timeline with its findings (--json: the events; --check: one line
    per finding); the summary and errors go to stderr. Exit codes: 0 clean, 1 findings
    (errors; warnings too with --strict), 2 cannot run.
    """
    with handled_errors():
        from replay.wire.recording import refuse_stdin_twice

        refuse_stdin_twice(recordings)
        if json_events and report_format is not None:
            raise InvalidRequest("--json writes events; it cannot be combined with --format")
        if tools is not None and not native:
            raise InvalidRequest("--tools is only used with --native")
        if serve is not None:
            conflicting = [
                flag
                for flag, given in (
                    ("--check", check),
                    ("--json", json_events),
                    ("--format", report_format is not None),
                    ("--strict", strict),
                )
                if given
            ]
            if conflicting:
                raise InvalidRequest(
                    f"--serve answers HTTP requests; it cannot be combined with {conflicting[0]}"
                )
        options = ReplayOptions(
            recordings=tuple(recordings),
            check=check or report_format is not None,
            strict=strict,
            json_events=json_events,
            report_format=report_format,
            pace=_pace(pace),
            normalize=normalize,
            native=native,
            tools=tools,
            html=html,
        )
        if html is not None and str(html) == "-":
            raise InvalidRequest("--html writes a file; give it a path, not -")
        if html is not None:
            _refuse_html_over_input(html, recordings, tools)
        if html is not None and serve is not None:
            raise InvalidRequest("--html writes a report of the recordings; it cannot --serve them")
        if html is not None and options.pace.factor is not None:
            raise InvalidRequest("--pace paces the timeline; --html writes a file at once")
        if options.report is not None and options.pace.factor is not None:
            # it was ignored without a word: a report is written once everything is read
            raise InvalidRequest(
                "--pace paces the timeline or --json; a --check or --format report is"
                " written at once"
            )
        if export is not None and options.pace.factor is not None:
            raise InvalidRequest(
                "--pace paces the timeline; --export writes one JSON document at once"
            )
        if serve is None and (
            verbatim or log is not None or line_endings != "lf" or cors is not None
        ):
            raise InvalidRequest(
                "--verbatim, --line-endings, --log and --cors are only used with --serve"
            )
        if export is not None:
            others = (check, json_events, report_format, serve, html)
            if native or any(o not in (None, False) for o in others):
                raise InvalidRequest(
                    "--export writes one JSON document; it cannot be combined with --check, "
                    "--json, --format, --native, --html or --serve"
                )
            raise typer.Exit(int(run_export(tuple(recordings), export)))
        if serve is not None:
            from cli.serve import ServeRequest, run_serve

            if log == "":
                raise InvalidRequest("--log: an empty file name: give a file path")

            code = run_serve(
                ServeRequest(
                    recordings=tuple(recordings),
                    address=serve,
                    pace_factor=options.pace.factor,
                    verbatim=verbatim,
                    line_endings=line_endings,
                    native=native,
                    tools=load_tools(tools) if tools is not None else None,
                    log=Path(log) if log is not None else None,
                    cors=cors,
                )
            )
        else:
            code = run_replay(options)
    raise typer.Exit(int(code))
