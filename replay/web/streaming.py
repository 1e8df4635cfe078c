"""Send an event stream frame by frame, and stop it when the client leaves or we shut down.

Starlette's `StreamingResponse` ends every stream with a clean last chunk, even one cut
short by a shutdown, and notices a departed client only on its next write. A proxy
needs both the other way round: a stream cut short must look cut to the client (no
final chunk), and a client that hangs up must cancel the upstream request at once, even
while upstream is silent. `EventStream` does that with a watcher beside the pump.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send


COALESCE_BYTES: Final = 256 * 1024
"""At most this much is read ahead of a slow client (then the source waits)."""


class StreamCut(Exception):
    """Raised by a chunk source: end the response without its final chunk."""


class End(StrEnum):
    """How a stream ended."""

    COMPLETE = "complete"
    CUT = "cut"
    """The source stopped early (shutdown, upstream failure): the client sees a cut."""
    DISCONNECTED = "disconnected"
    """The client hung up first."""


class StopSignal:
    """A stop flag any thread can raise and any event loop can await."""

    def __init__(self) -> None:
        self._flag = threading.Event()
        self._events: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}
        self._lock = threading.Lock()

    def is_set(self) -> bool:
        return self._flag.is_set()

    def set(self) -> None:
        self._flag.set()
        with self._lock:
            waiting = list(self._events.items())
        for loop, event in waiting:
            with contextlib.suppress(RuntimeError):  # that loop has already closed
                loop.call_soon_threadsafe(event.set)

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            event = self._events.setdefault(loop, asyncio.Event())
        if self._flag.is_set():
            return
        await event.wait()

    async def sleep(self, seconds: float) -> bool:
        """Wait `seconds`; True when a stop came first."""
        if self._flag.is_set():
            return True
        waiter = asyncio.ensure_future(self.wait())
        try:
            done, _ = await asyncio.wait({waiter}, timeout=seconds)
        finally:
            waiter.cancel()
        return bool(done)


class EventStream:
    """An ASGI response whose body is `chunks`, sent as each one arrives."""

    def __init__(
        self,
        chunks: AsyncIterator[bytes],
        *,
        stopping: StopSignal,
        status: int = 200,
        headers: Sequence[tuple[str, str]] = (),
        on_end: Callable[[End], None] | None = None,
    ) -> None:
        self.chunks = chunks
        self.stopping = stopping
        self.status = status
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        self.on_end = on_end

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        end = End.CUT
        try:
            await send(
                {"type": "http.response.start", "status": self.status, "headers": self.headers}
            )
            end = await self._race(receive, send)
        finally:
            # Even when the server cancels this task at its shutdown deadline: the source
            # is closed (and the upstream request with it) and `on_end` always hears.
            with contextlib.suppress(Exception):
                await _close(self.chunks)
            # Report first, so whatever the end triggers (a recording moved into place) is
            # done by the time the client sees the stream end.
            if self.on_end is not None:
                self.on_end(end)
        if end is End.COMPLETE:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _race(self, receive: Receive, send: Send) -> End:
        """Pump the chunks until they end, the client leaves, or a stop is asked for."""
        pump = asyncio.ensure_future(self._pump(send))
        watch = asyncio.ensure_future(self._watch(receive))
        try:
            done, _ = await asyncio.wait({pump, watch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (pump, watch):
                task.cancel()
            await asyncio.gather(pump, watch, return_exceptions=True)
        return pump.result() if pump in done and not pump.cancelled() else watch.result()

    async def _pump(self, send: Send) -> End:
        """Send chunks as they come; what arrived together goes out in one write.

        A reader task takes chunks from the source while the previous write is under
        way, up to `COALESCE_BYTES`; the pump sends whatever has gathered at once. When
        the source is slower than the socket (a model, a paced replay) every chunk is
        sent alone the moment it arrives; when it is faster (a burst from upstream), a
        burst costs one write instead of one per event. Nothing ever waits for more.
        """
        pending: list[bytes] = []
        size = 0
        wake = asyncio.Event()
        room = asyncio.Event()
        room.set()
        finished: list[End] = []

        async def read() -> None:
            nonlocal size
            try:
                async for chunk in self.chunks:
                    pending.append(chunk)
                    size += len(chunk)
                    wake.set()
                    if size >= COALESCE_BYTES:
                        room.clear()
                        await room.wait()
                finished.append(End.COMPLETE)
            except StreamCut:
                finished.append(End.CUT)
            finally:
                wake.set()

        reader = asyncio.ensure_future(read())
        try:
            while True:
                if not pending:
                    if finished:
                        return finished[0]
                    if reader.done():
                        reader.result()  # the source failed: raise what it raised
                    wake.clear()
                    await wake.wait()
                    continue
                if self.stopping.is_set():
                    return End.CUT
                body = pending[0] if len(pending) == 1 else b"".join(pending)
                pending.clear()
                size = 0
                room.set()
                await send({"type": "http.response.body", "body": body, "more_body": True})
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def _watch(self, receive: Receive) -> End:
        """Return when the client disconnects or a stop is asked for."""
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            while True:
                message = asyncio.ensure_future(receive())
                done, _ = await asyncio.wait({message, stop}, return_when=asyncio.FIRST_COMPLETED)
                if stop in done:
                    message.cancel()
                    return End.CUT
                if message.result().get("type") == "http.disconnect":
                    return End.DISCONNECTED
        finally:
            stop.cancel()


async def _close(chunks: AsyncIterator[bytes]) -> None:
    closer: Any = getattr(chunks, "aclose", None)
    if closer is not None:
        await closer()
