"""Resuming a paused run: answers, the paused run and how it is found, continuation bodies
and the HTTP client that sends them; `expected_batch` rebuilds the tool-call batch a
stateless server expects from a hand-built history, `secret_mask` keeps header values
and tokens out of every message."""
