"""A port that is taken: one line naming the address as the user writes it, exit 2.

Before, an IPv6 address came back as `cannot listen on ::1:8000`, which is not how
`--serve`/`--listen` take it (`[::1]:8000`) and reads as a port of `1:8000`.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
RUN1 = str(RUN / "tool-approval.approve.run1.sse")


def _ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.fixture(params=["127.0.0.1", "::1"])
def taken(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    host: str = request.param
    if ":" in host and not _ipv6():
        pytest.skip("no IPv6 loopback")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as holder:
        holder.bind((host, 0))
        holder.listen()
        yield host, holder.getsockname()[1]


@pytest.mark.parametrize("command", ["serve", "proxy"])
def test_a_taken_port_is_one_line_with_the_address_as_written(
    command: str, taken: tuple[str, int]
) -> None:
    host, port = taken
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    args = (
        ["replay", RUN1, "--serve", address]
        if command == "serve"
        else ["proxy", "--upstream", "http://127.0.0.1:9", "--listen", address]
    )
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"agui: cannot listen on {address}: Address already in use\n"
