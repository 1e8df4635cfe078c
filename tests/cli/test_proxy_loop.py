"""`agui proxy` whose `--upstream` is its own address is refused: one line, exit 2.

Before, it forwarded every request to itself: 8,000 exchanges in four seconds, the
client waiting for ever (the default `--listen` is 8700, so `--upstream
http://127.0.0.1:8700` is one typo away).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.resume_http import free_port


@pytest.mark.parametrize(
    ("upstream_host", "listen_host", "shown"),
    [
        ("localhost", "127.0.0.1", "127.0.0.1"),
        ("127.0.0.1", "0.0.0.0", "0.0.0.0"),
        ("127.0.0.1", "", "127.0.0.1"),  # --listen PORT
    ],
)
def test_an_upstream_that_is_the_proxy_itself_is_refused(
    upstream_host: str, listen_host: str, shown: str
) -> None:
    port = free_port()
    upstream = f"http://{upstream_host}:{port}/api/chat"
    listen = f"{listen_host}:{port}" if listen_host else str(port)
    # under a timeout: a proxy that starts fails the test instead of hanging it
    args = ["proxy", "--upstream", upstream, "--listen", listen]
    done = subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"agui: --upstream {upstream} is this proxy's own address ({shown}:{port}): every"
        " request would come back to it; listen on another port\n"
    )
