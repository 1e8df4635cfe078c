"""`agui replay`: read recordings, fold them into runs, check them, and show or emit them.

The command is a loop over one streaming pipeline (decode → optional legacy translation
→ validation → optional normalisation → runs → checks) feeding one of three outputs:
the timeline (default), NDJSON events (`--json`) or a check report (`--check`,
`--format`). Options are parsed into `ReplayOptions`; `run_replay` does the job and
returns the exit code, so new options only touch the signature and that dataclass.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli.errors import ExitCode, handled_errors, stderr, stderr_line
from cli.stdout import write_utf8
from replay.errors import InvalidRequest, UnreadableInput
from replay.pacing import FAST, Pace, Pacer, Sleep

if TYPE_CHECKING:
    from rich.console import Console

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

    @property
    def report(self) -> ReportFormat | None:
        """The check report to write on stdout, if any (`--check` alone means text)."""
        if self.report_format is not None:
            return self.report_format
        if self.check and not self.json_events:
            return ReportFormat.TEXT
        return None


def load_tools(path: Path) -> list[dict[str, Any]]:
    """Tool declarations for `--native`: a JSON array, or an object with a `tools` array."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except FileNotFoundError:
        raise UnreadableInput(f"{path}: no such file") from None
    except OSError as error:
        raise UnreadableInput(f"{path}: {error.strerror or error}") from None
    except ValueError as error:
        raise InvalidRequest(f"{path}: not valid JSON ({error})") from None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        raise InvalidRequest(f"{path}: expected a JSON array of tool objects (or {{tools: [...]}})")
    return tools


def run_replay(
    options: ReplayOptions,
    *,
    out: Console | None = None,
    sleep: Sleep = time.sleep,
    now: Callable[[], Any] | None = None,
) -> ExitCode:
    """Do the whole job; return the exit code (raises only when the job cannot be done)."""
    from replay.check_loop import CheckLoop
    from replay.checks import Checker
    from replay.events import EndOfStream, RecordedEvent, decode_events
    from replay.normalize import Normalizer, compact_json, ndjson
    from replay.pieces import DeltaRun
    from replay.problems import Problem, Severity
    from replay.recording import open_recording
    from replay.reports import (
        json_report,
        junit_report,
        sarif_report,
        sort_findings,
        summary_line,
        text_report,
    )
    from replay.rules import effective_severity, is_failure
    from replay.transcript import RunTranscript, TranscriptBuilder

    tools = load_tools(options.tools) if options.tools is not None else None
    translate = _translator(tools) if options.native else None
    report = options.report
    timeline = None
    if report is None and not options.json_events:
        from cli.stdout import stdout_console
        from cli.timeline import Timeline

        timeline = Timeline(out or stdout_console())
    write = sys.stdout.write
    pacer = None
    if report is None and options.pace.factor is not None:
        pacer = Pacer(options.pace, sleep, max_gap=MAX_PACE_GAP)
    normalizer = Normalizer() if options.normalize else None
    builder = TranscriptBuilder()
    checker = Checker(now=now)
    found: list[Problem] = []
    counts: Counter[Severity] = Counter()
    failed = False

    # `--json` lines are written in batches (one joined write, recorded text reused
    # when it already is the compact form); they are flushed before anything goes to
    # stderr, so a terminal shows both in order, and at once when pacing.
    pending_lines: list[RecordedEvent | DeltaRun | bytes] = []
    batch_lines = options.json_events and pacer is None

    def flush_lines() -> None:
        if pending_lines:
            write_utf8(ndjson(pending_lines))
            pending_lines.clear()

    def emit(items: Iterable[RunTranscript | Problem]) -> None:
        nonlocal failed
        for item in items:
            if isinstance(item, RunTranscript):
                if timeline is not None:
                    timeline.run(item)
                emit(checker.run(item))
                continue
            counts[effective_severity(item, strict=options.strict)] += 1
            failed = failed or is_failure(item, strict=options.strict)
            if report is not None:
                found.append(item)
            elif timeline is not None:
                timeline.problem(item)
            else:
                flush_lines()
                stderr_line(str(item))

    def take(item: RecordedEvent) -> None:
        """One event: fold it, pace, show or write it, in that order."""
        if normalizer is not None:
            item = normalizer.event(item)
        produced = builder.add(item)
        if produced:  # finished runs first: they precede this event
            emit(x for x in produced if isinstance(x, RunTranscript))
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
        if produced:
            emit(x for x in produced if not isinstance(x, RunTranscript))

    plain_events = normalizer is None and pacer is None and timeline is None

    class LinesAndFindings:
        """The check loop's sink when nothing is shown or paced per event."""

        def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
            if batch_lines:
                pending_lines.append(item)
                # A settled stretch's lines are most of a piece: written at once.
                if type(item) is bytes or len(pending_lines) >= 1024:
                    flush_lines()

        def problem(self, problem: Problem) -> None:
            emit((problem,))

    loop = CheckLoop(builder, checker, LinesAndFindings())

    # Millions of short-lived event objects pass through: hiding import-time objects
    # from the collector and collecting young objects less often keeps it cheap (there
    # are next to no reference cycles to find; refcounting frees the events).
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 50_000), *thresholds[1:])
    try:
        add = builder.add
        for name in options.recordings:
            emit(checker.begin_source(name))
            for exchange in open_recording(name, pieces=True):
                if normalizer is not None and exchange.request is not None:
                    exchange = replace(exchange, request=normalizer.request(exchange.request))
                emit(checker.begin_exchange(exchange.source))
                emit(builder.begin_exchange(exchange))
                if timeline is not None:
                    timeline.source(exchange.source, exchange.request)
                transform = translate(exchange.request) if translate is not None else None
                items = iter(
                    decode_events(
                        exchange.source, exchange.messages, transform, fold_deltas=plain_events
                    )
                )
                # The checker only needs to know whether anything, and any event, was read.
                if plain_events:
                    # Nothing to show, pace or rewrite per event: the check loop.
                    for item in items:
                        checker.observe(item)
                        loop.add(item)
                        if not isinstance(item, Problem | EndOfStream):
                            break
                    for item in items:
                        loop.add(item)
                    continue
                for item in items:
                    checker.observe(item)
                    if isinstance(item, RecordedEvent):
                        take(item)
                        break
                    emit(add(item))
                for item in items:
                    if isinstance(item, RecordedEvent):
                        take(item)
                    else:
                        emit(add(item))
            emit(checker.end_source())
        emit(builder.finish())
        emit(checker.finish())
        flush_lines()
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    if timeline is not None:
        timeline.close()

    sources = list(options.recordings)
    found = sort_findings(found, sources)
    if report is ReportFormat.TEXT:
        write(text_report(found, strict=options.strict))
    elif report is ReportFormat.JSON:
        write(json_report(found, sources, strict=options.strict))
    elif report is ReportFormat.SARIF:
        write(sarif_report(found, strict=options.strict, version=_version()))
    elif report is ReportFormat.JUNIT:
        write(junit_report(found, sources, strict=options.strict))
    if report is not None or counts.total():
        stderr.print(f"agui replay: {summary_line(counts)}", markup=False)
    return ExitCode.FINDINGS if failed else ExitCode.OK


Translate = Callable[[dict[str, Any] | None], Callable[[Iterable[Any]], Iterator[Any]]]


def _translator(tools: list[dict[str, Any]] | None) -> Translate:
    """The `--native` stage: legacy events translated on raw objects (replay.translation)."""
    import importlib

    try:
        module = importlib.import_module("replay.translation")
    except ImportError as error:  # the module ships with `agui translate`
        raise InvalidRequest(f"--native is unavailable: {error}") from None
    translate_items: Callable[..., Iterable[Any]] = module.translate_items

    def for_request(request: dict[str, Any] | None) -> Callable[[Iterable[Any]], Iterator[Any]]:
        def transform(items: Iterable[Any]) -> Iterator[Any]:
            return iter(translate_items(items, tools=tools, request=request))

        return transform

    return for_request


def _pace(value: str) -> Pace:
    try:
        return Pace.parse(value)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--pace") from None


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
        False, "--check", help="Report findings instead of the timeline (exit 1 if any)."
    ),
    strict: bool = typer.Option(False, "--strict", help="Warnings fail the check too."),
    json_events: bool = typer.Option(
        False, "--json", help="Write one normalised JSON event per line (NDJSON) on stdout."
    ),
    report_format: ReportFormat | None = typer.Option(
        None,
        "--format",
        help="Check report format: text, json, sarif or junit (implies --check).",
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
    log: Path | None = typer.Option(
        None,
        "--log",
        metavar="FILE",
        help="With --serve: append every request (with its body, never headers) as JSON lines.",
        show_default=False,
    ),
) -> None:
    """Read, check and show recorded AG-UI runs (SSE, NDJSON or HAR).

    Exit codes: 0 clean, 1 findings (errors; warnings too with --strict), 2 cannot run.
    """
    with handled_errors():
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
        )
        if serve is None and (verbatim or log is not None or line_endings != "lf"):
            raise InvalidRequest("--verbatim, --line-endings and --log are only used with --serve")
        if serve is not None:
            from cli.serve import ServeRequest, run_serve

            code = run_serve(
                ServeRequest(
                    recordings=tuple(recordings),
                    address=serve,
                    pace_factor=options.pace.factor,
                    verbatim=verbatim,
                    line_endings=line_endings,
                    native=native,
                    tools=load_tools(tools) if tools is not None else None,
                    log=log,
                )
            )
        else:
            code = run_replay(options)
    raise typer.Exit(int(code))
