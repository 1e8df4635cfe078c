"""`agui resume`: answer a paused run's interrupts, refuse what the server would reject, post it.

The paused run comes from a recording (`--from`) or is described by hand (`--run-id`,
`--thread-id`, `--items`, `--messages`). Answers come from options, an answers file or
interactive prompts. The continuation is built exactly as the TanStack client builds
it, validated locally, then printed (`--dry-run`, `--curl`) or posted, and the live
response is shown with the same timeline as `agui replay`.

Kept whole (about 480 lines): one command's presentation — options, the view that prompts
and shows the live response, the outcome and the next command to run; the work itself is
`replay.jobs.resume`.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli.errors import ExitCode, handled_errors, stderr
from cli.visible_text import visible
from replay.wire.errors import InvalidRequest

if TYPE_CHECKING:
    from rich.console import Console

    from replay.jobs.resume import ResumeJob

DEFAULT_URL = "http://127.0.0.1:8000/api/chat"


def _header_variables(job: Any, environ: Mapping[str, str]) -> dict[str, str]:
    """Header name → the environment variable its value came from (for `--curl`)."""
    from replay.jobs.resume import TOKEN_ENV

    variables: dict[str, str] = {}
    for text in job.header_env:
        name, _, variable = text.partition("=")
        variables[name.strip()] = variable.strip()
    named = {text.partition(":")[0].strip().lower() for text in job.headers}
    named |= {name.lower() for name in variables}
    if environ.get(TOKEN_ENV) and "authorization" not in named:
        variables["Authorization"] = TOKEN_ENV
    return variables


def _stdout_console() -> Console:
    from cli.stdout import stdout_console

    return stdout_console()


@dataclass(frozen=True, slots=True)
class ResumeOptions:
    """Every option of `agui resume`, parsed: the job, and how to present it."""

    job: ResumeJob
    dry_run: bool = False
    curl: bool = False
    json_output: bool = False
    interactive: bool | None = None
    """None: ask when stdin is a TTY."""


@dataclass(slots=True)
class ResumeContext:
    """What the job needs from the outside world; tests replace the parts they pin."""

    out: Console = field(default_factory=lambda: _stdout_console())
    err: Console = field(default_factory=lambda: stderr)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    now: Callable[[], datetime] = field(default_factory=lambda: lambda: datetime.now(UTC))
    run_id_factory: Callable[[], str] | None = None
    stdin_is_tty: Callable[[], bool] = field(default_factory=lambda: sys.stdin.isatty)
    ask: Callable[[str], str] | None = None
    transport: Any | None = None


def _describe(descriptor: Mapping[str, Any]) -> str:
    from cli.prompts import prompt_text

    return f"{descriptor.get('id')} ({prompt_text(descriptor)})"


def _refusal_lines(errors: Sequence[Any]) -> list[str]:
    items = [e for e in errors if e.scope == "item"]
    shown = items or list(errors)
    lines = []
    for error in shown:
        where = f"{error.interrupt_id}: " if error.interrupt_id else ""
        path = ""
        if error.path:
            path = " (at " + "/".join(str(part) for part in error.path) + ")"
        lines.append(f"refused {where}{error.message}{path} [{error.code}]")
    return lines


def _masked(console: Console, mask: Any) -> Console:
    """A console like `console` whose output has every configured secret masked."""
    from rich.console import Console

    from replay.resume.secret_mask import MaskedWriter

    class _MaskedConsole(Console):
        def on_broken_pipe(self) -> None:
            # the wrapped console's answer: stdout's raises `BrokenPipeError` (141, and
            # `--record` reads on), where rich's own would exit with 1 at once
            console.on_broken_pipe()

    return _MaskedConsole(
        file=MaskedWriter(console.file, mask),  # type: ignore[arg-type]
        width=console.width,
        force_terminal=console.is_terminal,
        color_system=console.color_system,  # type: ignore[arg-type]
        no_color=console.no_color,
        highlight=False,
    )


def run_resume(options: ResumeOptions, context: ResumeContext | None = None) -> ExitCode:
    """Run the resume job and present it; known failures raise `AguiError`s."""
    from replay.jobs.resume import Refused, Sent, Unanswered, request_headers, resume_run
    from replay.resume.client import url_password
    from replay.resume.secret_mask import SecretMask

    ctx = context or ResumeContext()
    # The job checks the headers again before any I/O; here they name what to mask.
    job = options.job
    headers = request_headers(job.headers, job.header_env, ctx.environ)
    mask = SecretMask.of([*(value for _name, value in headers), url_password(job.url)])
    if mask.secrets:
        ctx = replace(ctx, out=_masked(ctx.out, mask), err=_masked(ctx.err, mask))
    interactive = options.interactive
    if interactive is None:
        interactive = ctx.stdin_is_tty() and not options.json_output
    view = _View(options, ctx, interactive)
    result = resume_run(
        options.job,
        view,
        environ=ctx.environ,
        now=ctx.now,
        run_id_factory=ctx.run_id_factory,
        transport=ctx.transport,
    )
    if isinstance(result, Unanswered):
        for descriptor in result.descriptors:
            ctx.err.print(
                f"agui: {_describe(descriptor)} is unanswered: answer it with "
                "--approve/--reject/--edit/--answer or --cancel (or --approve-all/--cancel-all)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        ctx.err.print(
            "agui: a batch must answer every item; nothing was sent", markup=False, soft_wrap=True
        )
        return ExitCode.CANNOT_RUN
    if isinstance(result, Refused):
        expired = any(e.code == "expired" for e in result.errors)
        lines = _refusal_lines(result.errors) + [f"refused {line}" for line in result.history]
        for line in lines:
            ctx.err.print(f"agui: {line}", markup=False, highlight=False, soft_wrap=True)
        ctx.err.print(
            "agui: nothing was sent (--no-validate sends it anyway"
            + (", --force sends expired items" if expired else "")
            + ")",
            markup=False,
            soft_wrap=True,
        )
        return ExitCode.CANNOT_RUN
    if not isinstance(result, Sent):
        if options.curl:
            from replay.resume.client import curl_command

            sys.stdout.write(
                curl_command(
                    result.request,
                    from_environment=_header_variables(options.job, ctx.environ),
                )
                + "\n"
            )
        else:
            sys.stdout.write(result.text + "\n")
        return ExitCode.OK
    if result.recorded is not None:
        sse_path, request_path = result.recorded
        if result.partial is None:
            said = f"recorded {sse_path} and {request_path}"
        else:
            said = (
                f"{result.partial}; kept what arrived as {sse_path} and {request_path} "
                f"({options.job.record} was not written)"
            )
        ctx.err.print(f"agui: {said}", markup=False, soft_wrap=True)
    code = _outcome(options, ctx, result)
    return ExitCode.BROKEN_PIPE if view.reader_gone else code


class _View:
    """The resume job on the terminal: prompts, the posting line, the live response."""

    def __init__(self, options: ResumeOptions, ctx: ResumeContext, interactive: bool) -> None:
        from cli.timeline import Timeline

        self.options = options
        self.ctx = ctx
        self.interactive = interactive
        self.timeline: Timeline | None = None
        self.reader_gone = False
        """stdout's reader went away while `--record` was saving the response."""

    def _show(self, write: Callable[[], object]) -> None:
        """Write on stdout, unless its reader went away. With `--record` a closed stdout
        must not stop the job: the continuation was posted, and the whole response is
        the only record of what the server did, so it is read to its end and recorded,
        and only then does the command end with 141. Without it, stop at once."""
        if self.reader_gone:
            return
        try:
            write()
        except BrokenPipeError:
            if self.options.job.record is None:
                raise
            from cli.errors import silence_stdout

            silence_stdout()  # what is still buffered goes nowhere, without failing again
            self.reader_gone = True

    def ask(self, paused: Any, waiting: Sequence[str]) -> list[Any] | None:
        if not self.interactive:
            return None
        from cli.prompts import PromptAborted, Prompter, QuestionUnseen

        prompter = Prompter(self.ctx.err, self.ctx.ask)
        by_id = {str(d.get("id")): d for d in paused.interrupts}
        specs = []
        for interrupt_id in waiting:
            try:
                specs.append(prompter.answer(by_id[interrupt_id]))
            except PromptAborted:
                raise InvalidRequest(f"{interrupt_id}: no answer given; nothing was sent") from None
            except QuestionUnseen:
                raise _unseen(interrupt_id) from None
        return specs

    def confirm(self, request: Any, resume: Sequence[Mapping[str, Any]]) -> bool:
        from cli.prompts import Prompter, QuestionUnseen
        from replay.resume.client import display_url

        prompter = Prompter(self.ctx.err, self.ctx.ask)
        try:
            return prompter.post(request.run_id, display_url(self.options.job.url), resume)
        except QuestionUnseen:
            raise _unseen("post it?") from None

    def posting(self, request: Any, paused: Any, answers: int) -> None:
        from cli.timeline import Timeline
        from replay.resume.client import display_url

        self.ctx.err.print(
            f"agui: posting run {request.run_id} (parent {paused.run_id}, "
            f"{answers} answer{'s' if answers != 1 else ''}) to "
            f"{display_url(self.options.job.url)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        self.timeline = None if self.options.json_output else Timeline(self.ctx.out)

    def source(self, url: str, body: Mapping[str, Any]) -> None:
        timeline = self.timeline
        if timeline is not None:
            self._show(lambda: timeline.source(url, body))  # type: ignore[arg-type]

    def event(self, event: Any) -> None:
        timeline = self.timeline
        if timeline is not None:
            self._show(lambda: timeline.event(event))
        else:
            self._show(lambda: _write_line(event.text))

    def run(self, run: Any) -> None:
        timeline = self.timeline
        if timeline is not None:
            self._show(lambda: timeline.run(run))

    def problem(self, problem: Any) -> None:
        timeline = self.timeline
        if timeline is not None:
            self._show(lambda: timeline.problem(problem))
        else:
            self.ctx.err.print(f"agui: {problem}", markup=False, soft_wrap=True)

    def close(self) -> None:
        timeline = self.timeline
        if timeline is not None:
            self._show(timeline.close)


def _unseen(question: str) -> InvalidRequest:
    """The error ending a run whose question could not be shown (exit 2): the reply
    would be typed blind, so none is read and nothing is posted or printed."""
    return InvalidRequest(
        f"{question}: the question could not be written to stderr; nothing was sent"
    )


def _write_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _outcome(options: ResumeOptions, ctx: ResumeContext, sent: Any) -> ExitCode:
    from replay.jobs.resume import Verdict, interrupt_errors

    def say(text: str) -> None:
        # codes, messages and run ids here are the server's: shown, never obeyed
        ctx.err.print(f"agui: {visible(text)}", markup=False, highlight=False, soft_wrap=True)

    if sent.verdict is Verdict.EMPTY:
        say("the response held no events")
        return ExitCode.FINDINGS
    last = sent.runs[-1]
    if sent.verdict is Verdict.RUN_ERROR:
        data = last.terminal.data if last.terminal is not None else {}
        say(f"the server answered RUN_ERROR [{data.get('code', '?')}]: {data.get('message', '')}")
        for entry in interrupt_errors(data):
            target = entry.get("interruptId") or ",".join(entry.get("interruptIds") or []) or "-"
            path = entry.get("path")
            where = f" (at {'/'.join(str(p) for p in path)})" if isinstance(path, list) else ""
            say(
                f"  {entry.get('scope', '?')} {target}: {entry.get('code', '?')}: "
                f"{entry.get('message', '')}{where} [{entry.get('source', '?')}]"
            )
        return ExitCode.FINDINGS
    if sent.verdict is Verdict.INVALID:
        detail = str(sent.errors[0]) if sent.errors else "the stream ended before RUN_FINISHED"
        say(f"the response stream is invalid: {detail}")
        from cli.serve import LEGACY_RULE

        if any(error.rule == LEGACY_RULE for error in sent.errors):
            # A legacy server ignores `resume` and pauses again: translating its answer
            # would not help, the continuation has to reach it in the legacy shape.
            say(
                "  the server paused again with legacy approval events: a legacy TanStack"
                " server (@tanstack/ai <= 0.42.0) ignores `resume`; post the continuation"
                " through `agui proxy --native --upstream URL` instead"
            )
        return ExitCode.FINDINGS
    if sent.verdict is Verdict.PAUSED:
        whole = sent.recorded is not None and sent.partial is None
        recorded = sent.recorded[0] if whole else None
        say(f"run {last.run_id} paused again; resume it with:")
        say("  " + _next_command(options, last, recorded))
        return ExitCode.PAUSED
    if sent.verdict is Verdict.CANCELLED:
        say(f"run {last.run_id} finished after every item was cancelled")
        return ExitCode.CANCELLED
    say(f"run {last.run_id} finished")
    return ExitCode.OK


def _check_record(record: str, sources: list[str], inputs: list[Path]) -> None:
    """Refuse a `--record` that cannot be written, or would replace what this run reads,
    before anything is sent: a continuation is posted once, and a recording written
    over `--from` loses the paused run a retry needs."""
    from cli.overwrites import overwritten_input
    from replay.resume.client import partial_path, record_paths
    from replay.wire.recording import STDIN, sidecar_request_path

    if not record:
        raise InvalidRequest("--record: an empty file name: give a file path")
    if record == "-":
        # it wrote the raw stream into the timeline on stdout, and a `-.request.json`
        raise InvalidRequest(
            "--record: - is no file: give a file path (--json prints the events on stdout)"
        )
    out = Path(record)
    if out.is_dir():
        raise InvalidRequest(f"--record: {record}: is a directory; give a file path")
    read = list(inputs)
    for source in sources:
        if source != STDIN:
            read.append(Path(source))
            sidecar = sidecar_request_path(Path(source))
            if sidecar is not None:
                read.append(sidecar)
    written = [*record_paths(out), *record_paths(partial_path(out))]
    same = overwritten_input(written, read)
    if same is not None:
        raise InvalidRequest(
            f"--record {record} would write over {same[1]}, which this resume reads;"
            " record to another file"
        )


def _next_command(options: ResumeOptions, run: Any, recorded: Path | None) -> str:
    from replay.resume.client import display_url

    parts = ["agui", "resume"]
    if recorded is not None:
        parts += ["--from", str(recorded)]
    else:
        parts += [
            "--thread-id",
            str(run.thread_id),
            "--run-id",
            str(run.run_id),
            "--items",
            "ITEMS.json",
            "--messages",
            "MESSAGES.json",
        ]
    if display_url(options.job.url) != DEFAULT_URL:
        parts += ["--url", display_url(options.job.url)]
    command = " ".join(shlex.quote(part) for part in parts)
    if recorded is None:
        command += "   # or re-run with --record OUT.sse and use --from OUT.sse"
    return command


def resume(
    sources: list[str] = typer.Option(
        [],
        "--from",
        metavar="RECORDING",
        help="SSE, NDJSON or HAR recording of the paused run (repeatable: one timeline).",
    ),
    run_id: str | None = typer.Option(
        None, "--run-id", metavar="ID", help="The interrupted run (default: the last paused run)."
    ),
    thread_id: str | None = typer.Option(
        None, "--thread-id", metavar="ID", help="Its thread (with --run-id, hand-built)."
    ),
    request_file: Path | None = typer.Option(
        None,
        "--request",
        metavar="FILE",
        help="The original request body, when the recording lacks it.",
    ),
    items_file: Path | None = typer.Option(
        None, "--items", metavar="FILE", help="Hand-built pending items (JSON array)."
    ),
    messages_file: Path | None = typer.Option(
        None, "--messages", metavar="FILE", help="Hand-built conversation history (JSON array)."
    ),
    approve: list[str] = typer.Option(
        [], "--approve", metavar="ID", help="Approve an item (repeatable)."
    ),
    reject: list[str] = typer.Option(
        [], "--reject", metavar="ID", help="Reject an approval (repeatable)."
    ),
    payload: list[str] = typer.Option(
        [],
        "--payload",
        metavar="JSON|ID=JSON",
        help="Decision payload for the one --approve/--reject, or ID= for the one (or the "
        "--approve-all) answering the item ID names (@FILE reads a file; repeatable).",
    ),
    edit: list[str] = typer.Option(
        [],
        "--edit",
        metavar="ID=JSON",
        help="Approve with these arguments (repeatable). The object replaces the original "
        "arguments whole, not merged: the server validates it as the tool's complete input.",
    ),
    cancel: list[str] = typer.Option(
        [], "--cancel", metavar="ID", help="Cancel an item (repeatable)."
    ),
    answer: list[str] = typer.Option(
        [], "--answer", metavar="ID=JSON|ID=@FILE", help="Resolve with this payload (repeatable)."
    ),
    answers_file: str | None = typer.Option(
        None,
        "--answers",
        metavar="FILE",
        help="JSON answers keyed by id, tool name or definition id.",
    ),
    approve_all: bool = typer.Option(False, "--approve-all", help="Approve every approval."),
    cancel_all: bool = typer.Option(False, "--cancel-all", help="Cancel every unanswered item."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Send items whose expiresAt has passed; answer a run already resumed.",
    ),
    no_validate: bool = typer.Option(
        False, "--no-validate", help="Skip local validation and send anyway."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the exact JSON body; send nothing."
    ),
    curl: bool = typer.Option(
        False, "--curl", help="Print an equivalent curl command (header values masked)."
    ),
    url: str = typer.Option(DEFAULT_URL, "--url", metavar="URL", help="Chat endpoint to POST to."),
    header: list[str] = typer.Option(
        [], "-H", "--header", metavar="'NAME: VALUE'", help="Extra request header (repeatable)."
    ),
    header_env: list[str] = typer.Option(
        [],
        "--header-env",
        metavar="NAME=ENVVAR",
        help="Header whose value is read from ENVVAR (repeatable).",
    ),
    timeout: float = typer.Option(
        60.0, "--timeout", metavar="SECONDS", help="Read timeout in seconds."
    ),
    connect_timeout: float = typer.Option(
        10.0, "--connect-timeout", metavar="SECONDS", help="Connect timeout in seconds."
    ),
    max_time: float | None = typer.Option(
        None,
        "--max-time",
        metavar="SECONDS",
        help="Give up this many seconds after sending (--timeout bounds each wait only).",
    ),
    insecure: bool = typer.Option(False, "--insecure", help="Do not verify TLS certificates."),
    new_run_id: str | None = typer.Option(
        None,
        "--new-run-id",
        metavar="ID",
        help="Run id for the continuation (default: run-<ms>-<rand>).",
    ),
    # a str, not a Path: Path("") is ".", and an empty name (an unset $VAR) must be refused
    record: str | None = typer.Option(
        None,
        "--record",
        metavar="OUT.sse",
        help="Save the response to OUT.sse and the request body to OUT.request.json beside "
        "it (OUT.partial.sse and OUT.partial.request.json when the response is not whole).",
    ),
    json_output: bool = typer.Option(
        False, "--json", help="The response's events as JSON lines (NDJSON) on stdout."
    ),
    no_input: bool = typer.Option(False, "--no-input", help="Never prompt, even on a terminal."),
) -> None:
    """Answer a paused run's interrupts and post the continuation the TanStack client would.

    The response is shown live as a timeline on stdout (--json: its events; --dry-run:
    the body; --curl: a curl command). Exit codes: 0 finished, 1 RUN_ERROR or invalid
    stream, 2 usage or validation (nothing sent) or transport, 3 paused again, 4
    cancelled.
    """
    from replay.jobs.resume import ResumeJob
    from replay.resume.answers import AnswerOptions

    job = ResumeJob(
        sources=tuple(sources),
        run_id=run_id,
        thread_id=thread_id,
        request_file=request_file,
        items_file=items_file,
        messages_file=messages_file,
        answers=AnswerOptions(
            approve=tuple(approve),
            reject=tuple(reject),
            payload=tuple(payload),
            edit=tuple(edit),
            cancel=tuple(cancel),
            answer=tuple(answer),
            answers_file=answers_file,
        ),
        approve_all=approve_all,
        cancel_all=cancel_all,
        force=force,
        validate=not no_validate,
        url=url,
        headers=tuple(header),
        header_env=tuple(header_env),
        read_timeout=timeout,
        connect_timeout=connect_timeout,
        max_time=max_time,
        insecure=insecure,
        new_run_id=new_run_id,
        record=Path(record) if record else None,
        send=not (curl or dry_run),
    )
    options = ResumeOptions(
        job=job,
        dry_run=dry_run,
        curl=curl,
        json_output=json_output,
        interactive=False if no_input else None,
    )
    with handled_errors():
        from replay.wire.recording import refuse_stdin_twice

        refuse_stdin_twice(sources)
        if new_run_id is not None and not new_run_id.strip():
            # an empty $RUN_ID would quietly fall back to a generated id
            raise InvalidRequest("--new-run-id: an empty id; give one, or leave it out")
        if dry_run and curl:
            raise InvalidRequest(
                "--dry-run prints the body and --curl a command; choose one of them"
            )
        if record is not None and (dry_run or curl):
            raise InvalidRequest("--record saves a response; --dry-run and --curl send nothing")
        if record is not None:
            inputs = [request_file, items_file, messages_file]
            if answers_file not in (None, "-"):
                inputs.append(Path(answers_file))
            _check_record(record, sources, [path for path in inputs if path is not None])
        from cli.serve import _sigterm_as_interrupt

        # Killed mid-response (`timeout`, a CI job cancelled), the run was resumed on the
        # server already: what arrived is kept as `--record` keeps it on Ctrl-C.
        with _sigterm_as_interrupt():
            code = run_resume(options)
    raise typer.Exit(int(code))
