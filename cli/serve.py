"""`agui replay --serve`: the presentation side of the replay server.

Parses the address, loads the recording, prints the URL (and a warning when the server
is reachable from other machines), renders one line per request on stderr, writes the
`--log` JSON lines, and stops cleanly on Ctrl-C or SIGTERM. The server itself lives in
`replay.serve.server` (HTTP) and `replay.serve.service` (answers).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from cli.errors import ExitCode, stderr
from cli.visible_text import visible, visible_line
from replay.wire.errors import InvalidRequest

if TYPE_CHECKING:
    from replay.serve.request_log import RequestLog
    from replay.serve.served_runs import Recording
    from replay.serve.server import ReplayServer
    from replay.wire.problems import Problem

LEGACY_RULE = "legacy-approval-event"
"""The decode rule of a legacy approval event (`replay.wire.events`)."""


@dataclass(frozen=True, slots=True)
class ServeRequest:
    """Everything `--serve` was asked to do (the replay command fills it in)."""

    recordings: tuple[str, ...]
    address: str
    pace_factor: float | None = None
    """None (or 0) serves as fast as possible; 1 is the recorded timing."""
    verbatim: bool = False
    line_endings: str = "lf"
    native: bool = False
    tools: list[dict[str, Any]] | None = None
    log: Path | None = None
    cors: str | None = None
    """The one browser origin allowed to call the server (`--cors`); none by default."""


def render_request(entry: RequestLog) -> str:
    """One plain line for a request: method, path, run ids and what happened."""
    # The path, the ids and what the details quote of them come from whoever sent it:
    # a line break among them (a runId "r\nGET /x -> 200") would forge a second line.
    return visible_line(_request_line(entry))


def _request_line(entry: RequestLog) -> str:
    from replay.serve.request_log import Result

    parts = [entry.method, entry.path]
    if entry.run_id is not None:
        parts.append(f"runId={entry.run_id}")
    if entry.parent_run_id is not None:
        parts.append(f"parentRunId={entry.parent_run_id}")
    if entry.resume:
        parts.append(f"resume={','.join(entry.resume)}")
    head = " ".join(parts)
    if entry.result is Result.INVALID:
        return f"{head} -> {entry.status} invalid body: {entry.detail or 'unreadable'}"
    if entry.result is Result.REJECTED:
        extra = f" ({entry.detail})" if entry.detail else ""
        return f"{head} -> rejected: RUN_ERROR {entry.code}{extra}"
    if entry.result in (Result.SERVED, Result.ACCEPTED):
        return f"{head} -> {entry.result}: {entry.detail}"
    return f"{head} -> {entry.status}"


def _style(entry: RequestLog) -> str:
    from replay.serve.request_log import Result

    if entry.result in (Result.INVALID, Result.REJECTED):
        return "yellow"
    if entry.result in (Result.SERVED, Result.ACCEPTED):
        return "green"
    return "dim"


def run_serve(
    request: ServeRequest,
    *,
    console: Console | None = None,
    on_ready: Callable[[ReplayServer], None] | None = None,
) -> ExitCode:
    """Serve until Ctrl-C (or SIGTERM); return the exit code. Raises for bad usage/input."""
    from replay.serve.request_log import JsonLinesLog
    from replay.serve.serve_options import LineEnding, Pace, ServeOptions
    from replay.serve.served_runs import load_recording
    from replay.serve.server import ReplayServer, parse_address
    from replay.web.cors import check_origin

    out = console or stderr
    try:
        host, port = parse_address(request.address)
    except ValueError as error:
        raise InvalidRequest(f"--serve: {error}") from None
    try:
        line_ending = LineEnding(request.line_endings.lower())
    except ValueError:
        raise InvalidRequest(
            f"--line-endings: {request.line_endings!r} is not lf or crlf"
        ) from None
    try:
        cors = check_origin(request.cors) if request.cors is not None else None
    except ValueError as error:
        raise InvalidRequest(f"--cors: {error}") from None
    if request.verbatim and request.native:
        raise InvalidRequest(
            "--verbatim serves the recorded bytes; it cannot be combined with --native"
        )
    options = ServeOptions(
        pace=Pace(request.pace_factor or None),
        verbatim=request.verbatim,
        line_ending=line_ending,
        native=request.native,
        tools=request.tools,
    )
    recording = load_recording(list(request.recordings), options)
    if request.log is not None and str(request.log) != "-":
        _refuse_log_over_recording(request.log, request.recordings)
    log_file = JsonLinesLog(request.log) if request.log is not None else None
    log_lock = threading.Lock()

    def logger(entry: RequestLog) -> None:
        nonlocal log_file
        out.print(
            f"[{_style(entry)}]{escape(render_request(entry))}[/]", soft_wrap=True, highlight=False
        )
        with log_lock:
            if log_file is None:
                return
            try:
                log_file(entry)
            except OSError as error:
                # A full disk must not turn every answer into a 500: say so once, serve on.
                out.print(
                    f"agui replay: warning: --log {request.log}: cannot write"
                    f" ({error.strerror or error}); requests are no longer logged there",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
                with suppress(OSError):
                    log_file.close()
                log_file = None

    try:
        server = ReplayServer(
            recording, host=host, port=port, options=options, logger=logger, cors=cors
        )
        try:
            _announce(out, server, request.recordings, recording, options)
            if on_ready is not None:
                on_ready(server)
            with _sigterm_as_interrupt():
                server.wait()
        except KeyboardInterrupt:
            out.print("agui replay: stopped", markup=False, highlight=False)
        finally:
            server.shutdown()
    finally:
        if log_file is not None:
            with suppress(OSError):
                log_file.close()
    return ExitCode.OK


def _refuse_log_over_recording(log: Path, recordings: Sequence[str]) -> None:
    """`--log` naming a recording being served (or the request body beside it, which
    the next read of that recording takes as one JSON object) would append request
    lines to it."""
    from cli.overwrites import overwritten_input
    from replay.wire.recording import sidecar_request_path

    served = [Path(name) for name in recordings if name != "-"]
    if overwritten_input([log], served):
        raise InvalidRequest(
            f"--log: {log} is a recording being served; its requests would be"
            " appended to it: log to another file"
        )
    sidecars = [sidecar for path in served if (sidecar := sidecar_request_path(path))]
    if overwritten_input([log], sidecars):
        raise InvalidRequest(
            f"--log: {log} is the request body of a recording being served; its requests"
            " would be appended to it: log to another file"
        )


def _announce(
    out: Console, server: ReplayServer, names: Sequence[str], recording: Recording, options: Any
) -> None:
    runs = len(recording.runs)
    if not server.loopback:
        out.print(
            f"agui: warning: listening on {server.host}, not loopback: anyone who can reach"
            " this machine can use this server",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    what = ", ".join(names)
    plural = "run" if runs == 1 else "runs"
    out.print(
        f"agui replay: serving {runs} {plural} from {what} (pace {options.pace})",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    _warn_problems(out, recording.problems, native=options.native)
    out.print(
        f"agui replay: listening on {server.url}  (Ctrl-C to stop)", markup=False, highlight=False
    )


SHOWN_PROBLEMS = 3
"""Decode problems named at startup; `agui replay --check` lists every one."""


def _warn_problems(out: Console, problems: Sequence[Problem], *, native: bool) -> None:
    """Say that the recording has problems before a client meets them.

    The server streams what it could decode (a line that is not JSON is skipped, an
    invalid event goes out as recorded); without a word a client's odd behaviour would
    be blamed on the client.
    """
    from replay.wire.problems import Severity

    # --native's translation notices say what was translated, not what is wrong
    problems = [problem for problem in problems if problem.severity is not Severity.NOTICE]
    if not problems:
        return
    count = len(problems)
    out.print(
        f"agui replay: warning: {count} problem{'' if count == 1 else 's'} in the recording,"
        " served as decoded (agui replay --check lists them all):",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    for problem in problems[:SHOWN_PROBLEMS]:
        out.print(f"  {visible(str(problem))}", markup=False, highlight=False, soft_wrap=True)
    if count > SHOWN_PROBLEMS:
        out.print(f"  … and {count - SHOWN_PROBLEMS} more", markup=False, highlight=False)
    if not native and any(problem.rule == LEGACY_RULE for problem in problems):
        out.print(
            "agui replay: a current client cannot resolve legacy approval events;"
            " add --native to serve them as native interrupts",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Make SIGTERM, and SIGHUP (the terminal closed), stop the server like Ctrl-C, so
    open streams end cleanly and a proxy keeps what they recorded (main thread only).

    A SIGHUP ignored on entry (`nohup`) stays ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is None or (name == "SIGHUP" and signal.getsignal(number) == signal.SIG_IGN):
            continue
        previous[number] = signal.signal(number, interrupt)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
