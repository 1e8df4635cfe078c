"""Serving recordings over HTTP: the server, the service, served runs, their options,
pacing and the request log."""
