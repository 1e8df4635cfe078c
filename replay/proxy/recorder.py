"""Write each proxied exchange as a recording agui reads back: `NNN-<runId>.sse` + sidecar.

The response bytes go into the exchange's hidden placeholder (`.NNN.claim`, which also
holds its number: `replay.proxy.numbering`) as they pass, and are given their name when
the stream ends (`replay.proxy.new_name`: a hard link, where there are none a rename
that refuses a taken name, else a copy into a new file), so a reader never sees a torn
file (but while the copy is made) and no file already at that name is ever replaced
(the exchange takes the next free number instead). A stream that
ended early (upstream dropped it, the client left, the proxy stopped) is kept as what
arrived, under `NNN-<runId>.partial.sse`, so a glob of `*.sse` still finds it and
`agui replay --check` reports its missing terminal. The request body goes beside it as
`….request.json` (the sidecar `agui replay` and `agui resume --from` pair up), and the
exchange's status and headers — credentials redacted — as `….exchange.json`.

Recording is a tap: a disk that fills up or a directory that disappears never breaks
the exchange it records. The failure is kept as `Saved.error` (the proxy prints it with
the exchange), the half-written placeholder is removed, and the client's stream goes
on.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

from replay.proxy.headers import redacted
from replay.proxy.new_name import give_name
from replay.proxy.numbering import Numbers, Orphan, Unclaimed, claim_path, orphans

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
NO_RUN_ID: Final = "no-run-id"


def file_stem(number: int, run_id: str | None) -> str:
    """`003-run-17…`: the exchange number, then the run id made safe for a file name."""
    safe = _UNSAFE.sub("_", run_id or "").strip("._")[:80] or NO_RUN_ID
    return f"{number:03d}-{safe}"


@dataclass(frozen=True, slots=True)
class Saved:
    """Where an exchange was written, and whether its stream was complete."""

    stream: Path | None
    """None when the stream could not be written (`error` says why)."""
    complete: bool
    error: str | None = None
    """`not recorded: …` or `recorded without its sidecars: …`; None when all went well."""


def _reason(error: OSError, path: Path) -> str:
    """`PATH: what went wrong`, naming the file the user would look for (never the
    placeholder), the way the rest of agui words a file it cannot write."""
    return f"{path}: {error.strerror or error}"


class Recorder:
    """Numbers exchanges from one past the highest already in the directory.

    Another proxy (or a second `agui proxy` started by mistake) may record into the same
    directory at the same time: each number is claimed by a placeholder only one writer
    can create (`replay.proxy.numbering`), so two exchanges never share a number, and a
    recording is moved into place only under a name nothing holds yet, so none replaces
    another file.
    """

    def __init__(self, directory: Path, *, redact: Iterable[str] = ()) -> None:
        if directory.exists() and not directory.is_dir():
            # mkdir's own word for this is "File exists", which does not say what is wrong
            raise NotADirectoryError(
                errno.ENOTDIR,
                "not a directory; exchanges are recorded into a directory",
                str(directory),
            )
        if directory.is_symlink() and not directory.exists():
            # mkdir says "File exists" here too
            raise FileNotFoundError(
                errno.ENOENT,
                f"a symlink to {os.readlink(directory)}, which does not exist; create that "
                "directory or record elsewhere",
                str(directory),
            )
        directory.mkdir(parents=True, exist_ok=True)
        if not os.access(directory, os.W_OK | os.X_OK):
            # Refused at start: otherwise the proxy runs and every exchange says "not
            # recorded", a session lost before anyone reads the lines.
            raise PermissionError(
                errno.EACCES,
                "cannot create files here; --record needs a directory agui may write to",
                str(directory),
            )
        self.directory = directory
        self.redact = tuple(redact)
        self.numbers = Numbers(directory)

    def open(self, run_id: str | None, request: bytes) -> RecordedExchange:
        """Start writing one exchange (numbers are taken in the order exchanges start)."""
        return RecordedExchange(self, run_id, request)


class RecordedExchange:
    """One exchange being written into its placeholder; `finish()` moves it into place."""

    def __init__(self, recorder: Recorder, run_id: str | None, request: bytes) -> None:
        self.recorder = recorder
        self.run_id = run_id
        self.request = request
        self._bytes = 0
        self._failure: str | None = None
        self._claim: Path | None = None
        self._stream: BinaryIO | None = None
        self._lock = -1
        """A second descriptor of the placeholder, keeping its lock (`numbering._hold`)
        after the stream is closed, until the bytes are in place: a proxy starting
        meanwhile must not take them for a killed proxy's (`recover_killed`)."""
        try:
            claim = recorder.numbers.take()
        except Unclaimed as refused:
            self._number(refused.number)
            self._failure = _reason(refused.error, self._target(complete=True))
            return
        self._number(claim.number)
        self._claim = claim.path
        try:
            self._lock = os.dup(claim.fd)
        except OSError as error:  # no descriptor left (EMFILE): not recorded, nothing leaks
            os.close(claim.fd)
            self._fail(error, self._target(complete=True))
            return
        # Unbuffered: each chunk is on disk (in the page cache) once it has passed, so a
        # proxy killed mid-stream (SIGKILL, no chance to flush) loses none of what the
        # client already got. A chunk is an event or a few: one write each is cheap.
        self._stream = os.fdopen(claim.fd, "wb", buffering=0)

    def _number(self, number: int) -> None:
        self.number = number
        self.stem = file_stem(number, self.run_id)

    def _target(self, *, complete: bool) -> Path:
        stem = self.stem if complete else f"{self.stem}.partial"
        return self.recorder.directory / f"{stem}.sse"

    def write(self, chunk: bytes) -> None:
        if self._stream is None:
            return
        try:
            view = memoryview(chunk)
            while view:  # an unbuffered write may take only part of it
                written = self._stream.write(view)
                if not written:  # (none taken: never on a file, but never loop on it)
                    raise OSError(errno.EIO, "the file took none of the bytes")
                view = view[written:]
        except OSError as error:
            self._fail(error, self._target(complete=True))
            return
        self._bytes += len(chunk)

    def _fail(self, error: OSError, path: Path) -> None:
        """Give up on this recording: note why and remove the half-written placeholder."""
        self._failure = _reason(error, path)
        self.discard()

    def finish(
        self,
        *,
        complete: bool,
        method: str,
        path: str,
        status: int,
        request_headers: Iterable[tuple[str, str]],
        response_headers: Iterable[tuple[str, str]],
        end: str,
    ) -> Saved:
        """Move the stream into place (as `.partial.sse` when incomplete) with its sidecars.

        Never raises for the disk: what could not be written is `Saved.error`.
        """
        if self._stream is not None:
            try:
                self._stream.close()  # the last bytes reach the disk, or the error shows
            except OSError as error:
                self._fail(error, self._target(complete=complete))
        if self._claim is None:
            return Saved(None, complete, f"not recorded: {self._failure}")
        try:
            target = self._place(complete=complete)
        except OSError as error:
            self._fail(error, self._target(complete=complete))
            return Saved(None, complete, f"not recorded: {self._failure}")
        self._stream = None
        self._claim = None
        self._let_go()
        meta: dict[str, Any] = {
            "exchange": self.number,
            "method": method,
            "path": path,
            "status": status,
            "complete": complete,
            "end": end,
            "bytes": self._bytes,
            "requestHeaders": redacted(request_headers, self.recorder.redact),
            "responseHeaders": redacted(response_headers, self.recorder.redact),
        }
        text = json.dumps(meta, indent=2, ensure_ascii=False) + "\n"
        stem = target.name.removesuffix(".sse")
        sidecars = [("exchange.json", text.encode("utf-8"))]
        if _is_object(self.request):
            sidecars.insert(0, ("request.json", self.request))
        for kind, data in sidecars:
            sidecar = target.with_name(f"{stem}.{kind}")
            try:
                self._write_new(claim_path(target.parent, self.number, kind), sidecar, data)
            except OSError as error:
                # the stream itself is in place and replays on its own
                reason = _reason(error, sidecar)
                return Saved(target, complete, f"recorded without its sidecars: {reason}")
        return Saved(target, complete)

    def _place(self, *, complete: bool) -> Path:
        """Link the placeholder to its recording's name; a name some other file holds
        (one the user put there, say) is never replaced: the exchange takes a new number."""
        assert self._claim is not None
        while True:
            target = self._target(complete=complete)
            try:
                give_name(self._claim, target)
            except FileExistsError:
                try:
                    claim = self.recorder.numbers.take()
                except Unclaimed as refused:
                    raise refused.error from None
                try:
                    os.replace(self._claim, claim.path)  # the bytes move to the new number
                except OSError:
                    with contextlib.suppress(OSError):  # the new number's empty placeholder
                        os.unlink(claim.path)
                    raise
                finally:
                    # (closed only now: until the bytes took its name, the new number's
                    # placeholder had to stay locked, as every placeholder is)
                    os.close(claim.fd)
                self._claim = claim.path
                self._number(claim.number)
                continue
            return target

    @staticmethod
    def _write_new(temp: Path, target: Path, data: bytes) -> None:
        """Write a sidecar beside, then link it to `target` (never over another file)."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(temp, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            give_name(temp, target)
        finally:
            with contextlib.suppress(OSError):  # a hidden leftover at worst
                os.unlink(temp)

    def discard(self) -> None:
        """Drop what was written: the placeholder goes, and the number with it."""
        if self._stream is not None:
            with contextlib.suppress(OSError):
                self._stream.close()
            self._stream = None
        if self._claim is not None:
            # A directory that refuses the removal too (made read-only meanwhile) keeps
            # the placeholder, hidden, as a killed proxy would: never an exception here.
            with contextlib.suppress(OSError):
                os.unlink(self._claim)
            self._claim = None
        self._let_go()

    def _let_go(self) -> None:
        """Close the descriptor that keeps the placeholder locked."""
        if self._lock >= 0:
            with contextlib.suppress(OSError):
                os.close(self._lock)
            self._lock = -1


@dataclass(frozen=True, slots=True)
class Recovered:
    """A placeholder a killed proxy left behind, and what became of it."""

    placeholder: Path
    kept: Path | None
    """Where its bytes are now: None when it held none (it is removed) or when they
    could not be moved (`error` says why; the placeholder stays)."""
    size: int
    error: str | None = None
    placed: bool = False
    """The killed proxy had already given its bytes their name, `kept` (it was killed
    between linking them into place and removing the placeholder): only the placeholder
    is removed."""


RUN_ID_LOOK: Final = 1 << 16
"""Bytes of a recovered stream searched for its run id (its first event names it)."""


def recover_killed(directory: Path) -> list[Recovered]:
    """Placeholders left by proxies killed mid-stream (SIGKILL, a crash, the machine
    going down): each holds what its client had been sent, and is kept as the
    incomplete recording it is, `NNN-<runId>.partial.sse` under its own number (the run
    id read from its first event naming one; never over another file: when that name is
    taken, under the next free number), or removed when nothing had reached it, or when
    the killed proxy had already linked its bytes into place (`Recovered.placed`).
    A placeholder a live proxy is writing is never touched: it is locked
    (`replay.proxy.numbering.orphans`). Its request body is not recovered: it was to be
    written when the stream ended."""
    recovered: list[Recovered] = []
    for orphan in orphans(directory):
        try:
            held = os.fstat(orphan.fd)
            size = held.st_size
            if size == 0:
                os.unlink(orphan.path)
                recovered.append(Recovered(orphan.path, None, 0))
                continue
            placed = _other_name(orphan.path, held) if held.st_nlink > 1 else None
            if placed is not None:  # a second name would record the exchange twice
                os.unlink(orphan.path)
                recovered.append(Recovered(orphan.path, placed, size, placed=True))
                continue
            head = os.pread(orphan.fd, RUN_ID_LOOK, 0)
            try:
                target = _keep(orphan, _first_run_id(head))
            except _NotKept as refused:
                reason = _reason(refused.error, refused.target)
                recovered.append(Recovered(refused.placeholder, None, size, reason))
            else:
                recovered.append(Recovered(orphan.path, target, size))
        except OSError as error:
            recovered.append(Recovered(orphan.path, None, 0, _reason(error, orphan.path)))
        finally:
            os.close(orphan.fd)
    return recovered


class _NotKept(Exception):
    """A killed proxy's bytes could not be given a name: why, the name, and the
    placeholder they are still in (a new number's, once their own name was taken)."""

    def __init__(self, error: OSError, target: Path, placeholder: Path) -> None:
        super().__init__(error, target, placeholder)
        self.error = error
        self.target = target
        self.placeholder = placeholder


def _keep(orphan: Orphan, run_id: str | None) -> Path:
    """Link a killed proxy's placeholder to `NNN-<runId>.partial.sse`. A name some other
    file holds is never replaced: the bytes take a new number, as a live exchange's do
    (`RecordedExchange._place`), so they are kept now rather than left hidden, and
    warned about, at every start."""
    directory = orphan.path.parent
    placeholder, number = orphan.path, orphan.number
    numbers: Numbers | None = None
    while True:
        target = directory / f"{file_stem(number, run_id)}.partial.sse"
        try:
            give_name(placeholder, target)
        except FileExistsError:
            numbers = numbers or Numbers(directory)
            try:
                claim = numbers.take()
            except Unclaimed as refused:
                raise _NotKept(refused.error, target, placeholder) from None
            try:
                # The bytes move to the new number's placeholder, which holds it: until
                # they have their name, they are a placeholder like any other. (They
                # stay locked meanwhile: the lock is on the file, held by `orphan.fd`.)
                os.replace(placeholder, claim.path)
            except OSError as error:
                with contextlib.suppress(OSError):
                    os.unlink(claim.path)
                raise _NotKept(error, target, placeholder) from None
            finally:
                os.close(claim.fd)
            placeholder, number = claim.path, claim.number
        except OSError as error:
            raise _NotKept(error, target, placeholder) from None
        else:
            return target


def _other_name(placeholder: Path, held: os.stat_result) -> Path | None:
    """The name beside `placeholder` that its file also has (its recording, linked into
    place by the proxy that was killed before it removed the placeholder)."""
    try:
        entries = list(os.scandir(placeholder.parent))
    except OSError:
        return None
    for entry in entries:
        if entry.name == placeholder.name:
            continue
        with contextlib.suppress(OSError):
            found = entry.stat(follow_symlinks=False)
            if (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino):
                return placeholder.parent / entry.name
    return None


def _first_run_id(head: bytes) -> str | None:
    """The first `runId` an event names in a stream's first bytes: a continuation's
    starts with events that name none (`TOOL_CALL_RESULT`s, a 0.42.0 follow-up's replayed
    call) before its `RUN_STARTED`, whose run id the request gave the live proxy too."""
    for line in head.split(b"\n"):
        if line.startswith(b"data:"):
            try:
                data = json.loads(line[5:].decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                continue
            run_id = data.get("runId") if isinstance(data, dict) else None
            if isinstance(run_id, str):
                return run_id
    return None


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8", errors="replace")), dict)
    except (ValueError, RecursionError):
        return False
