"""A scripted HTTP server on 127.0.0.1 for the resume client and command tests.

Each POST is logged (path, headers, body) and answered by the route registered for its
path: status, content type, body chunks and optional pauses between them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    """How the server answers one path."""

    body: bytes | list[bytes] = b""
    status: int = 200
    content_type: str = "text/event-stream"
    delay: float = 0.0
    """Seconds to sleep before the first byte (read-timeout tests)."""
    truncate: bool = False
    """Declare a longer Content-Length than sent, then close (mid-response failure)."""
    trickle: float = 0.0
    """Seconds between chunks; with `endless`, the last chunk repeats until the client leaves."""
    endless: bool = False
    """No Content-Length: the body is EOF-delimited and, with `trickle`, never ends."""


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ScriptedServer:
    routes: dict[str, Route] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def scripted_server(routes: dict[str, Route] | None = None) -> Iterator[ScriptedServer]:
    """Run a `ScriptedServer` in a thread for the duration of the block."""
    state = ScriptedServer(routes=dict(routes or {}))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            state.received.append(
                Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            route = state.routes.get(self.path)
            if route is None:
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "9")
                self.end_headers()
                self.wfile.write(b"not found")
                return
            if route.delay:
                time.sleep(route.delay)
            chunks = route.body if isinstance(route.body, list) else [route.body]
            total = sum(len(c) for c in chunks)
            self.send_response(route.status)
            self.send_header("Content-Type", route.content_type)
            if route.endless:
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(total + (50 if route.truncate else 0)))
            self.end_headers()
            try:
                for chunk in chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    time.sleep(route.trickle)
                while route.endless and route.trickle and chunks:
                    self.wfile.write(chunks[-1])
                    self.wfile.flush()
                    time.sleep(route.trickle)
            except OSError:
                return  # the client gave up: what an endless route waits for
            if route.truncate:
                self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def free_port() -> int:
    """A port nobody listens on (bound then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
