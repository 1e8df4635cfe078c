"""Serve a recording as a live AG-UI endpoint: the HTTP edge, on uvicorn and Starlette.

`agui replay --serve` and the pytest plugin build on this module. The answers come from
`replay.serve.service.ReplayService`; the shared asynchronous stack in `replay.web`
listens (a 1024-deep backlog), reads bounded bodies, streams each frame at the recorded
pace, and shuts down within its deadline even with slow clients connected.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final

from replay.serve.request_log import RequestLog
from replay.serve.serve_options import ServeOptions
from replay.serve.served_runs import Recording, load_recording
from replay.serve.service import ReplayService, new_message_id
from replay.web.listener import BackgroundServer, Endpoint, bind
from replay.web.listener import is_loopback as is_loopback
from replay.web.streaming import StopSignal

DEFAULT_HOST: Final = "127.0.0.1"

Logger = Callable[[RequestLog], None]
Sleep = Callable[[float], None]


class ReplayServer(Endpoint):
    """A running replay endpoint: `start()` in the background or `wait()` until stopped.

    `sleep` is injectable for tests (it runs in a worker thread); by default paced
    streams wait on the stop signal, so `shutdown()` cuts them at once. `cors` names
    the one browser origin allowed to call the server (none by default).
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
        cors: str | None = None,
    ) -> None:
        from replay.serve.app import build_replay_app

        self.service = ReplayService(recording, options, clock, new_id)
        stopping = StopSignal()
        app = build_replay_app(
            self.service, stopping=stopping, logger=logger, sleep=sleep, cors=cors
        )
        super().__init__(BackgroundServer(app, bind(host, port), stopping))


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
    cors: str | None = None,
) -> ReplayServer:
    """Load recordings and start serving them in the background; returns the server."""
    recording = load_recording(names, options)
    return ReplayServer(
        recording, host=host, port=port, options=options, logger=logger, sleep=sleep, cors=cors
    ).start()
