"""The Starlette app behind `agui replay --serve`: HTTP in, `ReplayService` answers out.

`ReplayService` decides every answer (validation, which run, rewriting, pacing delays);
this module reads bounded bodies, logs each request, and streams the frames of a reply
one by one, waiting out each frame's delay on the stop signal so a shutdown cuts it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Final

from replay.serve.request_log import RequestLog, Result
from replay.serve.service import ReplayService, Reply
from replay.web.bodies import UnreadableBody, read_body
from replay.web.cors import with_cors
from replay.web.request_target import sent_path
from replay.web.routing import every_request_app
from replay.web.streaming import EventStream, StopSignal, StreamCut

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp

Logger = Callable[[RequestLog], None]
Sleep = Callable[[float], None]

INLINE_BODY_BYTES: Final = 1024 * 1024
"""Bodies up to this size are answered on the event loop; larger ones in a worker thread,
so decoding a huge history never stalls the streams in flight."""


def build_replay_app(
    service: ReplayService,
    *,
    stopping: StopSignal,
    logger: Logger | None = None,
    sleep: Sleep | None = None,
    cors: str | None = None,
) -> ASGIApp:
    """The replay endpoint as an ASGI app (`sleep`, when given, replaces paced waits)."""
    from anyio import to_thread

    async def endpoint(request: Request) -> Response | EventStream:
        path = sent_path(request.scope)  # what the log shows; the URL path drops bytes
        method = request.method
        if method in ("GET", "HEAD"):
            healthy = request.url.path.rstrip("/") == "/health"
            reply = service.health(method, path) if healthy else service.not_found(method, path)
        elif method == "POST":
            try:
                raw = await read_body(request)
            except UnreadableBody as error:
                status = error.status
                log = RequestLog(
                    service.stamp(), "POST", path, status, Result.INVALID, detail=str(error)
                )
                reply = Reply(status, "text/plain; charset=utf-8", log, error.answer)
            else:
                if len(raw) <= INLINE_BODY_BYTES:
                    reply = service.post(path, raw)
                else:
                    reply = await to_thread.run_sync(service.post, path, raw)
        else:
            reply = service.not_found(method, path, status=405)
        if logger is not None:
            logger(reply.log)
        return _response(reply, stopping, sleep)

    return with_cors(every_request_app(endpoint), cors)


def _response(reply: Reply, stopping: StopSignal, sleep: Sleep | None) -> Response | EventStream:
    from starlette.responses import Response

    if not reply.streams:
        return Response(reply.body, reply.status, media_type=reply.content_type)
    headers = [("Content-Type", reply.content_type), ("Cache-Control", "no-cache")]
    return EventStream(
        _paced(reply, stopping, sleep), stopping=stopping, status=reply.status, headers=headers
    )


async def _paced(reply: Reply, stopping: StopSignal, sleep: Sleep | None) -> AsyncIterator[bytes]:
    from anyio import to_thread

    for frame in reply.frames:
        if frame.delay > 0:
            if sleep is None:
                if await stopping.sleep(frame.delay):
                    raise StreamCut
            else:
                await to_thread.run_sync(sleep, frame.delay)
        if stopping.is_set():
            raise StreamCut
        yield frame.data
