"""`agui proxy --upstream` (and `--redact`) is checked whole before anything listens:
one line, exit 2.

Before, a port out of range or not a number printed "listening on …" and then ended
with exit 0 and no word (the server's startup failed inside its thread), a broken IPv6
host was a traceback, and a host with a space was taken.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HINT = "use e.g. http://127.0.0.1:3000"


def agui_proxy(upstream: str, *extra: str) -> subprocess.CompletedProcess[str]:
    # under a timeout: a proxy that starts fails the test instead of hanging it
    args = ["proxy", "--upstream", upstream, "--listen", "0", *extra]
    return subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    ("upstream", "reason"),
    [
        ("http://127.0.0.1:99999", "Port out of range 0-65535"),
        ("http://127.0.0.1:abc", "Port could not be cast to integer value as 'abc'"),
        ("http://[::1", "Invalid IPv6 URL"),
        ("http://exa mple.com", "it holds a space or a control character"),
        ("localhost:3000", "it needs to start with http:// or https://"),
    ],
)
def test_an_unusable_upstream_is_one_line(upstream: str, reason: str) -> None:
    done = agui_proxy(upstream)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"agui: --upstream: {upstream!r} is not an http(s) URL ({reason}); {HINT}\n"
    )


def test_the_refusal_never_shows_a_password() -> None:
    done = agui_proxy("http://ada:s3cret@127.0.0.1:99999")
    assert done.returncode == 2
    assert "s3cret" not in done.stderr
    assert "'http://ada:***@127.0.0.1:99999'" in done.stderr


@pytest.mark.parametrize("name", ["", "X-Api-Key:", "X Api Key", "Clé"])
def test_a_redact_that_names_no_header_is_refused(name: str) -> None:
    # Before, it was taken and matched nothing: the header meant went to disk in clear.
    done = agui_proxy("http://127.0.0.1:9", "--redact", "Cookie", "--redact", name)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"agui: --redact {name!r}: the header name must be ASCII letters, digits or"
        " !#$%&'*+-.^_`|~; it would redact nothing\n"
    )
