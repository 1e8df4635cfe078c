"""Share numbered pieces of work with a forked helper process, taking results in order.

A large recording is read in pieces (`replay.large.piece_reader`, `replay.large.translate_pieces`):
each piece's work depends only on its bytes, but results must be used in file order.
`in_order` keeps a `Helper` a few pieces ahead — it sends it piece numbers and the
helper sends back each `work(number)`, pickled — and whenever the result it needs next
is not ready, it computes the next unassigned piece itself rather than wait (up to
`OWN_AHEAD` of them). The two processes thus share the work evenly whatever else the
caller does between pieces. A helper that dies or answers out of turn only means the
rest is computed here: results never depend on the helper, only the time they take.

Needs `fork` (else no helper, and everything is computed here).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

AHEAD = 4
"""Pieces handed to the helper before they are needed."""
OWN_AHEAD = 6
"""Pieces computed here ahead of the one needed, rather than wait for the helper."""
PATIENCE = 5.0
"""Seconds the reader waits for the helper's next bytes before giving up on it: a helper
that is frozen (SIGSTOP, swapped out) is dropped like one that died."""
_NUMBER = struct.Struct("<q")
_PROTOCOL = pickle.HIGHEST_PROTOCOL


class Helper:
    """This process's end of the helper: piece numbers out, pickled results back."""

    def __init__(self, pid: int, commands: int, results: int) -> None:
        self._pid = pid
        self._commands = commands
        self._results = results
        self.alive = True

    @classmethod
    def start(cls, work: Callable[[int], Any]) -> Helper | None:
        """Fork a helper computing `work` when the machine has a spare core (else None)."""
        if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
            return None
        commands_in, commands_out = os.pipe()
        results_in, results_out = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for end in (commands_in, commands_out, results_in, results_out):
                os.close(end)
            return None
        if pid == 0:  # the helper: never returns
            code = 0
            try:
                os.close(commands_out)
                os.close(results_in)
                _serve(work, commands_in, results_out)
            except BaseException:  # the caller computes whatever is missing
                code = 1
            finally:
                os._exit(code)
        os.close(commands_in)
        os.close(results_out)
        return cls(pid, commands_out, results_in)

    def send(self, number: int) -> None:
        try:
            _write_all(self._commands, _NUMBER.pack(number))
        except OSError:
            self.alive = False

    def ready(self) -> bool:
        """Whether the next result has started to arrive (or the helper is gone)."""
        if not self.alive:
            return True
        readable, _, _ = select.select([self._results], [], [], 0)
        return bool(readable)

    def receive(self, number: int) -> tuple[bool, Any]:
        """(True, the result for `number`), or (False, None) and the helper dropped."""
        if self.alive:
            try:
                head = _read_exact(self._results, _NUMBER.size, PATIENCE)
                (length,) = _NUMBER.unpack(head)
                answered, value = pickle.loads(_read_exact(self._results, length, PATIENCE))
                if answered == number:
                    return True, value
            except (OSError, EOFError, ValueError, TypeError, struct.error, pickle.PickleError):
                pass
            self.stop()
        return False, None

    def stop(self) -> None:
        """End the helper (whatever it is doing) and reap it."""
        if self._pid == 0:
            return
        self.alive = False
        for fd in (self._commands, self._results):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self._pid, 0)
        self._pid = 0


def in_order(
    count: int,
    helper: Helper | None,
    local: Callable[[int, bool], T],
    accept: Callable[[int, Any], T | None],
    *,
    ahead: int = AHEAD,
    own_ahead: int = OWN_AHEAD,
) -> Iterator[T]:
    """Results for pieces `0..count-1`, in order.

    `local(number, ahead)` computes one here (`ahead`: it is computed before it is
    needed, while waiting for the helper). `accept(number, value)` turns the helper's
    value into a result, or None when it will not do (the helper is then dropped).
    `ahead` and `own_ahead` bound the results in flight (see `AHEAD`, `OWN_AHEAD`): a
    caller whose results are large keeps fewer of them.
    """
    assigned: deque[int] = deque()
    own: dict[int, T] = {}
    next_free = 0
    for number in range(count):
        while True:
            if helper is not None and helper.alive:
                while len(assigned) < ahead and next_free < count:
                    helper.send(next_free)
                    assigned.append(next_free)
                    next_free += 1
            if number in own:
                yield own.pop(number)
                break
            if helper is not None and assigned and assigned[0] == number:
                if not helper.ready() and len(own) < own_ahead and next_free < count:
                    own[next_free] = local(next_free, True)
                    next_free += 1
                    continue
                assigned.popleft()
                received, value = helper.receive(number)
                result = accept(number, value) if received else None
                if result is not None:
                    yield result
                    break
                helper.stop()
                assigned.clear()  # it is gone: whatever it still had is done here
            next_free = max(next_free, number + 1)
            yield local(number, False)
            break


def _serve(work: Callable[[int], Any], commands: int, results: int) -> None:
    """The helper's loop: compute each piece asked for, in order, until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle
    with contextlib.suppress(OSError, AttributeError):  # Linux: room for whole results
        import fcntl

        fcntl.fcntl(results, fcntl.F_SETPIPE_SZ, 1 << 20)
    while True:
        try:
            (number,) = _NUMBER.unpack(_read_exact(commands, _NUMBER.size))
        except (OSError, EOFError):
            return
        payload = pickle.dumps((number, work(number)), _PROTOCOL)
        _write_all(results, _NUMBER.pack(len(payload)) + payload)


def _read_exact(fd: int, length: int, patience: float | None = None) -> bytes:
    """`length` bytes from `fd`; TimeoutError when none come for `patience` seconds."""
    parts: list[bytes] = []
    while length:
        if patience is not None and not select.select([fd], [], [], patience)[0]:
            raise TimeoutError("the helper stopped answering")
        part = os.read(fd, length)
        if not part:
            raise EOFError("the pipe closed")
        parts.append(part)
        length -= len(part)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
