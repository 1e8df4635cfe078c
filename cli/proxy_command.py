"""`agui proxy`: the presentation side of the streaming reverse proxy.

Parses the options, starts `replay.proxy.server.ProxyServer`, prints where it listens
(and a warning when other machines can reach it), one line per exchange, the live
check's findings with their exchange number, and a summary when it stops (Ctrl-C or
SIGTERM). Never a header value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli.errors import ExitCode, handled_errors, stderr
from replay.wire.errors import InvalidRequest

if TYPE_CHECKING:
    from rich.console import Console

    from replay.proxy.app import ExchangeLog
    from replay.proxy.server import ProxyServer
    from replay.wire.problems import Problem

DEFAULT_LISTEN = "127.0.0.1:8700"


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


def render_exchange(entry: ExchangeLog) -> str:
    """One plain line per exchange: number, method, path, run ids, status, how it ended."""
    parts = [f"#{entry.number}", entry.method, entry.path]
    if entry.run_id is not None:
        parts.append(f"runId={entry.run_id}")
    if entry.parent_run_id is not None:
        parts.append(f"parentRunId={entry.parent_run_id}")
    line = f"{' '.join(parts)} -> {entry.status} {entry.end}"
    if entry.detail:
        line += f": {entry.detail}"
    if entry.saved is not None:
        line += f" (recorded {entry.saved})"
    return line


def render_finding(number: int, problem: Problem) -> str:
    """A live-check finding, in `agui replay --check`'s words, with its exchange number."""
    where = f"{problem.location}: " if problem.location is not None else f"exchange {number}: "
    return f"{where}{problem.severity}: {problem.message} [{problem.rule}]"


def check_upstream(url: str) -> str:
    """An absolute http(s) URL; `InvalidRequest` with what to write otherwise."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidRequest(
            f"--upstream: {url!r} is not an http(s) URL; use e.g. http://127.0.0.1:3000"
        )
    return url.strip()


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
    from replay.proxy.server import ProxyServer
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
        out.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def finding(number: int, problem: Problem) -> None:
        style = "yellow" if problem.severity is Severity.ERROR else None
        say(render_finding(number, problem), style)

    def exchange(entry: ExchangeLog) -> None:
        say(render_exchange(entry), "green" if entry.end == "complete" else "yellow")

    checker = LiveChecker(finding) if request.check else None
    server = ProxyServer(options, host=host, port=port, logger=exchange, checker=checker)
    try:
        if not server.loopback:
            say(
                f"agui: warning: listening on {server.host}, not loopback: anyone who can reach"
                " this machine can use this proxy"
            )
        mode = "bridging legacy to native" if request.native else "passing through"
        say(f"agui proxy: {mode} to {upstream}")
        if request.record is not None:
            say(f"agui proxy: recording exchanges in {request.record}")
        say(f"agui proxy: listening on {server.url}  (Ctrl-C to stop)")
        if on_ready is not None:
            on_ready(server)
        with _sigterm_as_interrupt():
            server.wait()
    except KeyboardInterrupt:
        say("agui proxy: stopped")
    finally:
        server.shutdown()
    if checker is None:
        return ExitCode.OK
    counts = checker.counts
    say(
        f"agui proxy: checked {checker.exchanges} exchange(s): {counts[Severity.ERROR]} errors,"
        f" {counts[Severity.WARNING]} warnings, {counts[Severity.NOTICE]} notices"
    )
    return ExitCode.FINDINGS if counts[Severity.ERROR] else ExitCode.OK


def proxy(
    upstream: str = typer.Option(
        ..., "--upstream", metavar="URL", help="The AG-UI chat server to forward to."
    ),
    listen: str = typer.Option(
        DEFAULT_LISTEN, "--listen", metavar="[HOST:]PORT", help="Where to listen (0: any port)."
    ),
    record: Path | None = typer.Option(
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
) -> None:
    """Proxy an AG-UI chat endpoint: pass-through, --record, --check, or a --native bridge.

    Exit codes: 0 stopped, 1 --check found errors, 2 cannot run.
    """
    from cli.replay_command import load_tools

    with handled_errors():
        request = ProxyRequest(
            upstream=upstream,
            listen=listen,
            record=record,
            check=check,
            redact=tuple(redact),
            cors=cors,
            native=native,
            tools=load_tools(tools) if tools is not None else None,
        )
        code = run_proxy(request)
    raise typer.Exit(int(code))
