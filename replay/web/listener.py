"""Run an ASGI app under uvicorn in a background thread, on a socket bound up front.

Binding the socket ourselves gives a port number at once (`--serve 0`), a clear error
for a busy port before any thread starts, and a listen backlog large enough for a burst
(the standard library's server keeps socketserver's 5 and resets the rest). `stop()`
sets the shared stop flag, which cuts live streams short, and gives uvicorn at most
`SHUTDOWN_DEADLINE_S` to close every connection, slow or half-sent ones included;
`request_drain()` stops accepting but lets every open exchange end whole, however long.
`Endpoint` is what `agui replay --serve` and `agui proxy` build on it.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import TYPE_CHECKING, Final, Self

from replay.web.streaming import StopSignal
from replay.wire.errors import AguiError

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

BACKLOG: Final = 1024
"""Pending connections the kernel queues before refusing (capped by net.core.somaxconn)."""
SHUTDOWN_DEADLINE_S: Final = 2.0
"""How long open connections may take to finish once a stop is asked for."""
KEEP_ALIVE_S: Final = 5
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})
_QUIET_LOGGERS: Final = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach."""
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def bind(host: str, port: int, backlog: int = BACKLOG) -> socket.socket:
    """A listening TCP socket on host:port (0 picks a free port); `AguiError` if refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio only turns Nagle off (TCP_NODELAY) on sockets
    # whose protocol says TCP, and with Nagle on, every kept-alive request waits ~40 ms
    # for a delayed ACK between the header and body writes.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError as error:
        sock.close()
        raise AguiError(
            f"cannot listen on {host_port(host, port)}: {error.strerror or error}"
        ) from None
    return sock


def host_port(host: str, port: int) -> str:
    """`host:port` as an address is written back, an IPv6 host in brackets: `[::1]:8000`."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _silence_uvicorn() -> None:
    """agui reports requests itself; uvicorn's own lines would mix into stderr."""
    for name in _QUIET_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [logging.NullHandler()]
        logger.propagate = False


class BackgroundServer:
    """One uvicorn server on its own thread and event loop.

    `stopping` is the flag streams poll: set by `stop()` before uvicorn is told to
    exit, so a paced or proxied stream ends within a poll interval instead of holding
    the shutdown for its whole length.
    """

    def __init__(
        self,
        app: ASGIApp,
        sock: socket.socket,
        stopping: StopSignal,
        *,
        shutdown_deadline: float = SHUTDOWN_DEADLINE_S,
    ) -> None:
        import uvicorn

        _silence_uvicorn()
        self._sock = sock
        self.stopping = stopping
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="auto",
            backlog=BACKLOG,
            timeout_keep_alive=KEEP_ALIVE_S,
            timeout_graceful_shutdown=max(1, round(shutdown_deadline)),
            server_header=False,
            date_header=False,
        )
        self._server: uvicorn.Server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        # Set when uvicorn has returned. Waited on instead of `Thread.join`: on Python
        # 3.11 and 3.12 a join that Ctrl-C or SIGTERM interrupts marks the still-running
        # thread as stopped, so a later join returned at once and the process ended
        # while streams were still being closed (a proxy recording lost, its temp file
        # left behind).
        self._finished = threading.Event()
        self._closed = False
        self._draining = False
        self._deadline = shutdown_deadline

    @property
    def address(self) -> tuple[str, int]:
        name = self._sock.getsockname()
        return str(name[0]), int(name[1])

    def start(self) -> None:
        """Serve in the background; returns once uvicorn accepts connections."""
        if self._thread is not None or self._closed:
            return
        self._thread = threading.Thread(target=self._run, name="agui-http", daemon=True)
        self._thread.start()
        limit = time.monotonic() + 10
        while not self._server.started and not self._finished.is_set():
            if time.monotonic() > limit:
                raise AguiError("the HTTP server did not start within 10 s")
            time.sleep(0.005)
        if not self._server.started:
            # uvicorn ended in its startup (the app's lifespan failed): it has reported
            # nothing, and a caller waiting on it would return at once with success
            self._closed = True
            self._sock.close()
            raise AguiError("the HTTP server stopped while starting")

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self._sock])
        except SystemExit:
            pass  # uvicorn's word for a failed startup, from its thread: start() says it
        finally:
            self._finished.set()

    def wait(self, poll: float = 0.2) -> None:
        """Block until stopped; a KeyboardInterrupt propagates to the caller."""
        self.start()
        if self._thread is None:
            return
        while not self._finished.wait(poll):
            pass

    def request_stop(self) -> None:
        """Ask for a stop without waiting for it: safe from the server's own thread (a
        request's callback), where `stop()` would wait for itself. `wait()` returns
        once uvicorn has closed everything."""
        self.stopping.set()
        self._server.should_exit = True

    def request_drain(self) -> None:
        """Stop accepting, and let `wait()` return once every open exchange has ended
        on its own: no stream is cut, however long it runs. Safe from any thread.

        For a server whose reason to run is gone (the reader of a proxy's log left) but
        whose clients are mid-stream: a stop would cut them, and uvicorn's graceful
        deadline would cut any stream longer than it. A later `stop()` still cuts what
        is left.
        """
        if self.stopping.is_set():
            return  # a stop is under way: it keeps its deadline
        self._draining = True
        # read by uvicorn's shutdown when it begins, after it sees `should_exit`
        self._server.config.timeout_graceful_shutdown = None
        self._server.should_exit = True

    def stop(self) -> None:
        """Cut streams short, stop accepting, close every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.request_stop()
        if self._thread is not None:
            # uvicorn gives connections the graceful deadline, then cancels them; a drain
            # under way waits without one, so it is ended here instead.
            if self._draining and not self._finished.wait(self._deadline):
                self._server.force_exit = True
            self._finished.wait(self._deadline + 3)
        self._sock.close()


class Endpoint:
    """What `agui replay --serve` and `agui proxy` have in common once built: one
    `BackgroundServer` to `start()` in the background, `wait()` on until stopped, and
    `shutdown()` (idempotent), and the address it listens on."""

    def __init__(self, http: BackgroundServer) -> None:
        self._http = http

    @property
    def host(self) -> str:
        return self._http.address[0]

    @property
    def port(self) -> int:
        return self._http.address[1]

    @property
    def url(self) -> str:
        return f"http://{host_port(self.host, self.port)}"

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def start(self) -> Self:
        """Serve in a background thread; returns once listening (nothing once shut down)."""
        self._http.start()
        return self

    def wait(self, poll: float = 0.2) -> None:
        """Block until `shutdown()`; a KeyboardInterrupt propagates to the caller."""
        self._http.wait(poll)

    def request_stop(self) -> None:
        """Ask `wait()` to return, from any thread, without waiting (see `BackgroundServer`)."""
        self._http.request_stop()

    def request_drain(self) -> None:
        """Stop accepting; `wait()` returns once open exchanges end whole (see
        `BackgroundServer`)."""
        self._http.request_drain()

    def shutdown(self) -> None:
        """Stop accepting, cut streams short, close every socket. Idempotent."""
        self._http.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
