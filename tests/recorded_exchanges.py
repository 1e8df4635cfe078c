"""Finish a proxy recorder's exchange as a whole, answered POST /chat (the recorder tests')."""

from __future__ import annotations

from replay.proxy.recorder import RecordedExchange, Saved


def finish_complete(exchange: RecordedExchange) -> Saved:
    """End `exchange` as a complete 200 answer to `POST /chat`, without headers."""
    return exchange.finish(
        complete=True,
        method="POST",
        path="/chat",
        status=200,
        request_headers=[],
        response_headers=[],
        end="complete",
    )
