"""The asynchronous HTTP edge shared by `agui replay --serve` and `agui proxy`.

uvicorn listens (a real backlog, a shutdown deadline, one event loop in a background
thread); Starlette parses requests and frames plain answers; event streams go out frame
by frame through `streaming.EventStream`, cut short on shutdown and stopped when the
client goes away. Public names: `listener.BackgroundServer`, `listener.Endpoint` (the
start/wait/shutdown both servers share), `listener.bind`,
`streaming.EventStream`, `streaming.StopSignal`, `bodies.read_body`, `cors.with_cors`,
`routing.every_request_app`, `request_target.sent_path`.
Nothing here knows what the streams mean: `replay.serve` (its app is
`replay.serve.app`) and `replay.proxy` decide that.
"""
