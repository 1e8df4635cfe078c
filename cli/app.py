"""The `agui` Typer application: one sub-command per job, registered from its own module.

Command modules import only typer and rich at the top; libcst, httpx and jsonschema
are imported inside the command bodies so that `agui --help` starts fast.
"""

from __future__ import annotations

import os
import sys

import typer

from cli import absent_options, given_options, help_style, stderr_stream
from cli.errors import ExitCode, first_report, silence_stdout
from cli.migrate_command import migrate
from cli.proxy_command import proxy
from cli.replay_command import replay
from cli.resume_command import resume
from cli.stdout import complete_writes, escape_unencodable
from cli.translate_command import translate

help_style.install()
absent_options.install()
given_options.install()

app = typer.Typer(
    name="agui",
    help=(
        "Move TanStack AI apps from legacy tool-approval events to native AG-UI interrupts: "
        "replay and check recordings, translate legacy streams, resume paused runs, "
        "migrate Python, TypeScript and JavaScript call sites, and proxy live traffic."
        "\n\n"
        "Results go to stdout, everything else to stderr. Exit codes: 0 success, 1 found "
        "something (findings, changes under --check, a RUN_ERROR), 2 cannot run; "
        "resume adds 3 (paused again) and 4 (cancelled). 'agui COMMAND --help' shows "
        "each command's options and examples."
    ),
    epilog=help_style.epilog(
        [
            ("agui replay --check run.sse", "check a recording (exit 1 on findings)"),
            ("agui translate run.sse -o native.sse", "a legacy stream as native interrupts"),
            ("agui resume --from run.sse --approve-all --url URL", "answer a paused run"),
            ("agui migrate src | git apply", "rewrite legacy call sites"),
            ("agui proxy --record rec --check --upstream URL", "record and check live traffic"),
        ],
        [
            "AGUI_TOKEN (agui resume) is sent as Authorization: Bearer unless -H gives one",
            *help_style.ENVIRONMENT,
        ],
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agui-cli")
    except PackageNotFoundError:
        return "0+unknown"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"agui {_installed_version()}")
        raise typer.Exit()


@app.callback()
def root(
    show_version: bool = typer.Option(
        False,
        "--version",
        callback=_show_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """agui: a migration assistant for TanStack AI interrupts."""
    escape_unencodable()


# The order here is the order `agui --help` lists them: the journey of a migration.
app.command(
    name="replay",
    epilog=help_style.epilog(
        [
            ("agui replay run.sse", "the timeline of a recording"),
            ("agui replay --check --format sarif runs/*.sse", "a CI report (exit 1 on findings)"),
            ("agui replay --serve 8123 run.sse", "serve it to a real client"),
        ],
        help_style.ENVIRONMENT,
    ),
)(replay)
app.command(
    name="translate",
    epilog=help_style.epilog(
        [
            ("agui translate run.sse --tools tools.json -o native.sse", "a new file"),
            ("agui translate --write fixtures/*.sse", "rewrite recordings in place"),
            ("agui translate --check fixtures/*.sse", "exit 1 while any is legacy"),
        ],
        help_style.ENVIRONMENT,
    ),
)(translate)
app.command(
    name="resume",
    epilog=help_style.epilog(
        [
            ("agui resume --from run.sse", "ask for each answer, then post"),
            ("agui resume --from run.sse --approve-all --url URL", "approve everything"),
            ("agui resume --from run.sse --approve-all --dry-run", "print the body only"),
        ],
        [
            "AGUI_TOKEN is sent as Authorization: Bearer unless -H gives one",
            *help_style.ENVIRONMENT,
        ],
    ),
)(resume)
app.command(
    name="migrate",
    epilog=help_style.epilog(
        [
            ("agui migrate src | git apply", "review the diff, then apply it"),
            ("agui migrate --write src", "rewrite the files in place"),
            ("agui migrate --check --format github .", "CI: exit 1 while anything is left"),
        ],
        help_style.ENVIRONMENT,
    ),
)(migrate)
app.command(
    name="proxy",
    epilog=help_style.epilog(
        [
            ("agui proxy --upstream http://127.0.0.1:3000", "forward on 127.0.0.1:8700"),
            ("agui proxy --record rec --check --upstream URL", "record and check live traffic"),
            ("agui proxy --native --tools tools.json --upstream URL", "bridge to a legacy server"),
        ],
        help_style.ENVIRONMENT,
    ),
)(proxy)


def main() -> None:
    """Console-script entry point.

    When the command is done, stdout and stderr are flushed and the process ends at
    once, skipping the interpreter's teardown: every command closes what it opens
    (files, sockets, the replay helper process), so teardown would only free memory
    the system takes back anyway, which is a tenth of a second on a large replay.
    """
    stderr_stream.install()
    complete_writes()
    try:
        app()
        code: int = 0
    except SystemExit as stop:
        # Click answers a closed stdout while it prints help with `sys.exit(1)` from inside
        # its `except OSError`; a reader that stopped early is 141 here, as everywhere else.
        if isinstance(stop.__context__, BrokenPipeError):
            code = int(silence_stdout())
        else:
            code = _exit_code(stop.code)
    except BrokenPipeError:  # a reader such as `head` stopped early
        code = int(silence_stdout())
    except OSError as error:  # outside a command's handled_errors: help or --version
        if os.environ.get("AGUI_DEBUG") == "1":
            raise
        code = _unwritable_stdout(error)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = int(silence_stdout())
    except OSError as error:  # the last buffered output met a full disk
        if os.environ.get("AGUI_DEBUG") == "1":
            raise
        code = _unwritable_stdout(error)
    try:
        sys.stderr.flush()
        lost = stderr_stream.lost()
    except OSError:  # (a stderr that is not `stderr_stream`'s)
        lost = True
    if lost and code in (ExitCode.OK, ExitCode.FINDINGS):
        # Notices, findings or a summary were lost (a full disk): the result is whole,
        # but the run did not do all it should, and no one could be told. Other codes
        # (2, 3 paused, 4 cancelled, 130, 141) already say the run did not end well.
        code = int(ExitCode.CANNOT_RUN)
    os._exit(code)


def _unwritable_stdout(error: OSError) -> int:
    """Say once that stdout could not take the output (a full disk, a file too large),
    and end with 2: the results are incomplete, whatever the command found. A command
    that already reported this error mid-run is not told twice."""
    if first_report(error):
        sys.stderr.write(f"agui: stdout: {error.strerror or error}\n")
    return int(ExitCode.CANNOT_RUN)


def _exit_code(code: object) -> int:
    """The status `sys.exit(code)` would end the process with."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
