"""A server on 127.0.0.1 that answers each request with whatever bytes a test chooses.

`tests.resume_http` is a real HTTP server; this one is for what no real server sends:
bytes that are not HTTP, a connection closed or reset without an answer, a chunked body
that breaks, a Content-Length the body never reaches. It reads one request per
connection (its head, and its body up to the declared length) and hands both to the
test's `answer`, which writes to the connection what it likes. `exchange` is its client
side: it sends a real server exactly the bytes a test wrote.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Answer = Callable[[socket.socket, bytes, bytes], None]
"""(the connection, the request head up to its blank line, the request body)."""


@contextmanager
def raw_server(answer: Answer) -> Iterator[str]:
    """Serve on a free port until the block ends; yields `http://127.0.0.1:PORT`."""
    listener = socket.create_server(("127.0.0.1", 0))
    thread = threading.Thread(target=_serve, args=(listener, answer), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() in `_serve`
        listener.close()
        thread.join(5)


def target(head: bytes) -> str:
    """The request target of a request head (`POST /a?b HTTP/1.1` → `/a?b`)."""
    return head.split(b" ")[1].decode()


def reset(conn: socket.socket) -> None:
    """Make closing `conn` send an RST instead of a FIN."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")


def _serve(listener: socket.socket, answer: Answer) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            while len(body) < length:
                body += conn.recv(65536)
            answer(conn, head, body)


def exchange(url: str, request: bytes, timeout: float = 10) -> bytes:
    """Send `request`'s exact bytes to the server at `url` and return all it answers
    (the request should say `Connection: close`). For what no HTTP client sends as
    written: a target it would normalise, a header it would refuse."""
    host, _, port = url.split("//", 1)[1].split("/", 1)[0].rpartition(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer
