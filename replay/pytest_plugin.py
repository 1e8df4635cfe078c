"""agui's pytest plugin: serve recordings to the code under test, and assert streams are clean.

Loaded through the `pytest11` entry point whenever agui is installed. It adds the
`agui_serve` fixture (a factory: `agui_serve(path, pace="fast", **options) -> url`,
serving a recording on a free 127.0.0.1 port until the test ends) and the
`assert_agui_clean(path_or_text)` helper, which replays a recording or a captured
stream through agui's checks and fails the test with the findings. The checking is the
replay-check job itself (`replay.jobs.replay_check`, the one `agui replay --check`
runs), so the plugin and the command cannot drift apart. Importing this module
costs nothing beyond pytest: the stream layer is imported when a fixture or the helper
is first used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from replay.runs.transcript import RunTranscript
    from replay.serve.server import ReplayServer
    from replay.wire.events import RecordedEvent
    from replay.wire.problems import Problem
    from replay.wire.recording import Exchange

PathLike = str | os.PathLike[str]
Serve = Callable[..., str]

__all__ = ["agui_findings", "agui_serve", "assert_agui_clean"]


@pytest.fixture
def agui_serve() -> Iterator[Serve]:
    """Serve a recording for this test: `url = agui_serve("run.sse", pace="fast")`.

    `path` is one recording or a list of them (one timeline). Options: `pace`
    (`"fast"`, `"real"` or a speed factor), `verbatim`, `line_endings` (`"lf"`/`"crlf"`),
    `native`, `tools` (a list of tool declarations or a JSON file), `host`, `port`,
    `cors` (the one browser origin allowed to call it; none by default).
    Every server is stopped when the test ends.
    """
    servers: list[ReplayServer] = []

    def serve(
        path: PathLike | Sequence[PathLike], pace: str | float = "fast", **options: Any
    ) -> str:
        server = _start(path, pace, options)
        servers.append(server)
        return server.url

    try:
        yield serve
    finally:
        for server in servers:
            server.shutdown()


def _start(
    path: PathLike | Sequence[PathLike], pace: str | float, options: dict[str, Any]
) -> ReplayServer:
    from replay.serve.serve_options import LineEnding, Pace, ServeOptions
    from replay.serve.served_runs import load_recording
    from replay.serve.server import ReplayServer

    names = (
        [os.fspath(path)] if isinstance(path, str | os.PathLike) else [os.fspath(p) for p in path]
    )
    host = str(options.pop("host", "127.0.0.1"))
    port = int(options.pop("port", 0))
    tools = options.pop("tools", None)
    cors = options.pop("cors", None)
    if isinstance(tools, str | os.PathLike):
        from replay.wire.recording import load_request

        loaded: Any = load_request(Path(tools)) if Path(tools).suffix == ".json" else None
        tools = loaded.get("tools") if isinstance(loaded, dict) else loaded
    serve_options = ServeOptions(
        pace=Pace.parse(str(pace)),
        verbatim=bool(options.pop("verbatim", False)),
        line_ending=LineEnding(str(options.pop("line_endings", "lf")).lower()),
        native=bool(options.pop("native", False)),
        tools=tools,
    )
    if options:
        raise TypeError(f"agui_serve: unknown option(s) {', '.join(sorted(options))}")
    recording = load_recording(names, serve_options)
    return ReplayServer(recording, host=host, port=port, options=serve_options, cors=cors).start()


def agui_findings(
    path_or_text: PathLike | bytes, *, native: bool = False, tools: Any = None
) -> list[Problem]:
    """Every finding agui reports for a recording file or a captured stream, in order:
    the replay-check job's (`replay.jobs.replay_check`), as `agui replay --check` gets
    them."""
    from replay.jobs.replay_check import check_recordings

    findings = _Findings()
    if isinstance(path_or_text, os.PathLike):
        check_recordings([os.fspath(path_or_text)], findings, native=native, tools=tools)
        return findings.found
    text = path_or_text
    # A one-line string naming an existing file is a path; anything else is stream text.
    if isinstance(text, str) and "\n" not in text and text.strip() and Path(text).is_file():
        check_recordings([text], findings, native=native, tools=tools)
        return findings.found
    from replay.wire.recording import Exchange
    from replay.wire.sse import decode_bytes

    data = text if isinstance(text, bytes) else text.encode("utf-8")
    stream = ("<stream>", [Exchange("<stream>", decode_bytes(data))])
    check_recordings([stream], findings, native=native, tools=tools)
    return findings.found


class _Findings:
    """The job's view for the plugin: it keeps the findings and shows nothing. It asks for
    events one by one, so the job reads them plainly and renders no `--json` lines."""

    per_event = True

    def __init__(self) -> None:
        self.found: list[Problem] = []

    def source(self, exchange: Exchange) -> None:
        """Each finding names its own source: a new exchange says nothing more."""

    def event(self, event: RecordedEvent) -> None:
        """A test asserts on findings, not on the events it already holds."""

    def line(self, item: object) -> None:
        """Not asked for: a per-event view gets no `--json` lines."""

    def run(self, run: RunTranscript) -> None:
        """A run's findings follow it; the run itself is not reported."""

    def problem(self, problem: Problem) -> None:
        self.found.append(problem)


def assert_agui_clean(
    path_or_text: PathLike | bytes, *, strict: bool = False, native: bool = False, tools: Any = None
) -> list[Problem]:
    """Fail the test with agui's findings unless the recording or stream is clean.

    Errors fail (and warnings too with `strict=True`), exactly as `agui replay --check`
    exits 1; notices never fail. Returns every finding, notices included.
    """
    from replay.runs.rules import is_failure

    found = agui_findings(path_or_text, native=native, tools=tools)
    failures = [problem for problem in found if is_failure(problem, strict=strict)]
    if failures:
        lines = "\n".join(f"  {problem}" for problem in failures)
        plural = "finding" if len(failures) == 1 else "findings"
        pytest.fail(f"agui: {len(failures)} {plural}:\n{lines}", pytrace=False)
    return found
