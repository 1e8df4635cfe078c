"""Resuming a paused run: answers, the paused run and how it is found, continuation bodies
and the HTTP client that sends them."""
