"""`agui resume`: answer a paused run's interrupts, refuse what the server would reject, post it.

The paused run comes from a recording (`--from`) or is described by hand (`--run-id`,
`--thread-id`, `--items`, `--messages`). Answers come from options, an answers file or
interactive prompts. The continuation is built exactly as the TanStack client builds
it, validated locally, then printed (`--dry-run`, `--curl`) or posted, and the live
response is shown with the same timeline as `agui replay`.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli.errors import ExitCode, handled_errors, stderr
from replay.errors import InvalidRequest

if TYPE_CHECKING:
    from rich.console import Console

TOKEN_ENV = "AGUI_TOKEN"
DEFAULT_URL = "http://127.0.0.1:8000/api/chat"


def _stdout_console() -> Console:
    from cli.stdout import stdout_console

    return stdout_console()


@dataclass(frozen=True, slots=True)
class ResumeOptions:
    """Every option of `agui resume`, parsed."""

    sources: tuple[str, ...] = ()
    run_id: str | None = None
    thread_id: str | None = None
    request_file: Path | None = None
    items_file: Path | None = None
    messages_file: Path | None = None
    approve: tuple[str, ...] = ()
    reject: tuple[str, ...] = ()
    payload: tuple[str, ...] = ()
    edit: tuple[str, ...] = ()
    cancel: tuple[str, ...] = ()
    answer: tuple[str, ...] = ()
    answers_file: str | None = None
    approve_all: bool = False
    cancel_all: bool = False
    force: bool = False
    validate: bool = True
    dry_run: bool = False
    curl: bool = False
    url: str = DEFAULT_URL
    headers: tuple[str, ...] = ()
    header_env: tuple[str, ...] = ()
    read_timeout: float = 60.0
    connect_timeout: float = 10.0
    insecure: bool = False
    new_run_id: str | None = None
    record: Path | None = None
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


def _load_json(path: Path, what: str) -> Any:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise InvalidRequest(f"{what} {path}: {error.strerror or error}") from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise InvalidRequest(f"{what} {path}: not valid JSON ({error})") from None


def _paused_run(options: ResumeOptions) -> tuple[Any, list[Any]]:
    """The paused run and any answers that came with hand-built resume items."""
    from replay.hand_built_run import hand_built_items, hand_built_run
    from replay.paused_run import choose_run, paused_run_from, read_runs
    from replay.recording import load_request, open_recordings

    request = load_request(options.request_file) if options.request_file is not None else None
    if options.sources:
        if options.items_file is not None or options.messages_file is not None:
            raise InvalidRequest("--items and --messages describe a run by hand; drop --from")
        runs = read_runs(open_recordings(options.sources))
        run = choose_run(runs.runs, options.run_id)
        terminal = run.terminal.location if run.terminal is not None else None
        paused = paused_run_from(
            run,
            request=request,
            tool_call_metadata=runs.tool_call_metadata.get(terminal) if terminal else None,
        )
        if options.thread_id is not None and options.thread_id != paused.thread_id:
            raise InvalidRequest(
                f"--thread-id {options.thread_id}: the paused run is on thread {paused.thread_id}"
            )
        return paused, []
    if options.run_id is not None and options.thread_id is None:
        raise InvalidRequest("--run-id needs --thread-id (the thread of the paused run)")
    if options.thread_id is not None and options.run_id is None:
        raise InvalidRequest("--thread-id needs --run-id (the paused run)")
    if options.run_id is None or options.thread_id is None:
        raise InvalidRequest(
            "say which run to resume: --from RECORDING, or --run-id R --thread-id T "
            "(with --items FILE.json)"
        )
    descriptors: list[dict[str, Any]] = []
    specs: list[Any] = []
    if options.items_file is not None:
        descriptors, specs = hand_built_items(
            _load_json(options.items_file, "--items"),
            run_id=options.run_id,
            source=str(options.items_file),
        )
    messages: list[dict[str, Any]] = []
    if options.messages_file is not None:
        loaded = _load_json(options.messages_file, "--messages")
        if isinstance(loaded, dict) and isinstance(loaded.get("messages"), list):
            loaded = loaded["messages"]
        if not isinstance(loaded, list) or not all(isinstance(m, dict) for m in loaded):
            raise InvalidRequest(
                f"--messages {options.messages_file}: expected an array of messages"
            )
        messages = loaded
    paused = hand_built_run(
        thread_id=options.thread_id,
        run_id=options.run_id,
        descriptors=descriptors,
        messages=messages,
        request=request,
    )
    return paused, specs


def _bare_descriptors(paused: Any, specs: Sequence[Any]) -> Any:
    """Hand-built mode without --items: every answered id is a plain AG-UI interrupt."""
    from dataclasses import replace

    if paused.interrupts or not specs:
        return paused
    ids: list[str] = []
    for spec in specs:
        if spec.target not in ids:
            ids.append(spec.target)
    return replace(paused, interrupts=tuple({"id": i, "reason": "unknown"} for i in ids))


def _waiting_ids(paused: Any, answered: Mapping[str, Any]) -> list[str]:
    """Pending ids without an answer (client tools may wait when every generic is answered)."""
    from replay.batch import InterruptKind, kind_of

    kinds = {str(d.get("id")): kind_of(d) for d in paused.interrupts}
    generics = [i for i, k in kinds.items() if k is InterruptKind.GENERIC]
    may_wait = bool(generics) and all(i in answered for i in generics)
    return [
        i
        for i, kind in kinds.items()
        if i not in answered and not (may_wait and kind is InterruptKind.CLIENT_TOOL)
    ]


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


def _headers(options: ResumeOptions, environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    from replay.client import header_from_env, parse_header

    headers = [parse_header(text) for text in options.headers]
    headers += [header_from_env(text, dict(environ)) for text in options.header_env]
    token = environ.get(TOKEN_ENV)
    if token and not any(name.lower() == "authorization" for name, _ in headers):
        headers.append(("Authorization", f"Bearer {token}"))
    return tuple(headers)


def run_resume(options: ResumeOptions, context: ResumeContext | None = None) -> ExitCode:
    """Do the whole job and return the exit code; known failures raise `AguiError`s."""
    from replay.answers import AnswerOptions, resolve_answers, specs_from_options
    from replay.batch import validate_batch
    from replay.canonical import wire_json
    from replay.client import HttpRequest
    from replay.continuation import build_resume, continuation_body, new_run_id

    ctx = context or ResumeContext()
    if options.read_timeout <= 0 or options.connect_timeout <= 0:
        raise InvalidRequest("--timeout and --connect-timeout must be positive")
    specs = specs_from_options(
        AnswerOptions(
            approve=options.approve,
            reject=options.reject,
            payload=options.payload,
            edit=options.edit,
            cancel=options.cancel,
            answer=options.answer,
            answers_file=options.answers_file,
        )
    )
    headers = _headers(options, ctx.environ)
    paused, item_specs = _paused_run(options)
    specs = [*item_specs, *specs]
    paused = _bare_descriptors(paused, specs)
    if not paused.interrupts:
        raise InvalidRequest(
            "nothing to resume: give the pending items with --items FILE.json, "
            "or name them with --approve/--answer/--cancel"
        )
    answers = resolve_answers(
        specs, paused.interrupts, approve_all=options.approve_all, cancel_all=options.cancel_all
    )
    waiting = _waiting_ids(paused, answers)
    interactive = options.interactive
    if interactive is None:
        interactive = ctx.stdin_is_tty() and not options.json_output
    if waiting and interactive:
        answers = _ask(paused, answers, waiting, ctx)
        waiting = _waiting_ids(paused, answers)
    by_id = {str(d.get("id")): d for d in paused.interrupts}
    if waiting and options.validate:
        for interrupt_id in waiting:
            ctx.err.print(
                f"agui: {_describe(by_id[interrupt_id])} is unanswered: answer it with "
                "--approve/--reject/--edit/--answer or --cancel (or --approve-all/--cancel-all)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        ctx.err.print(
            "agui: a batch must answer every item; nothing was sent", markup=False, soft_wrap=True
        )
        return ExitCode.CANNOT_RUN
    resume = build_resume(paused.interrupts, answers)
    if options.validate:
        errors = validate_batch(
            paused.interrupts,
            resume,
            thread_id=paused.thread_id,
            interrupted_run_id=paused.run_id,
            now=ctx.now(),
            client_rules=True,
        )
        if options.force:
            errors = [e for e in errors if e.code != "expired"]
            if all(e.code == "item-validation-failed" for e in errors):
                errors = []
        if errors:
            expired = any(e.code == "expired" for e in errors)
            for line in _refusal_lines(errors):
                ctx.err.print(f"agui: {line}", markup=False, highlight=False, soft_wrap=True)
            ctx.err.print(
                "agui: nothing was sent (--no-validate sends it anyway"
                + (", --force sends expired items" if expired else "")
                + ")",
                markup=False,
                soft_wrap=True,
            )
            return ExitCode.CANNOT_RUN
    run_id = options.new_run_id or (ctx.run_id_factory or new_run_id)()
    body = continuation_body(paused, resume, run_id=run_id)
    text = wire_json(body)
    request = HttpRequest(
        url=options.url,
        body=text.encode("utf-8"),
        run_id=run_id,
        headers=headers,
        connect_timeout=options.connect_timeout,
        read_timeout=options.read_timeout,
        verify=not options.insecure,
    )
    if options.curl:
        from replay.client import curl_command

        sys.stdout.write(curl_command(request) + "\n")
        return ExitCode.OK
    if options.dry_run:
        sys.stdout.write(text + "\n")
        return ExitCode.OK
    return _send(options, ctx, request, body, paused)


def _ask(paused: Any, answers: dict[str, Any], waiting: Sequence[str], ctx: ResumeContext) -> Any:
    from cli.prompts import PromptAborted, Prompter
    from replay.answers import resolve_answers

    prompter = Prompter(ctx.err, ctx.ask)
    by_id = {str(d.get("id")): d for d in paused.interrupts}
    specs = []
    for interrupt_id in waiting:
        try:
            specs.append(prompter.answer(by_id[interrupt_id]))
        except PromptAborted:
            raise InvalidRequest(f"{interrupt_id}: no answer given; nothing was sent") from None
    extra = resolve_answers(specs, paused.interrupts)
    merged = {**answers, **extra}
    order = {str(d.get("id")): index for index, d in enumerate(paused.interrupts)}
    return dict(sorted(merged.items(), key=lambda item: order.get(item[0], 0)))


def _send(
    options: ResumeOptions,
    ctx: ResumeContext,
    request: Any,
    body: dict[str, Any],
    paused: Any,
) -> ExitCode:
    from cli.timeline import Timeline
    from replay.client import AtomicFile, display_url, record_paths, stream_post, write_atomic
    from replay.events import RecordedEvent, decode_events
    from replay.problems import Problem, Severity
    from replay.recording import Exchange
    from replay.sse import SseDecoder, SseMessage
    from replay.transcript import RunTranscript, TranscriptBuilder

    url = display_url(options.url)
    count = len(body["resume"])
    ctx.err.print(
        f"agui: posting run {request.run_id} (parent {paused.run_id}, "
        f"{count} answer{'s' if count != 1 else ''}) to {url}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    timeline = None if options.json_output else Timeline(ctx.out)
    builder = TranscriptBuilder()
    runs: list[RunTranscript] = []
    problems: list[Problem] = []
    recorder: AtomicFile | None = None
    sse_path = request_path = None
    if options.record is not None:
        sse_path, request_path = record_paths(options.record)
        recorder = AtomicFile(sse_path)

    def handle(items: Sequence[RunTranscript | Problem]) -> None:
        for item in items:
            if isinstance(item, Problem):
                problems.append(item)
                if timeline is not None:
                    timeline.problem(item)
                else:
                    ctx.err.print(f"agui: {item}", markup=False, soft_wrap=True)
            else:
                runs.append(item)
                if timeline is not None:
                    timeline.run(item)

    try:
        with stream_post(request, transport=ctx.transport) as (_info, chunks):

            def messages() -> Iterator[SseMessage]:
                decoder = SseDecoder()
                for chunk in chunks:
                    if recorder is not None:
                        recorder.write(chunk)
                    yield from decoder.feed(chunk)
                yield from decoder.close()

            if timeline is not None:
                timeline.source(url, body)
            handle(builder.begin_exchange(Exchange(url, (), request=body)))
            for item in decode_events(url, messages()):
                if isinstance(item, RecordedEvent):
                    if timeline is not None:
                        timeline.event(item)
                    else:
                        sys.stdout.write(item.text + "\n")
                        sys.stdout.flush()
                handle(builder.add(item))
            handle(builder.finish())
    except BaseException:
        if recorder is not None:
            recorder.discard()
        raise
    finally:
        if timeline is not None:
            timeline.close()
    if recorder is not None and sse_path is not None and request_path is not None:
        recorder.commit()
        write_atomic(request_path, (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode())
        ctx.err.print(f"agui: recorded {sse_path} and {request_path}", markup=False, soft_wrap=True)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    return _outcome(options, ctx, runs, errors, body, sse_path)


def _outcome(
    options: ResumeOptions,
    ctx: ResumeContext,
    runs: Sequence[Any],
    errors: Sequence[Any],
    body: Mapping[str, Any],
    recorded: Path | None,
) -> ExitCode:
    from replay.transcript import Outcome

    def say(text: str) -> None:
        ctx.err.print(f"agui: {text}", markup=False, highlight=False, soft_wrap=True)

    if not runs:
        say("the response held no events")
        return ExitCode.FINDINGS
    last = runs[-1]
    if last.outcome is Outcome.ERROR:
        data = last.terminal.data if last.terminal is not None else {}
        say(f"the server answered RUN_ERROR [{data.get('code', '?')}]: {data.get('message', '')}")
        metadata = data.get("metadata")
        tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
        entries = tanstack.get("interruptErrors") if isinstance(tanstack, dict) else None
        if not isinstance(entries, list):
            entries = data.get("tanstack:interruptErrors")
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            target = entry.get("interruptId") or ",".join(entry.get("interruptIds") or []) or "-"
            path = entry.get("path")
            where = f" (at {'/'.join(str(p) for p in path)})" if isinstance(path, list) else ""
            say(
                f"  {entry.get('scope', '?')} {target}: {entry.get('code', '?')}: "
                f"{entry.get('message', '')}{where} [{entry.get('source', '?')}]"
            )
        return ExitCode.FINDINGS
    if errors or last.outcome is Outcome.UNFINISHED:
        detail = str(errors[0]) if errors else "the stream ended before RUN_FINISHED"
        say(f"the response stream is invalid: {detail}")
        return ExitCode.FINDINGS
    if last.outcome is Outcome.INTERRUPT:
        say(f"run {last.run_id} paused again; resume it with:")
        say("  " + _next_command(options, last, recorded))
        return ExitCode.PAUSED
    resume = body.get("resume")
    if isinstance(resume, list) and resume and all(e.get("status") == "cancelled" for e in resume):
        say(f"run {last.run_id} finished after every item was cancelled")
        return ExitCode.CANCELLED
    say(f"run {last.run_id} finished")
    return ExitCode.OK


def _next_command(options: ResumeOptions, run: Any, recorded: Path | None) -> str:
    from replay.client import display_url

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
    if display_url(options.url) != DEFAULT_URL:
        parts += ["--url", display_url(options.url)]
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
        help="Decision payload for --approve/--reject (repeatable).",
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
        None, "--answers", metavar="FILE", help="JSON answers keyed by id or definition id."
    ),
    approve_all: bool = typer.Option(False, "--approve-all", help="Approve every approval."),
    cancel_all: bool = typer.Option(False, "--cancel-all", help="Cancel every unanswered item."),
    force: bool = typer.Option(False, "--force", help="Send items whose expiresAt has passed."),
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
    insecure: bool = typer.Option(False, "--insecure", help="Do not verify TLS certificates."),
    new_run_id: str | None = typer.Option(
        None,
        "--new-run-id",
        metavar="ID",
        help="Run id for the continuation (default: run-<ms>-<rand>).",
    ),
    record: Path | None = typer.Option(
        None,
        "--record",
        metavar="FILE",
        help="Save the response (FILE.sse) and FILE.request.json beside it.",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print response events as NDJSON."),
    no_input: bool = typer.Option(False, "--no-input", help="Never prompt, even on a terminal."),
) -> None:
    """Answer a paused run's interrupts and post the continuation the TanStack client would.

    Exit codes: 0 finished, 1 RUN_ERROR or invalid stream, 2 usage/validation/transport
    (nothing sent), 3 paused again, 4 cancelled.
    """
    options = ResumeOptions(
        sources=tuple(sources),
        run_id=run_id,
        thread_id=thread_id,
        request_file=request_file,
        items_file=items_file,
        messages_file=messages_file,
        approve=tuple(approve),
        reject=tuple(reject),
        payload=tuple(payload),
        edit=tuple(edit),
        cancel=tuple(cancel),
        answer=tuple(answer),
        answers_file=answers_file,
        approve_all=approve_all,
        cancel_all=cancel_all,
        force=force,
        validate=not no_validate,
        dry_run=dry_run,
        curl=curl,
        url=url,
        headers=tuple(header),
        header_env=tuple(header_env),
        read_timeout=timeout,
        connect_timeout=connect_timeout,
        insecure=insecure,
        new_run_id=new_run_id,
        record=record,
        json_output=json_output,
        interactive=False if no_input else None,
    )
    with handled_errors():
        if dry_run and curl:
            raise InvalidRequest(
                "--dry-run prints the body and --curl a command; choose one of them"
            )
        if record is not None and (dry_run or curl):
            raise InvalidRequest("--record saves a response; --dry-run and --curl send nothing")
        code = run_resume(options)
    raise typer.Exit(int(code))
