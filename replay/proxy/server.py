"""A running proxy: the app of `replay.proxy.app` on the shared background HTTP server."""

from __future__ import annotations

from replay.proxy.app import Logger, ProxyOptions, build_proxy_app
from replay.proxy.live_check import LiveChecker
from replay.web.listener import BackgroundServer, bind, is_loopback
from replay.web.streaming import StopSignal


class ProxyServer:
    """`start()` in the background, `wait()` until stopped, `shutdown()` (idempotent)."""

    def __init__(
        self,
        options: ProxyOptions,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        logger: Logger | None = None,
        checker: LiveChecker | None = None,
    ) -> None:
        self.options = options
        self.checker = checker
        stopping = StopSignal()
        app = build_proxy_app(options, stopping=stopping, logger=logger, checker=checker)
        self._http = BackgroundServer(app, bind(host, port), stopping)

    @property
    def host(self) -> str:
        return self._http.address[0]

    @property
    def port(self) -> int:
        return self._http.address[1]

    @property
    def url(self) -> str:
        host = self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def start(self) -> ProxyServer:
        self._http.start()
        return self

    def wait(self, poll: float = 0.2) -> None:
        self._http.wait(poll)

    def request_stop(self) -> None:
        """Ask `wait()` to return, from any thread, without waiting (see `BackgroundServer`)."""
        self._http.request_stop()

    def shutdown(self) -> None:
        """Stop serving; then wait until every started exchange has been checked."""
        self._http.stop()
        if self.checker is not None:
            self.checker.close()

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
