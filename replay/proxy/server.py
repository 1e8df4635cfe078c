"""A running proxy: the app of `replay.proxy.app` on the shared background HTTP server."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from replay.proxy.app import Logger, ProxyOptions, build_proxy_app
from replay.proxy.live_check import LiveChecker
from replay.resume.client import display_url
from replay.web.listener import BackgroundServer, Endpoint, bind, host_port
from replay.web.streaming import StopSignal
from replay.wire.errors import InvalidRequest

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
"""Listen addresses that take every address of the machine."""


def loops_back(upstream: str, host: str, port: int) -> bool:
    """True when `upstream` is the proxy itself (listening on host:port).

    Forwarding to itself, each request would spawn another without end (thousands a
    second, the client waiting for ever). Names are resolved only when the ports match.
    """
    parts = urlsplit(upstream)
    if parts.scheme != "http" or parts.hostname is None:
        return False  # the proxy speaks plain HTTP: a TLS upstream is another server
    try:
        if (parts.port or 80) != port:
            return False
    except ValueError:
        return False
    targets = _addresses(parts.hostname, port)
    if host in WILDCARD_HOSTS:
        return any(_is_local(address) for address in targets)
    return bool(targets & _addresses(host, port))


def _addresses(host: str, port: int) -> set[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return set()
    return {str(info[4][0]) for info in infos}


def _is_local(address: str) -> bool:
    """An address of this machine: one a socket can be bound to."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


class ProxyServer(Endpoint):
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
        sock = bind(host, port)
        bound = int(sock.getsockname()[1])
        if loops_back(options.upstream, host, bound):
            sock.close()
            raise InvalidRequest(
                f"--upstream {display_url(options.upstream)} is this proxy's own address"
                f" ({host_port(host, bound)}): every request would come back to it; listen on"
                " another port"
            )
        app = build_proxy_app(options, stopping=stopping, logger=logger, checker=checker)
        super().__init__(BackgroundServer(app, sock, stopping))

    def shutdown(self) -> None:
        """Stop serving; then wait until every started exchange has been checked."""
        super().shutdown()
        if self.checker is not None:
            self.checker.close()
