"""The proxy's Starlette app: each request forwarded upstream, each answer streamed back.

Pass-through keeps bytes as they are: the body goes up untouched (even one TanStack
would refuse), the status, headers (hop-by-hop ones aside) and body come back as they
arrive, chunk by chunk. A client that hangs up closes the upstream request. A plain
POST (no taps, an `http://` upstream) goes through the lean pipe of
`replay.proxy.upstream`; everything else, and every request when `fast_path` is off,
through httpx — the pipe's plain twin. When the
upstream cannot be reached or drops an event stream, the client gets one `RUN_ERROR`
frame with the reason and the proxy carries on. Taps on the way back write the
exchange to disk (`--record`) and check it (`--check`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from replay.proxy.bridge import (
    UNSUPPORTED,
    NativeStream,
    Unbridgeable,
    is_continuation,
    legacy_follow_up,
)
from replay.proxy.failures import run_error_frame, upstream_reason
from replay.proxy.headers import end_to_end, header
from replay.proxy.live_check import ExchangeCheck, LiveChecker
from replay.proxy.recorder import RecordedExchange, Recorder
from replay.proxy.upstream import Pipe, UpstreamError, pipe_target
from replay.resume.client import display_url
from replay.web.bodies import UnreadableBody, read_body
from replay.web.cors import with_cors
from replay.web.request_target import sent_path
from replay.web.routing import every_request_app
from replay.web.streaming import End, EventStream, StopSignal, StreamCut
from replay.wire import bounded_json
from replay.wire.canonical import wire_json

if TYPE_CHECKING:
    import httpx
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp

_T = TypeVar("_T")

CONNECT_TIMEOUT_S: Final = 10.0
READ_TIMEOUT_S: Final = 300.0
"""A model may think for minutes between events; a silent upstream fails after this."""


@dataclass(frozen=True, slots=True)
class ProxyOptions:
    """What `agui proxy` was asked to do."""

    upstream: str
    record: Path | None = None
    check: bool = False
    redact: tuple[str, ...] = ()
    cors: str | None = None
    native: bool = False
    tools: Any = None
    fast_path: bool = True
    """Plain POSTs through the lean pipe; False sends everything through httpx."""


@dataclass(frozen=True, slots=True)
class ExchangeLog:
    """One exchange, for the request log on stderr: never a header or a body."""

    number: int
    method: str
    path: str
    status: int
    run_id: str | None = None
    parent_run_id: str | None = None
    end: str = "complete"
    detail: str | None = None
    saved: Path | None = None


Logger = Callable[[ExchangeLog], None]


@dataclass
class _Session:
    """What lives as long as the proxy: the upstream client, recorder, checker, counter."""

    options: ProxyOptions
    logger: Logger | None
    recorder: Recorder | None
    checker: LiveChecker | None
    client: httpx.AsyncClient | None = None
    pipe: Pipe | None = None
    count: int = 0
    clock: Callable[[], float] = field(default=time.time)

    @property
    def shown_upstream(self) -> str:
        """The upstream URL as messages show it: a `user:password@` part left out (the
        reasons go to the terminal, the `--json` log and the client's `RUN_ERROR`)."""
        return display_url(self.options.upstream)

    def next_number(self) -> int:
        self.count += 1
        return self.count


def target_url(upstream: str, path: str, query: str) -> str:
    """The upstream URL for a request path: the upstream's own path, then the request's."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(upstream)
    base = parts.path.rstrip("/")
    joined = base + path if path != "/" or not base else base
    return urlunsplit((parts.scheme, parts.netloc, joined or "/", query, ""))


def build_proxy_app(
    options: ProxyOptions,
    *,
    stopping: StopSignal,
    logger: Logger | None = None,
    checker: LiveChecker | None = None,
) -> ASGIApp:
    """The proxy as an ASGI app; its upstream client lives as long as the server."""
    import httpx

    recorder = (
        Recorder(options.record, redact=options.redact) if options.record is not None else None
    )
    session = _Session(options, logger, recorder, checker)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S, pool=None),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=100),
            follow_redirects=False,
        )
        client.headers.clear()  # forward the client's headers, not httpx's defaults
        session.client = client
        target = pipe_target(options.upstream) if options.fast_path else None
        if target is not None:
            session.pipe = Pipe(
                *target, connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S
            )
        try:
            yield
        finally:
            if session.pipe is not None:
                session.pipe.close()
            await client.aclose()

    async def endpoint(request: Request) -> Response | EventStream:
        return await _forward(session, request, stopping)

    return with_cors(every_request_app(endpoint, lifespan=lifespan), options.cors)


async def _forward(
    session: _Session, request: Request, stopping: StopSignal
) -> Response | EventStream:
    import httpx
    from starlette.responses import Response

    number = session.next_number()
    method = request.method
    path = sent_path(request.scope)  # the log's: as sent, still percent-encoded
    try:
        body = await read_body(request)
    except UnreadableBody as error:
        _log(session, ExchangeLog(number, method, path, error.status, detail=str(error)))
        return Response(error.answer, error.status, media_type="text/plain")
    ids = _ids(body)
    # The path as the client sent it: decoded, `/a%2Fb` would reach the upstream as `/a/b`
    raw_path = request.scope.get("raw_path")
    forwarded = (
        raw_path.decode("latin-1") if isinstance(raw_path, bytes) and raw_path else request.url.path
    )
    url = target_url(session.options.upstream, forwarded, request.url.query)
    posted = _json_object(body)
    native = session.options.native
    sent = body
    if native and is_continuation(posted):
        assert posted is not None
        try:
            sent = wire_json(legacy_follow_up(posted)).encode("utf-8")
        except Unbridgeable as error:
            reason = str(error)
            entry = ExchangeLog(number, method, path, 200, *ids, end="refused", detail=reason)
            _log(session, entry)
            frame = run_error_frame(reason, code=UNSUPPORTED, clock=session.clock)
            return _event_response(frame)
    tapped = native or session.recorder is not None or session.checker is not None
    sent_headers = end_to_end(request.headers.items(), drop=("host", "content-length"))
    if tapped or header(sent_headers, "accept-encoding") is None:
        # Recording and checking need the bytes as text; a client that asked for no
        # encoding must not get httpx's default gzip either.
        sent_headers = [(k, v) for k, v in sent_headers if k.lower() != "accept-encoding"]
        sent_headers.append(("accept-encoding", "identity"))
    plain = session.pipe is not None and not tapped and method == "POST"
    if plain and header(sent_headers, "expect") is None:  # 100-continue stays with httpx
        return await _pipe(session, stopping, number, request, url, sent_headers, body, ids)
    assert session.client is not None
    upstream_request = session.client.build_request(method, url, headers=sent_headers, content=sent)
    try:
        sending = session.client.send(upstream_request, stream=True)
        response = await _unless_abandoned(sending, request, stopping)
    except httpx.HTTPError as error:
        return _failed(session, error, number, method, path, ids)
    except _Abandoned as gone:
        return _abandoned(session, gone, number, method, path, ids)
    back_headers = end_to_end(response.headers.multi_items())
    streams = (header(back_headers, "content-type") or "").startswith("text/event-stream")
    record = session.recorder.open(ids[0], body) if session.recorder and streams else None
    check = session.checker.begin(number, posted) if session.checker and streams else None
    translate = NativeStream(posted, session.options.tools) if native and streams else None
    if translate is not None:
        # The translated body has its own length; chunked framing replaces the upstream's.
        back_headers = [(k, v) for k, v in back_headers if k.lower() != "content-length"]
    state = _Flow()

    def on_end(end: End) -> None:
        complete = end is End.COMPLETE and state.failure is None
        saved = None
        details = [state.failure] if state.failure else []
        if record is not None:
            written = record.finish(
                complete=complete,
                method=method,
                path=path,
                status=response.status_code,
                request_headers=request.headers.items(),
                response_headers=response.headers.multi_items(),
                end=state.failure or str(end),
            )
            saved = written.stream
            if written.error is not None:
                details.append(written.error)
        if check is not None:
            check.end()
        outcome = "complete" if complete else ("failed" if state.failure else str(end))
        entry = ExchangeLog(
            number,
            method,
            path,
            response.status_code,
            *ids,
            end=outcome,
            detail="; ".join(details) or None,
            saved=saved,
        )
        _log(session, entry)

    chunks = _relay(
        response.aiter_raw(), response.aclose, translate, record, check, state, streams, session
    )
    return EventStream(
        chunks, stopping=stopping, status=response.status_code, headers=back_headers, on_end=on_end
    )


async def _pipe(
    session: _Session,
    stopping: StopSignal,
    number: int,
    request: Request,
    url: str,
    sent_headers: list[tuple[str, str]],
    body: bytes,
    ids: tuple[str | None, str | None],
) -> Response | EventStream:
    """Plain pass-through of a POST over the lean pipe: no taps, bytes as they come."""
    from urllib.parse import urlsplit

    method, path = request.method, sent_path(request.scope)
    parts = urlsplit(url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    assert session.pipe is not None
    try:
        sending = session.pipe.send(method, target, sent_headers, body)
        response = await _unless_abandoned(sending, request, stopping)
    except UpstreamError as error:
        return _failed(session, error, number, method, path, ids)
    except _Abandoned as gone:
        return _abandoned(session, gone, number, method, path, ids)
    back_headers = end_to_end(response.headers)
    streams = (header(back_headers, "content-type") or "").startswith("text/event-stream")
    state = _Flow()

    def on_end(end: End) -> None:
        complete = end is End.COMPLETE and state.failure is None
        outcome = "complete" if complete else ("failed" if state.failure else str(end))
        status = response.status_code
        _log(session, ExchangeLog(number, method, path, status, *ids, outcome, state.failure))

    chunks = _relay(response.chunks(), response.aclose, None, None, None, state, streams, session)
    return EventStream(
        chunks, stopping=stopping, status=response.status_code, headers=back_headers, on_end=on_end
    )


def _failed(
    session: _Session,
    error: Exception,
    number: int,
    method: str,
    path: str,
    ids: tuple[str | None, str | None],
) -> Response:
    reason = upstream_reason(error, session.shown_upstream, answered=False)
    _log(session, ExchangeLog(number, method, path, 200, *ids, end="failed", detail=reason))
    return _event_response(run_error_frame(reason, clock=session.clock))


class _Abandoned(Exception):
    """The exchange ended before the upstream answered: the client left, or a stop."""

    def __init__(self, end: End, detail: str) -> None:
        super().__init__(detail)
        self.end = end
        self.detail = detail


async def _unless_abandoned(sending: Awaitable[_T], request: Request, stopping: StopSignal) -> _T:
    """Wait for the upstream's answer unless the client leaves or the proxy stops first.

    A model may think for a long time before its first byte; a client that gave up
    meanwhile must not leave the upstream request running (and billing) until the
    read timeout. Cancelling the send closes its upstream connection on both paths.
    """
    answer = asyncio.ensure_future(sending)
    gone = asyncio.ensure_future(_client_gone(request))
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({answer, gone, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (gone, stop):
            task.cancel()
        if not answer.done():
            answer.cancel()
        await asyncio.gather(answer, gone, stop, return_exceptions=True)
    if not answer.cancelled():
        return answer.result()
    if stop.done() and not stop.cancelled():
        raise _Abandoned(End.CUT, "the proxy stopped before the upstream answered")
    raise _Abandoned(End.DISCONNECTED, "the client left before the upstream answered")


async def _client_gone(request: Request) -> None:
    """Return once the client disconnects (its body has been read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _abandoned(
    session: _Session,
    gone: _Abandoned,
    number: int,
    method: str,
    path: str,
    ids: tuple[str | None, str | None],
) -> Response:
    from starlette.responses import Response

    # 499, as nginx logs it: the client closed the request before any answer
    status = 499 if gone.end is End.DISCONNECTED else 503
    entry = ExchangeLog(number, method, path, status, *ids, end=str(gone.end), detail=gone.detail)
    _log(session, entry)
    return Response(b"", 503, headers={"connection": "close"})


@dataclass
class _Flow:
    failure: str | None = None


async def _relay(
    raw: AsyncIterator[bytes],
    close: Callable[[], Awaitable[None]],
    translate: NativeStream | None,
    record: RecordedExchange | None,
    check: ExchangeCheck | None,
    state: _Flow,
    streams: bool,
    session: _Session,
) -> AsyncIterator[bytes]:
    """The upstream body as it arrives, copied to the taps; a failure ends it with RUN_ERROR."""
    import httpx

    before = last = b""  # the last two chunks sent: where a cut frame would end

    def taps(chunk: bytes) -> None:
        # The taps see what the client sees: the translated stream under --native.
        if record is not None:
            record.write(chunk)
        if check is not None:
            check.feed(chunk)

    tapped = record is not None or check is not None
    try:
        async for chunk in raw:
            if translate is not None and not (chunk := translate.feed(chunk)):
                continue
            if tapped:
                taps(chunk)
            before, last = last, chunk
            yield chunk
        if translate is not None and (rest := translate.close()):
            taps(rest)
            before, last = last, rest
            yield rest
    except (httpx.HTTPError, UpstreamError) as error:
        state.failure = upstream_reason(error, session.shown_upstream)
        if not streams:
            raise StreamCut from None
        # Close whatever frame was cut, then tell the client why the stream ended.
        tail = (before + last)[-4:]
        if tail and not tail.endswith((b"\n\n", b"\r\n\r\n", b"\r\r")):
            yield b"\n\n"
        yield run_error_frame(state.failure, clock=session.clock)
    finally:
        await close()


def _event_response(frame: bytes) -> Response:
    from starlette.responses import Response

    return Response(
        frame, 200, headers={"cache-control": "no-cache"}, media_type="text/event-stream"
    )


def _ids(body: bytes) -> tuple[str | None, str | None]:
    data = _json_object(body)
    if data is None:
        return None, None
    run_id, parent = data.get("runId"), data.get("parentRunId")
    return (
        run_id if isinstance(run_id, str) else None,
        parent if isinstance(parent, str) else None,
    )


def _json_object(body: bytes) -> dict[str, Any] | None:
    """The body's JSON object, or None. Nested at most `bounded_json.MAX_DEPTH` deep: the
    bridge, the recorder and the checker all walk it recursively."""
    try:
        data = bounded_json.loads(body.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _log(session: _Session, entry: ExchangeLog) -> None:
    if session.logger is not None:
        session.logger(entry)
