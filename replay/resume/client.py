"""Post one continuation over HTTP and hand back the response body as it streams in.

Synchronous httpx with explicit connect/read timeouts, TLS verified unless the caller
opts out, and no retry of any kind: a continuation is not idempotent, so once bytes
left the socket a failure is reported, never replayed. Every httpx error is mapped to
`TransportFailure` in `transport_failure`, specific types first. Header values never
appear in a message or a recording.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from replay.resume.secret_mask import SecretMask, check_header
from replay.wire.errors import InvalidRequest, TransportFailure

if TYPE_CHECKING:
    import httpx

EVENT_STREAM = "text/event-stream"
STREAM_TYPES = (EVENT_STREAM, "application/x-ndjson", "application/jsonl")
RUN_ID_HEADER = "X-Run-Id"
DEFAULT_URL = "http://127.0.0.1:8000/api/chat"
RESERVED_HEADERS = frozenset({"content-type", "accept", "x-run-id", "content-length", "host"})
"""Headers agui sets itself; a user header with one of these names is refused."""


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """Everything one POST needs. `headers` are user headers; their values stay secret."""

    url: str
    body: bytes
    run_id: str
    headers: tuple[tuple[str, str], ...] = ()
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    verify: bool = True
    max_time: float | None = None
    """Overall deadline in seconds from the start of the POST; None for none."""


@dataclass(frozen=True, slots=True)
class ResponseInfo:
    """Status line facts of a response that passed the checks."""

    status: int
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)


def url_password(url: str) -> str | None:
    """The password of a `user:password@` URL, also in one too broken to post (an
    unclosed IPv6 bracket): it must be masked wherever the URL is shown."""
    try:
        return urlsplit(url).password
    except ValueError:
        authority = url.partition("://")[2].partition("/")[0]
        userinfo, at, _ = authority.rpartition("@")
        password = userinfo.partition(":")[2] if at else ""
        return password or None


def display_url(url: str) -> str:
    """The URL without any `user:password@` part, safe to print."""
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed IPv6 bracket: the credentials are cut out by hand
        scheme, separator, rest = url.partition("://")
        authority, slash, tail = rest.partition("/")
        return f"{scheme}{separator}{authority.rsplit('@', 1)[-1]}{slash}{tail}"
    if "@" not in parts.netloc:
        return url
    # What follows the last `@` as written: a port that is not a number, or an
    # unbracketed IPv6 host, is shown as it is rather than refused here.
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def unusable_url(url: str) -> str | None:
    """Why `url` cannot be posted to (not http or https, no host), or None when it can:
    asked before anything is said about sending, so a typo is one line, not two."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number or out of range)
    except ValueError as error:
        return _one_line(str(error))
    if parts.scheme.lower() not in ("http", "https"):
        return "it needs to start with http:// or https://"
    if not parts.hostname:
        return "it names no host"
    return None


def parse_header(text: str) -> tuple[str, str]:
    """`Name: value` from `-H`; the value is kept but never echoed back."""
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name or any(c.isspace() for c in name):
        # Never echo the text: without a colon it may be all value.
        raise InvalidRequest("-H: expected 'Name: value' (a header name, a colon, the value)")
    check_header(name, "", "-H")
    if name.lower() in RESERVED_HEADERS:
        raise InvalidRequest(f"-H {name}: agui sets this header itself")
    # Only spaces and tabs are trimmed: a trailing CR is refused, not silently dropped.
    value = value.strip(" \t")
    check_header(name, value, f"-H {name}")
    return name, value


def header_from_env(text: str, environ: dict[str, str] | None = None) -> tuple[str, str]:
    """`Name=ENVVAR` from `--header-env`: the value comes from the environment."""
    env = os.environ if environ is None else environ
    name, sep, variable = text.partition("=")
    name, variable = name.strip(), variable.strip()
    if not sep or not name or not variable:
        raise InvalidRequest(f"--header-env {text!r}: expected Name=ENVVAR")
    check_header(name, "", "--header-env")
    if name.lower() in RESERVED_HEADERS:
        raise InvalidRequest(f"--header-env {name}: agui sets this header itself")
    value = env.get(variable)
    if value is None or value == "":
        raise InvalidRequest(f"--header-env {name}: environment variable {variable} is not set")
    check_header(name, value, f"--header-env {name}", value_is=f"environment variable {variable}")
    return name, value


def request_headers(request: HttpRequest) -> dict[str, str]:
    """The headers actually sent: agui's own plus the user's."""
    headers = {
        "Content-Type": "application/json",
        "Accept": EVENT_STREAM,
        RUN_ID_HEADER: request.run_id,
    }
    for name, value in request.headers:
        headers[name] = value
    return headers


def request_mask(request: HttpRequest) -> SecretMask:
    """The secrets of a request: every user header value and any password in the URL."""
    return SecretMask.of([*(value for _name, value in request.headers), url_password(request.url)])


def transport_failure(
    error: Exception, request: HttpRequest, *, answered: bool = True
) -> TransportFailure:
    """The one place httpx errors become one-line `TransportFailure`s, secrets masked.

    `answered` says whether the server's status line had come: a broken exchange
    before it is no "mid-response" failure.
    """
    failure = _transport_failure(error, request, answered=answered)
    return TransportFailure(request_mask(request).apply(str(failure)))


def not_http(error: BaseException) -> bool:
    """True when httpx gave up because the bytes were not HTTP: h11, its parser, said so
    (else the connection was closed or cut).

    Known by the module of the cause (httpcore chains h11's error), so agui needs no
    import of h11, which is httpcore's dependency rather than ours.
    """
    seen: BaseException | None = error
    while seen is not None:
        if type(seen).__module__.split(".")[0] == "h11":
            # h11 words a close before the declared length as "peer closed connection
            # without sending complete message body": a cut, not a foreign protocol
            return not str(seen).startswith("peer closed connection")
        seen = seen.__cause__ or seen.__context__
    return False


def _transport_failure(
    error: Exception, request: HttpRequest, *, answered: bool = True
) -> TransportFailure:
    """The failure for one httpx error type (specific first)."""
    import httpx

    url = display_url(request.url)
    if isinstance(error, httpx.RemoteProtocolError) and not answered:
        detail = _one_line(str(error))
        if not not_http(error):
            return TransportFailure(
                f"{url}: the server closed the connection without answering (the continuation"
                " was sent and is not retried)"
            )
        return TransportFailure(
            f"{url}: the server answered with something that is not HTTP ({detail});"
            " is it the right port?"
        )
    if isinstance(error, httpx.ConnectTimeout):
        return TransportFailure(
            f"{url}: timed out connecting after {request.connect_timeout:g} s (nothing was sent)"
        )
    if isinstance(error, httpx.ReadTimeout):
        return TransportFailure(
            f"{url}: no data for {request.read_timeout:g} s; raise --timeout for slow servers "
            "(the continuation was sent and is not retried)"
        )
    if isinstance(error, httpx.WriteTimeout | httpx.PoolTimeout):
        return TransportFailure(f"{url}: timed out sending the request")
    if isinstance(error, httpx.ConnectError):
        reason = str(error) or "connection refused"
        if "CERTIFICATE_VERIFY_FAILED" in reason or "certificate" in reason.lower():
            return TransportFailure(
                f"{url}: TLS certificate verification failed; use --insecure only if you "
                "trust this server"
            )
        return TransportFailure(f"{url}: cannot connect ({_one_line(reason)}); is the server up?")
    if isinstance(error, httpx.RemoteProtocolError):
        return TransportFailure(
            f"{url}: the server broke the connection mid-response ({_one_line(str(error))})"
        )
    if isinstance(error, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return TransportFailure(f"{url}: not a usable http(s) URL ({_one_line(str(error))})")
    if isinstance(error, httpx.TimeoutException):
        return TransportFailure(f"{url}: timed out")
    if isinstance(error, httpx.TransportError):
        return TransportFailure(f"{url}: network error ({_one_line(str(error)) or 'unknown'})")
    if isinstance(error, httpx.HTTPError):
        return TransportFailure(f"{url}: HTTP error ({_one_line(str(error)) or 'unknown'})")
    return TransportFailure(f"{url}: {_one_line(str(error)) or type(error).__name__}")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def _check_response(response: httpx.Response, request: HttpRequest) -> ResponseInfo:
    url = display_url(request.url)
    content_type = response.headers.get("content-type", "")
    media = content_type.split(";")[0].strip().lower()
    if not 200 <= response.status_code < 300:
        snippet = _one_line(response.read().decode("utf-8", errors="replace"))
        reason = response.reason_phrase or ""
        detail = f": {snippet}" if snippet else ""
        location = response.headers.get("location")
        if response.is_redirect and location:
            # never followed: a continuation is posted once; the user picks the URL
            target = display_url(urljoin(request.url, location))
            detail = f" to {target}; a continuation is not re-posted: use --url {target}"
        message = f"{url}: HTTP {response.status_code} {reason}{detail}".rstrip()
        raise TransportFailure(request_mask(request).apply(message))
    if media not in STREAM_TYPES:
        raise TransportFailure(
            f"{url}: answered with Content-Type {content_type or '(none)'!r}, "
            f"expected {EVENT_STREAM}"
        )
    return ResponseInfo(response.status_code, media, dict(response.headers))


@contextmanager
def stream_post(
    request: HttpRequest,
    *,
    transport: Any | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[tuple[ResponseInfo, Iterator[bytes]]]:
    """POST once; yield the checked response and an iterator over its raw body bytes.

    `transport` is an `httpx.BaseTransport` for tests. No retries: the transport is
    built with `retries=0` and nothing here loops. The body iterator raises
    `TransportFailure` once `request.max_time` has passed.
    """
    import httpx

    # A deadline is checked as bytes arrive; capping each wait at it bounds a silent
    # server too, so the whole exchange ends within twice `max_time` at worst.
    cap = request.max_time if request.max_time is not None else float("inf")
    connect = min(request.connect_timeout, cap)
    timeout = httpx.Timeout(min(request.read_timeout, cap), connect=connect, pool=connect)
    deadline = clock() + cap
    client = httpx.Client(
        timeout=timeout,
        verify=request.verify,
        transport=transport or httpx.HTTPTransport(retries=0, verify=request.verify),
        follow_redirects=False,
        trust_env=False,
    )
    try:
        with client:
            try:
                context = client.stream(
                    "POST", request.url, content=request.body, headers=request_headers(request)
                )
                response = context.__enter__()
            except httpx.HTTPError as error:
                raise _failure(error, request, deadline, clock, answered=False) from None
            try:
                info = _check_response(response, request)
                yield info, _body(response, request, deadline, clock)
            finally:
                context.__exit__(None, None, None)
    except httpx.HTTPError as error:
        raise _failure(error, request, deadline, clock) from None


def _failure(
    error: Exception,
    request: HttpRequest,
    deadline: float,
    clock: Callable[[], float],
    *,
    answered: bool = True,
) -> TransportFailure:
    """A timeout once the deadline passed is the deadline's doing, not the server's."""
    import httpx

    if isinstance(error, httpx.TimeoutException) and clock() >= deadline:
        return _out_of_time(request)
    return transport_failure(error, request, answered=answered)


def _out_of_time(request: HttpRequest) -> TransportFailure:
    return TransportFailure(
        f"{display_url(request.url)}: gave up after --max-time {request.max_time:g} s "
        "(the continuation was sent and is not retried)"
    )


def _body(
    response: httpx.Response, request: HttpRequest, deadline: float, clock: Callable[[], float]
) -> Iterator[bytes]:
    import httpx

    try:
        for chunk in response.iter_raw():
            yield chunk
            if clock() >= deadline:
                raise _out_of_time(request)
    except httpx.HTTPError as error:
        raise _failure(error, request, deadline, clock) from None


class AtomicFile:
    """Bytes for `path` (a `--record` file), put in place on `commit()`.

    The writing itself is `replay.wire.output_file.OutputFile`: through symlinks, straight
    into devices and FIFOs, temp files removed on SIGTERM/SIGHUP, mode kept.
    """

    def __init__(self, path: Path) -> None:
        from replay.wire.output_file import OutputFile

        self._path = path
        self._out = OutputFile(path, make_parents=True)

    @property
    def path(self) -> Path:
        return self._path

    @path.setter
    def path(self, target: Path) -> None:
        """Commit under another name in the same directory (a `.partial.sse`, say); a
        device or FIFO written straight keeps its name (the bytes are in it already)."""
        if self._out.retarget(target):
            self._path = target

    def write(self, data: bytes) -> None:
        self._out.write(data)

    def commit(self, path: Path | None = None) -> None:
        """Put the bytes in place at `path` (default: the path it was opened for)."""
        if path is not None and path != self._path:
            self.path = path
        self._out.commit()

    def discard(self) -> None:
        self._out.discard()


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically."""
    from replay.wire.output_file import OutputFile

    with OutputFile(path, make_parents=True) as out:
        out.write(data)


def record_paths(out: Path) -> tuple[Path, Path]:
    """`OUT.sse` and the `OUT.request.json` beside it (what `--from` pairs back up)."""
    return out, out.with_name(out.stem + ".request.json")


def partial_path(out: Path) -> Path:
    """Where an incomplete response is kept: `OUT.partial.sse`, so `OUT.sse` never looks
    complete when it is not (and `record_paths` pairs it with `OUT.partial.request.json`)."""
    return out.with_name(f"{out.stem}.partial{out.suffix}")


# A variable name the shell expands inside double quotes without surprises.
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def curl_command(
    request: HttpRequest,
    masked: Sequence[str] = (),
    from_environment: Mapping[str, str] | None = None,
) -> str:
    """An equivalent curl command that never shows a secret.

    A header whose value came from an environment variable (`from_environment`: header
    name → variable name, e.g. `Authorization` → `AGUI_TOKEN` with its `Bearer ` prefix
    kept) is written as a `"${VAR}"` reference the shell expands, so the command runs as
    printed; any other user header value is masked as `***`.
    """
    import shlex

    variables = {name.lower(): var for name, var in (from_environment or {}).items()}
    parts = ["curl", "--no-buffer", "-X", "POST", shlex.quote(display_url(request.url))]
    for name, value in request_headers(request).items():
        variable = variables.get(name.lower())
        if variable is not None and ENV_NAME.fullmatch(variable):
            prefix = "Bearer " if value.startswith("Bearer ") and variable == "AGUI_TOKEN" else ""
            parts += ["-H", f'"{name}: {prefix}${{{variable}}}"']
            continue
        shown = value
        if (name, value) in request.headers or name in masked:
            shown = "***"
        parts += ["-H", shlex.quote(f"{name}: {shown}")]
    if not request.verify:
        parts.append("--insecure")
    if request.max_time is not None:
        parts += ["--max-time", f"{request.max_time:g}"]
    parts += [
        "--connect-timeout",
        f"{request.connect_timeout:g}",
        "--data-binary",
        shlex.quote(request.body.decode("utf-8")),
    ]
    return " ".join(parts)
