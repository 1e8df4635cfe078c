"""`agui proxy`: the presentation side of the streaming reverse proxy.

Parses the options, starts `replay.proxy.server.ProxyServer`, prints where it listens
(and a warning when other machines can reach it), one line per exchange (JSON lines on
stdout with `--json`), the live check's findings with their exchange number (JSON lines
with `--format json`), and a summary when it stops (Ctrl-C or SIGTERM). Never a header
value.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer

from cli.errors import ExitCode, handled_errors, silence_stdout, stderr
from cli.visible_text import visible, visible_line
from replay.wire.errors import InvalidRequest

if TYPE_CHECKING:
    from rich.console import Console

    from replay.proxy.app import ExchangeLog
    from replay.proxy.recorder import Recovered
    from replay.proxy.server import ProxyServer
    from replay.wire.problems import Problem

DEFAULT_LISTEN = "127.0.0.1:8700"


class FindingsFormat(StrEnum):
    """How `--check` findings are printed: the `--format` every command shares."""

    TEXT = "text"
    JSON = "json"


@dataclass(frozen=True, slots=True)
class ProxyRequest:
    """Everything `agui proxy` was asked to do."""

    upstream: str
    listen: str = DEFAULT_LISTEN
    record: Path | None = None
    check: bool = False
    redact: tuple[str, ...] = ()
    cors: str | None = None
    native: bool = False
    tools: list[dict[str, Any]] | None = field(default=None)
    json_output: bool = False
    """`--json`: where it listens and each exchange as JSON lines on stdout."""
    findings_json: bool = False
    """`--format json`: `--check` findings as JSON lines (stdout, stderr under `--json`)."""


def render_exchange(entry: ExchangeLog) -> str:
    """One plain line per exchange: number, method, path, run ids, status, how it ended."""
    parts = [f"#{entry.number}", entry.method, entry.path]
    if entry.run_id is not None:
        parts.append(f"runId={entry.run_id}")
    if entry.parent_run_id is not None:
        parts.append(f"parentRunId={entry.parent_run_id}")
    # The path and ids come from the client, the detail from the upstream's answer: a
    # line break among them (a runId "r\n#9 POST /x") would forge a second exchange.
    line = f"{visible(' '.join(parts))} -> {entry.status} {entry.end}"
    if entry.detail:
        line += f": {visible(entry.detail)}"
    if entry.saved is not None:
        line += f" (recorded {visible(str(entry.saved))})"
    return visible_line(line)


def recovery_lines(recovered: list[Recovered]) -> list[str]:
    """What became of each placeholder a killed proxy left, one line each."""
    lines = []
    for found in recovered:
        placeholder = visible_line(str(found.placeholder))
        if found.error is not None:
            lines.append(
                f"agui proxy: {placeholder} holds what a killed proxy recorded ({found.size}"
                f" bytes); it stays, hidden: {visible_line(found.error)}"
            )
        elif found.placed and found.kept is not None:
            lines.append(
                f"agui proxy: removed {placeholder}: a killed proxy had already recorded its"
                f" bytes as {visible_line(str(found.kept))}"
            )
        elif found.kept is None:
            lines.append(f"agui proxy: removed {placeholder}, left empty by a killed proxy")
        else:
            lines.append(
                f"agui proxy: kept {visible_line(str(found.kept))}: the {found.size} bytes a killed"
                " proxy had recorded (its stream was cut)"
            )
    return lines


def exchange_record(entry: ExchangeLog) -> dict[str, Any]:
    """`--json`'s object for one exchange: the fields of `render_exchange`'s line."""
    return {
        "type": "exchange",
        "number": entry.number,
        "method": entry.method,
        "path": entry.path,
        "status": entry.status,
        "runId": entry.run_id,
        "parentRunId": entry.parent_run_id,
        "end": entry.end,
        "detail": entry.detail,
        "recorded": str(entry.saved) if entry.saved is not None else None,
    }


def finding_record(number: int, problem: Problem) -> dict[str, Any]:
    """`--format json`'s object for one finding, in `agui replay --format json`'s words."""
    location = problem.location
    return {
        "type": "finding",
        "exchange": number,
        "rule": problem.rule,
        "severity": str(problem.severity),
        "message": problem.message,
        "line": location.line if location else None,
        "index": location.index if location else None,
    }


def render_finding(number: int, problem: Problem) -> str:
    """A live-check finding, in `agui replay --check`'s words, with its exchange number."""
    where = f"{problem.location}: " if problem.location is not None else f"exchange {number}: "
    return f"{where}{problem.severity}: {problem.message} [{problem.rule}]"


def check_upstream(url: str) -> str:
    """An absolute http(s) URL; `InvalidRequest` with what to write otherwise.

    Checked whole before anything listens: a port out of range or a broken IPv6 host
    used to surface only inside the server, as a traceback or a silent exit 0.
    """
    from replay.resume.client import unusable_url

    value = url.strip()
    reason = unusable_url(value)
    if reason is None and any(char.isspace() or not char.isprintable() for char in value):
        reason = "it holds a space or a control character"
    if reason is not None:
        raise InvalidRequest(
            f"--upstream: {visible(repr(_without_password(url)))} is not an http(s) URL"
            f" ({reason}); use e.g. http://127.0.0.1:3000"
        )
    return value


def _check_redact(names: list[str]) -> None:
    """A `--redact` that names no header would match nothing: the header it meant (say
    `X-Api-Key:` with its colon) would be written to disk in clear."""
    from replay.resume.secret_mask import header_name_problem

    for name in names:
        problem = header_name_problem(name)
        if problem is not None:
            raise InvalidRequest(
                f"--redact {visible(repr(name))}: {problem}; it would redact nothing"
            )


def _without_password(url: str) -> str:
    """`url` with a `user:password@` password shown as `***` (even in a broken URL)."""
    from replay.resume.client import url_password

    password = url_password(url)
    return url.replace(f":{password}@", ":***@") if password else url


def run_proxy(
    request: ProxyRequest,
    *,
    console: Console | None = None,
    on_ready: Callable[[ProxyServer], None] | None = None,
) -> ExitCode:
    """Proxy until Ctrl-C (or SIGTERM); 1 when `--check` found errors. Raises for bad usage."""
    from cli.serve import _sigterm_as_interrupt
    from replay.proxy.app import ProxyOptions
    from replay.proxy.live_check import LiveChecker
    from replay.proxy.recorder import recover_killed
    from replay.proxy.server import ProxyServer
    from replay.resume.client import display_url
    from replay.serve.server import parse_address
    from replay.web.cors import check_origin
    from replay.wire.problems import Severity

    out = console or stderr
    upstream = check_upstream(request.upstream)
    try:
        host, port = parse_address(request.listen)
    except ValueError as error:
        raise InvalidRequest(f"--listen: {error}") from None
    try:
        cors = check_origin(request.cors) if request.cors is not None else None
    except ValueError as error:
        raise InvalidRequest(f"--cors: {error}") from None
    if request.tools is not None and not request.native:
        raise InvalidRequest("--tools is only used with --native")
    options = ProxyOptions(
        upstream=upstream,
        record=request.record,
        check=request.check,
        redact=request.redact,
        cors=cors,
        native=request.native,
        tools=request.tools,
    )

    def say(text: str, style: str | None = None) -> None:
        out.print(text, style=style, markup=False, highlight=False, soft_wrap=True, emoji=False)

    lock = threading.Lock()  # exchanges end on the server's threads
    reader_gone = threading.Event()
    unwritable: list[OSError] = []
    """stdout's error when it could not take a line (a full disk): the log is cut."""
    server: ProxyServer | None = None

    def emit(record: dict[str, Any], stream: IO[str]) -> None:
        with lock:
            if (reader_gone.is_set() or unwritable) and stream is sys.stdout:
                return
            try:
                stream.write(json.dumps(record, ensure_ascii=False) + "\n")
                stream.flush()
            except BrokenPipeError:
                # Whoever read the JSON lines is gone: stop as any writer to a closed pipe
                # does, but only once the clients mid-stream have their answers whole.
                # Raising here would cut the exchange being reported; a stop (Ctrl-C's)
                # would cut every stream in flight.
                if stream is not sys.stdout:
                    raise
                reader_gone.set()
                if server is not None:
                    server.request_drain()
            except OSError as error:
                # stdout can take no more (a full disk, a file at its size limit): the
                # lines are the result and are no longer whole, so the proxy ends as for
                # a reader gone, then says so once and ends with 2. Raised here, on a
                # server thread, the error would be lost and the proxy serve on.
                if stream is not sys.stdout:
                    raise
                unwritable.append(error)
                if server is not None:
                    server.request_drain()

    findings_to = sys.stderr if request.json_output else sys.stdout

    def finding(number: int, problem: Problem) -> None:
        if request.findings_json:
            emit(finding_record(number, problem), findings_to)
            return
        style = "yellow" if problem.severity is Severity.ERROR else None
        say(render_finding(number, problem), style)

    def exchange(entry: ExchangeLog) -> None:
        if request.json_output:
            emit(exchange_record(entry), sys.stdout)
            return
        say(render_exchange(entry), "green" if entry.end == "complete" else "yellow")

    checker = LiveChecker(finding) if request.check else None
    server = ProxyServer(options, host=host, port=port, logger=exchange, checker=checker)
    stopped = False
    try:
        if not server.loopback:
            say(
                f"agui: warning: listening on {server.host}, not loopback: anyone who can reach"
                " this machine can use this proxy"
            )
        mode = "bridging legacy to native" if request.native else "passing through"
        say(f"agui proxy: {mode} to {display_url(upstream)}")
        if request.record is not None:
            say(f"agui proxy: recording exchanges in {request.record}")
            for line in recovery_lines(recover_killed(request.record)):
                say(line, "yellow")
        say(f"agui proxy: listening on {server.url}  (Ctrl-C to stop)")
        if request.json_output:
            emit({"type": "listening", "url": server.url}, sys.stdout)
        if on_ready is not None:
            on_ready(server)
        if not reader_gone.is_set() and not unwritable:  # the listening line failed: stop
            with _sigterm_as_interrupt():
                server.wait()
    except KeyboardInterrupt:
        stopped = True
    finally:
        server.shutdown()
    if stopped:
        # after the shutdown, which ends the open exchanges and prints their lines
        say("agui proxy: stopped")
    code = ExitCode.OK
    if checker is not None:
        counts = checker.counts
        say(
            f"agui proxy: checked {checker.exchanges} exchange(s): {counts[Severity.ERROR]}"
            f" errors, {counts[Severity.WARNING]} warnings, {counts[Severity.NOTICE]} notices"
        )
        code = ExitCode.FINDINGS if counts[Severity.ERROR] else ExitCode.OK
    if unwritable:
        raise unwritable[0]  # after the summary: one line from `handled_errors`, exit 2
    return silence_stdout() if reader_gone.is_set() else code


def proxy(
    upstream: str = typer.Option(
        ..., "--upstream", metavar="URL", help="The AG-UI chat server to forward to."
    ),
    listen: str = typer.Option(
        DEFAULT_LISTEN, "--listen", metavar="[HOST:]PORT", help="Where to listen (0: any port)."
    ),
    # a str, not a Path: Path("") is ".", and an empty name (an unset $VAR) must be refused
    record: str | None = typer.Option(
        None,
        "--record",
        metavar="DIR",
        help="Write every exchange as DIR/NNN-<runId>.sse plus its request sidecar.",
        show_default=False,
    ),
    check: bool = typer.Option(
        False, "--check", help="Run the replay checks on every stream as it passes."
    ),
    redact: list[str] = typer.Option(
        [],
        "--redact",
        metavar="HEADER",
        help="Another header to keep off disk and the terminal (repeatable).",
        show_default=False,
    ),
    cors: str | None = typer.Option(
        None,
        "--cors",
        metavar="ORIGIN",
        help="Let a browser page on ORIGIN call the proxy (CORS is off otherwise).",
        show_default=False,
    ),
    native: bool = typer.Option(
        False,
        "--native",
        help="Upstream is a legacy server: show the client native interrupts, and turn its "
        "resumes into the legacy follow-up.",
    ),
    tools: Path | None = typer.Option(
        None,
        "--tools",
        metavar="FILE",
        help="With --native: tool declarations (JSON) for full bindings and schema hashes.",
        show_default=False,
    ),
    json_output: bool = typer.Option(
        False,
        "--json",
        help="Where it listens, then each exchange, as JSON lines on stdout.",
    ),
    findings_format: FindingsFormat | None = typer.Option(
        None,
        "--format",
        help="Findings report format (with --check): text or json (JSON lines; on stdout, "
        "or on stderr under --json).",
        case_sensitive=False,
        show_default=False,
    ),
) -> None:
    """Proxy an AG-UI chat endpoint: pass-through, --record, --check, or a --native bridge.

    One line per exchange, and with --check each finding, goes to stderr (--json: the
    exchanges as JSON lines on stdout). Exit codes: 0 stopped, 1 --check found errors,
    2 cannot run.
    """
    from cli.replay_command import load_tools

    with handled_errors():
        if findings_format is not None and not check:
            raise InvalidRequest("--format formats --check's findings; add --check")
        if record == "":
            raise InvalidRequest("--record: an empty directory name: give a directory (. for here)")
        if record == "-":
            # `-` is stdin/stdout everywhere else; here it made a directory named `-`
            raise InvalidRequest(
                "--record: - is no directory: give a directory (. for here; --json prints "
                "each exchange on stdout)"
            )
        _check_redact(redact)
        request = ProxyRequest(
            upstream=upstream,
            listen=listen,
            record=Path(record) if record is not None else None,
            check=check,
            redact=tuple(redact),
            cors=cors,
            native=native,
            tools=load_tools(tools) if tools is not None else None,
            json_output=json_output,
            findings_json=findings_format is FindingsFormat.JSON,
        )
        code = run_proxy(request)
    raise typer.Exit(int(code))
