"""The translate job: one recording's translated bytes and notices, read in pieces when
it is a large file and plainly otherwise.

`agui translate` and any Python caller get the same stream from `open_translation`;
where the bytes go (stdout, a file, nowhere under `--check`) is the caller's choice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay.interrupts.descriptors import tool_map
from replay.runs.rules import finding
from replay.translate.notices import LOST
from replay.translate.snapshot import legacy_approval_answers
from replay.translate.translation import Translator, translate_stream
from replay.wire.errors import UnreadableInput
from replay.wire.problems import Location, Problem, Severity
from replay.wire.recording import (
    STDIN,
    STDIN_LABEL,
    har_entries,
    load_request,
    looks_like_har,
    open_input,
    read_chunks,
    refuse_unreadable,
    sidecar_request_path,
)

if TYPE_CHECKING:
    from replay.large.piece_reader import ReadProgress


@dataclass(frozen=True, slots=True)
class Translation:
    """A recording being translated: its output pieces, in order, and whether it had
    anything legacy to rewrite (known once `pieces` is consumed)."""

    source: str
    pieces: Iterator[bytes | Problem]
    translator: Translator

    @property
    def changed(self) -> bool:
        return self.translator.changed

    @property
    def empty(self) -> bool:
        """Whether the recording held no event at all (known once `pieces` is consumed)."""
        return not self.translator.saw_event


@contextmanager
def open_translation(
    name: str,
    *,
    tools: list[dict[str, Any]] | None = None,
    request_file: Path | None = None,
    progress: ReadProgress | None = None,
) -> Iterator[Translation]:
    """Translate recording `name` (`-` is stdin) while the context is open.

    The request body comes from `request_file`, else from a `NAME.request.json` beside
    the recording. A HAR file is refused (`UnreadableInput`): its requests are replayed
    with `agui replay --native` instead. A large file, translated in pieces, tells
    `progress` how far it is.
    """
    request: dict[str, Any] | None = None
    if request_file is not None:
        request = load_request(request_file)
    elif name != STDIN:
        sidecar = sidecar_request_path(Path(name))
        request = load_request(sidecar) if sidecar is not None else None
    translator = Translator(tools=tool_map(tools), request=request)
    with open_input(name) as stream:
        head = stream.read(1 << 16)
        if (name != STDIN and name.lower().endswith(".har")) or looks_like_har(head):
            har_entries(STDIN_LABEL if name == STDIN else name, head + stream.read())
            raise UnreadableInput(
                f"{name}: a HAR file; translate works on SSE/NDJSON recordings"
                " (view a HAR translated with `agui replay --native`)"
            )
        source = STDIN_LABEL if name == STDIN else name
        refuse_unreadable(source, head)
        pieces = None
        if name != STDIN and Path(name).is_file():
            # Only a file can be read in pieces; stdin never pays for importing the reader.
            from replay.large.translate_pieces import translate_file

            pieces = translate_file(source, name, translator, progress)  # large, in pieces
        if pieces is None:
            pieces = _told_when_empty(
                translate_stream(read_chunks(stream, head), source=source, translator=translator),
                source,
                translator,
            )
        yield Translation(source, _told_legacy_answers(pieces, source, request), translator)


def _told_legacy_answers(
    pieces: Iterator[bytes | Problem], source: str, request: dict[str, Any] | None
) -> Iterator[bytes | Problem]:
    """A notice first when the request answered an approval the legacy way: a package
    difference no translation of the response can carry over (README "agui translate").
    Otherwise the pieces themselves: a large file's million pieces pass no extra step."""
    answered = legacy_approval_answers(request)
    if not answered:
        return pieces
    told = Problem(
        LOST,
        Severity.NOTICE,
        f"the request answers {', '.join(answered)} the legacy way (an approval in a"
        " tool-call part), which @tanstack/ai 0.42.0 ran; 0.58.0 ignores it and asks"
        " again: answer natively (`agui resume`, `agui proxy --native`)",
        Location(source),
    )
    return chain((told,), pieces)


def _told_when_empty(
    pieces: Iterator[bytes | Problem], source: str, translator: Translator
) -> Iterator[bytes | Problem]:
    """The pieces, then an `empty-recording` finding when no event came in and nothing
    was said about why: random bytes, a comment-only or an empty stream are still copied
    as they are, but never without a word. (A file read in pieces was cut at its
    `RUN_STARTED` frames, so it has events.)"""
    said = False
    for piece in pieces:
        said = said or isinstance(piece, Problem)
        yield piece
    if not translator.saw_event and not said:
        yield finding("empty-recording", "the recording holds no events", Location(source))
