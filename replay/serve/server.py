"""Serve a recording as a live AG-UI endpoint: the thin `http.server` edge.

`agui replay --serve` and the pytest plugin build on this module. The answers come from
`replay.serve.service.ReplayService`; this module listens, reads bodies, writes chunked event
streams at the recorded pace, and shuts down promptly.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

from replay.serve.request_log import RequestLog, Result
from replay.serve.serve_options import ServeOptions
from replay.serve.served_runs import Recording, load_recording
from replay.serve.service import ReplayService, Reply, new_message_id
from replay.wire.errors import AguiError

DEFAULT_HOST: Final = "127.0.0.1"
MAX_BODY_BYTES: Final = 32 * 1024 * 1024
HANDLER_TIMEOUT_S: Final = 5.0
"""How long a connection may stall while agui reads a request (keeps Ctrl-C prompt)."""
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})


Logger = Callable[[RequestLog], None]
Sleep = Callable[[float], None]


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        service: ReplayService,
        logger: Logger | None,
        sleep: Sleep,
        stopping: threading.Event,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.service = service
        self.logger = logger
        self.sleep = sleep
        self.stopping = stopping
        self.log_lock = threading.Lock()
        super().__init__(address, _Handler)

    def log(self, entry: RequestLog) -> None:
        if self.logger is not None:
            with self.log_lock:
                self.logger(entry)


class _Handler(BaseHTTPRequestHandler):
    server: _HttpServer
    protocol_version = "HTTP/1.1"
    timeout = HANDLER_TIMEOUT_S
    server_version = "agui-replay"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are logged through the service's logger, never the stdlib's stderr."""

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def do_GET(self) -> None:
        path = self._path()
        service = self.server.service
        if path.rstrip("/") == "/health":
            self._answer(service.health("GET", path))
        else:
            self._answer(service.not_found("GET", path))

    def do_OPTIONS(self) -> None:
        # CORS preflight: a browser app on another port may call the replay server.
        self.send_response(204)
        self._cors()
        self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
        self.send_header(
            "Access-Control-Allow-Headers",
            self.headers.get("Access-Control-Request-Headers") or "content-type, x-run-id",
        )
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()

    def do_POST(self) -> None:
        path = self._path()
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            log = RequestLog(self.server.service.stamp(), "POST", path, 413, Result.INVALID)
            self._answer(Reply(413, "text/plain; charset=utf-8", log, b"request body too large\n"))
            return
        try:
            raw = self.rfile.read(length) if length else b""
        except OSError:
            self.close_connection = True
            return
        self._answer(self.server.service.post(path, raw))

    def _refuse(self) -> None:
        path = self._path()
        self._answer(self.server.service.not_found(self.command, path, status=405))

    do_PUT = do_DELETE = do_PATCH = _refuse

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
        self.send_header("Vary", "Origin")

    def _answer(self, reply: Reply) -> None:
        self.server.log(reply.log)
        self.close_connection = True
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self._cors()
            if not reply.streams:
                self.send_header("Content-Length", str(len(reply.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for frame in reply.frames:
                if frame.delay > 0:
                    self.server.sleep(frame.delay)
                if self.server.stopping.is_set():
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(frame.data), frame.data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the client went away; nothing to tell it


class ReplayServer:
    """A running replay endpoint: `start()` in the background or `serve_forever()`.

    `sleep` is injectable for tests; the default waits on the server's stop event, so
    `shutdown()` interrupts paced streams at once.
    """

    def __init__(
        self,
        recording: Recording,
        *,
        host: str = DEFAULT_HOST,
        port: int = 0,
        options: ServeOptions = ServeOptions(),
        logger: Logger | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = new_message_id,
    ) -> None:
        self.service = ReplayService(recording, options, clock, new_id)
        self._stopping = threading.Event()
        self._sleep = sleep if sleep is not None else self._interruptible_sleep
        try:
            self._http = _HttpServer(
                (host, port), self.service, logger, self._sleep, self._stopping
            )
        except OSError as error:
            raise AguiError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
        self._thread: threading.Thread | None = None
        self._closed = False

    def _interruptible_sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    @property
    def host(self) -> str:
        return str(self._http.server_address[0])

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        host = self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def start(self) -> ReplayServer:
        """Serve in a background thread; returns at once (does nothing once shut down)."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(
                target=self._http.serve_forever,
                kwargs={"poll_interval": 0.1},
                name="agui-replay-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def wait(self, poll: float = 0.2) -> None:
        """Block until `shutdown()`; a KeyboardInterrupt propagates to the caller."""
        self.start()
        thread = self._thread
        while thread is not None and thread.is_alive():
            thread.join(poll)

    def shutdown(self) -> None:
        """Stop accepting, cut paced streams short, close every socket. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stopping.set()
        if self._thread is not None:
            self._http.shutdown()
            self._thread.join()
        self._http.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach."""
    if host in LOOPBACK_HOSTS:
        return True
    return host.startswith("127.")


def parse_address(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPV6]:PORT`; `ValueError` with a usable message otherwise."""
    value = text.strip()
    host = DEFAULT_HOST
    port_text = value
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise ValueError(f"invalid address {text!r}: use PORT, HOST:PORT or [IPV6]:PORT")
        port_text = rest[1:]
    elif ":" in value:
        host, _, port_text = value.rpartition(":")
        if ":" in host:
            raise ValueError(f"invalid address {text!r}: write an IPv6 host as [HOST]:PORT")
        host = host or DEFAULT_HOST
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"invalid port in {text!r}: use PORT or HOST:PORT") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"invalid port {port}: use 0 (any free port) to 65535")
    return host, port


def serve(
    names: Sequence[str],
    *,
    host: str = DEFAULT_HOST,
    port: int = 0,
    options: ServeOptions = ServeOptions(),
    logger: Logger | None = None,
    sleep: Sleep | None = None,
) -> ReplayServer:
    """Load recordings and start serving them in the background; returns the server."""
    recording = load_recording(names, options)
    return ReplayServer(
        recording, host=host, port=port, options=options, logger=logger, sleep=sleep
    ).start()
