"""`agui translate`: rewrite legacy approval recordings into native interrupt streams.

Presentation only: options, where bytes go, how notices print and the exit code live
here; the translation itself is `replay.jobs.translate.open_translation`.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import typer

from cli.errors import ExitCode, fail, handled_errors, stderr, stderr_line
from replay.wire.problems import Problem
from replay.wire.recording import (
    STDIN,
    STDIN_LABEL,
)


def translate(
    inputs: list[str] = typer.Argument(
        ...,
        metavar="IN...",
        help="Recordings to translate (SSE or NDJSON); '-' reads stdin.",
        show_default=False,
    ),
    output: str | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the translated stream here ('-' = stdout, the default for one input).",
        show_default=False,
    ),
    in_place: bool = typer.Option(
        False, "--in-place", help="Rewrite each input file (atomically)."
    ),
    tools_file: Path | None = typer.Option(
        None,
        "--tools",
        help="JSON tool definitions; adds tanstack:interruptBinding and responseSchema.",
        show_default=False,
    ),
    request_file: Path | None = typer.Option(
        None,
        "--request",
        help="The request body of the recording (default: a NAME.request.json beside it).",
        show_default=False,
    ),
    check: bool = typer.Option(
        False, "--check", help="Write nothing; exit 1 when an input still has legacy events."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Notices as JSON lines (stdout, or stderr when it carries events)."
    ),
) -> None:
    """Translate legacy approval events into the native interrupt terminal.

    Everything that is not legacy is copied byte for byte; a native stream comes out
    unchanged. Exit codes: 0 done (or native under --check), 1 legacy events found
    under --check, 2 cannot run.
    """
    with handled_errors():
        from replay.interrupts.descriptors import load_tools

        if in_place and output is not None:
            raise fail("--in-place and --output cannot be used together")
        if check and (in_place or output is not None):
            raise fail("--check writes nothing; drop --in-place/--output")
        if len(inputs) > 1 and not (in_place or check):
            raise fail("several inputs need --in-place or --check (one output stream each)")
        if in_place and STDIN in inputs:
            raise fail("--in-place cannot rewrite stdin")
        if request_file is not None and len(inputs) > 1:
            raise fail("--request applies to one input")
        if output not in (None, STDIN) and inputs[0] != STDIN:
            target = Path(output).resolve()
            if target == Path(inputs[0]).resolve():
                raise fail(f"{output}: refusing to overwrite the input; use --in-place")
        tools = load_tools(tools_file) if tools_file is not None else None
        events_on_stdout = not check and not in_place and output in (None, STDIN)
        notices_to = sys.stderr if events_on_stdout else sys.stdout
        legacy_files = 0
        for name in inputs:
            changed = _translate_one(
                name,
                tools=tools,
                request_file=request_file,
                check=check,
                in_place=in_place,
                output=output,
                as_json=as_json,
                notices_to=notices_to,
            )
            legacy_files += changed
            if check and not as_json:
                label = STDIN_LABEL if name == STDIN else name
                verdict = "has legacy events" if changed else "native"
                stderr.print(f"{label}: {verdict}", markup=False, soft_wrap=True)
    if check and legacy_files:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _translate_one(
    name: str,
    *,
    tools: list[dict[str, Any]] | None,
    request_file: Path | None,
    check: bool,
    in_place: bool,
    output: str | None,
    as_json: bool,
    notices_to: IO[str],
) -> bool:
    from replay.jobs.translate import open_translation

    with open_translation(name, tools=tools, request_file=request_file) as translation:
        pieces = translation.pieces
        if check:
            for piece in pieces:
                if isinstance(piece, Problem):
                    _print_notice(piece, as_json, notices_to)
            return translation.changed
        destination = name if in_place else output
        if destination in (None, STDIN):
            out = sys.stdout.buffer
            for piece in pieces:
                if isinstance(piece, Problem):
                    _print_notice(piece, as_json, notices_to)
                else:
                    out.write(piece)
            out.flush()
        else:
            assert destination is not None
            _write_atomically(Path(destination), pieces, as_json, notices_to)
    return translation.changed


def _write_atomically(
    target: Path, pieces: Iterator[bytes | Problem], as_json: bool, notices_to: IO[str]
) -> None:
    """Write beside the target, then `os.replace`: a failure never leaves half a file."""
    directory = target.parent if str(target.parent) else Path(".")
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in pieces:
                if isinstance(piece, Problem):
                    _print_notice(piece, as_json, notices_to)
                else:
                    handle.write(piece)
        if target.exists():
            os.chmod(temp_name, target.stat().st_mode & 0o7777)
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _print_notice(problem: Problem, as_json: bool, notices_to: IO[str]) -> None:
    if as_json:
        location = problem.location
        record = {
            "rule": problem.rule,
            "severity": str(problem.severity),
            "message": problem.message,
            "source": location.source if location else None,
            "line": location.line if location else None,
            "offset": location.offset if location else None,
            "index": location.index if location else None,
        }
        notices_to.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    stderr_line(str(problem))
