"""`agui translate`: rewrite legacy approval recordings into native interrupt streams.

Presentation only: options, where bytes go, how notices print and the exit code live
here; the translation itself is `replay.jobs.translate.open_translation`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import nullcontext
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer

from cli.errors import (
    ExitCode,
    describe,
    exit_code_for,
    fail,
    handled_errors,
    stderr,
    stderr_line,
)
from cli.visible_text import visible
from replay.wire.problems import Problem

if TYPE_CHECKING:
    from replay.jobs.translate import Translation


class NoticeFormat(StrEnum):
    """How notices (translate's findings) are printed: the `--format` every command shares."""

    TEXT = "text"
    JSON = "json"


def translate(
    inputs: list[str] = typer.Argument(
        ...,
        metavar="RECORDING...",
        help="Recordings to translate (SSE or NDJSON); '-' reads stdin.",
        show_default=False,
    ),
    output: str | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE",
        help="Write the translated stream here ('-' = stdout, the default for one input).",
        show_default=False,
    ),
    in_place: bool = typer.Option(
        False, "--write", "-w", help="Rewrite each input file in place, atomically."
    ),
    in_place_alias: bool = typer.Option(False, "--in-place", hidden=True),  # the old --write
    tools_file: Path | None = typer.Option(
        None,
        "--tools",
        metavar="FILE",
        help="JSON tool definitions; adds tanstack:interruptBinding and responseSchema.",
        show_default=False,
    ),
    request_file: Path | None = typer.Option(
        None,
        "--request",
        metavar="FILE",
        help="The request body of the recording (default: NAME.request.json beside NAME.sse, "
        "or CASE.request.json / CASE.resume.json beside CASE.run1.sse / CASE.run2.sse).",
        show_default=False,
    ),
    check: bool = typer.Option(
        False, "--check", help="Write nothing; exit 1 when an input still has legacy events."
    ),
    notice_format: NoticeFormat | None = typer.Option(
        None,
        "--format",
        help="Findings report format (the notices): text or json (JSON lines; on stdout, "
        "or on stderr when stdout carries the translated stream).",
        case_sensitive=False,
        show_default=False,
    ),
    # Promised by the README before `--format`: the notices as JSON lines.
    as_json: bool = typer.Option(False, "--json", hidden=True),
) -> None:
    """Translate legacy approval events into the native interrupt terminal.

    Everything that is not legacy is copied byte for byte; a native stream comes out
    unchanged. The stream goes to stdout (or -o FILE, or back into each file with
    --write), one notice per change to stderr. Exit codes: 0 done (or native under
    --check), 1 legacy events found under --check, 2 cannot run.
    """
    in_place = in_place or in_place_alias
    with handled_errors():
        if as_json and notice_format is NoticeFormat.TEXT:
            raise fail("--json and --format text cannot be combined")
        as_json = as_json or notice_format is NoticeFormat.JSON
        from replay.interrupts.descriptors import load_tools
        from replay.wire.recording import STDIN, STDIN_LABEL, refuse_stdin_twice

        refuse_stdin_twice(inputs)

        if output == "":
            raise fail("--output: an empty file name: give a file path, or - for stdout")
        if in_place and output is not None:
            raise fail("--write and --output cannot be used together")
        if check and (in_place or output is not None):
            raise fail("--check writes nothing; drop --write/--output")
        if len(inputs) > 1 and not (in_place or check):
            raise fail("several inputs need --write or --check (one output stream each)")
        if in_place and STDIN in inputs:
            raise fail("--write cannot rewrite stdin")
        if request_file is not None and len(inputs) > 1:
            raise fail("--request applies to one input")
        if output not in (None, STDIN) and inputs[0] != STDIN:
            target = Path(output).resolve()
            if target == Path(inputs[0]).resolve():
                raise fail(f"{output}: refusing to overwrite the input; use --write")
            _refuse_output_over_what_is_read(output, inputs[0], request_file, tools_file)
        tools = load_tools(tools_file) if tools_file is not None else None
        if in_place or output not in (None, STDIN):
            _remove_stale_temp_files(inputs if in_place else [str(output)])
        events_on_stdout = not check and not in_place and output in (None, STDIN)
        notices_to = sys.stderr if events_on_stdout else sys.stdout
        legacy_files = 0
        failed = 0
        for name in inputs:
            try:
                changed, empty = _translate_one(
                    name,
                    tools=tools,
                    request_file=request_file,
                    check=check,
                    in_place=in_place,
                    output=output,
                    as_json=as_json,
                    notices_to=notices_to,
                )
            except Exception as error:
                # One input that cannot be read or written stops only itself: the others
                # are still translated (or checked), and the run ends 2 saying how many
                # were not. Before, the inputs after it were skipped without a word.
                if len(inputs) == 1 or not _own_failure(error):
                    raise
                failed += 1
                fail(describe(error))
                continue
            legacy_files += changed
            if check and not as_json:
                label = STDIN_LABEL if name == STDIN else name
                verdict = "has legacy events" if changed else "no events" if empty else "native"
                stderr.print(f"{label}: {verdict}", markup=False, soft_wrap=True)
    if failed:
        done = "checked" if check else "translated"
        raise fail(f"{failed} of {len(inputs)} inputs not {done} (see above)")
    if check and legacy_files:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _own_failure(error: Exception) -> bool:
    """An error that concerns one input (it cannot be read, or written back), not the
    run: stdout gone or full ends the run, as everywhere."""
    if exit_code_for(error) is None or os.environ.get("AGUI_DEBUG") == "1":
        return False
    return not (isinstance(error, OSError) and error.filename is None)


def _refuse_output_over_what_is_read(
    output: str, name: str, request_file: Path | None, tools_file: Path | None
) -> None:
    """`-o` naming the request body beside the input (or `--request`, `--tools`) would
    replace a file this translation reads, and lose it, before the first byte is read."""
    from cli.overwrites import overwritten_input
    from replay.wire.recording import sidecar_request_path

    read = [path for path in (request_file, tools_file) if path is not None]
    if request_file is None and (sidecar := sidecar_request_path(Path(name))) is not None:
        read.append(sidecar)
    found = overwritten_input([output], read)
    if found is not None:
        raise fail(f"{output}: refusing to overwrite {found[1]}, which this translation reads")


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
) -> tuple[bool, bool]:
    """Translate one input; whether it had legacy events, and whether it had no event."""
    from cli.read_progress import reading_bar
    from replay.jobs.translate import open_translation
    from replay.wire.recording import STDIN

    destination = name if in_place else output
    to_stdout = not check and destination in (None, STDIN)
    # Results on a terminal show progress themselves; JSON notices written raw on
    # stderr would tear a bar there.
    bar_shown = (
        nullcontext(None)
        if as_json and notices_to is sys.stderr
        else reading_bar("translating", results_on_terminal=to_stdout or as_json)
    )
    with (
        bar_shown as bar,
        open_translation(name, tools=tools, request_file=request_file, progress=bar) as translation,
    ):
        pieces = translation.pieces
        if check:
            for piece in pieces:
                if isinstance(piece, Problem):
                    _print_notice(piece, as_json, notices_to)
            return translation.changed, translation.empty
        if to_stdout:
            out = sys.stdout.buffer
            for piece in pieces:
                if isinstance(piece, Problem):
                    _print_notice(piece, as_json, notices_to)
                else:
                    out.write(piece)
            out.flush()
        elif in_place:
            _rewrite_in_place(name, translation, as_json, notices_to)
        else:
            assert destination is not None
            _write_atomically(destination, pieces, as_json, notices_to)
            _request_beside(destination, name, request_file)
    return translation.changed, translation.empty


def _rewrite_in_place(
    name: str, translation: Translation, as_json: bool, notices_to: IO[str]
) -> None:
    """`--write` one input, leaving it alone when there is nothing to translate.

    `translate --write fixtures/*.sse` used to replace every native file with a copy of
    itself (new inode, new mtime: every build tool saw them all change), and refused a
    read-only native file it had no reason to touch. Every rewrite is a notice, so an
    input without one comes out byte for byte as it went in.
    """
    from replay.wire.output_file import OutputFile

    try:
        out = OutputFile(name)
    except PermissionError:
        # Read-only, or a directory it may not write in: an error only if there is
        # something to write. Its notices would describe a rewrite that never happens.
        findings = [piece for piece in translation.pieces if isinstance(piece, Problem)]
        if translation.changed:
            raise
        for finding in findings:
            _print_notice(finding, as_json, notices_to)
        return
    with out:
        for piece in translation.pieces:
            if isinstance(piece, Problem):
                _print_notice(piece, as_json, notices_to)
            else:
                out.write(piece)
        if not translation.changed:
            out.discard()


def _request_beside(output: str, name: str, request_file: Path | None) -> None:
    """Put the request body beside a translation written to a file, as `OUT.request.json`.

    `agui resume --from OUT` builds the continuation from the request beside the
    recording (its messages and tools); without it the resume would post `tools: []`
    and no history. The request is the one the legacy stream answered, unchanged. A file
    already there is never replaced: it is left, with a warning, when it differs.
    """
    from replay.wire.output_file import write_output
    from replay.wire.recording import STDIN, sidecar_request_path

    source = request_file
    if source is None and name != STDIN:
        source = sidecar_request_path(Path(name))
    written = Path(output)
    if source is None or not written.is_file():  # no request, or a device or FIFO
        return
    target = written.with_name(written.stem + ".request.json")
    try:
        body = source.read_bytes()
        if target.exists() or target.is_symlink():
            if target.is_file() and target.read_bytes() == body:
                return
            stderr.print(
                f"agui: warning: {target} is there and differs from {source}; left as it is "
                f"(agui resume --from {output} reads it)",
                markup=False,
                soft_wrap=True,
            )
            return
        write_output(target, body)
    except OSError as error:
        stderr.print(
            f"agui: warning: {target}: cannot write the request beside the translation "
            f"({error.strerror or error}); give it to agui resume with --request {source}",
            markup=False,
            soft_wrap=True,
        )


def _write_atomically(
    target: str, pieces: Iterator[bytes | Problem], as_json: bool, notices_to: IO[str]
) -> None:
    """Write through `replay.wire.output_file`: a failure or a signal never leaves half a file."""
    from replay.wire.output_file import OutputFile

    with OutputFile(target) as out:
        for piece in pieces:
            if isinstance(piece, Problem):
                _print_notice(piece, as_json, notices_to)
            else:
                out.write(piece)


def _remove_stale_temp_files(targets: list[str]) -> None:
    """A SIGKILLed `translate -o`/`--write` left its temp file; this run removes it."""
    from replay.wire.output_file import remove_stale_temp_files
    from replay.wire.recording import STDIN

    def report(line: str) -> None:
        stderr.print(line, markup=False, soft_wrap=True)

    remove_stale_temp_files((name for name in targets if name != STDIN), report)


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
    stderr_line(visible(str(problem)))  # tool names and ids are the recording's
