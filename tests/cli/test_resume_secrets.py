"""Header values that cannot be sent are refused before any I/O, and secrets never print."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.resume_http import Route, scripted_server

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
APPROVAL_RUN1 = str(NATIVE / "tool-approval.approve.run1.sse")
RUN_ERROR_ECHO = (
    b'data: {"type":"RUN_ERROR","timestamp":1,"message":"token SECRET123 was revoked",'
    b'"code":"server"}\n\n'
)
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> object:
    return runner.invoke(app, ["resume", "--no-input", *args], env=env or {})


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ((), {"AGUI_TOKEN": "SECRET123\r"}, "AGUI_TOKEN holds a line break (CR or LF)"),
        ((), {"AGUI_TOKEN": "SECRET123\n"}, "AGUI_TOKEN holds a line break (CR or LF)"),
        ((), {"AGUI_TOKEN": "SECRET123é"}, "AGUI_TOKEN holds a non-ASCII character"),
        (("-H", "X-Key: SECRET123\r"), {}, "-H X-Key: the value holds a line break"),
        (("-H", "X-Key: SECRET123\x00"), {}, "-H X-Key: the value holds a control character"),
        (("-H", "X-Key: SECRET123☃"), {}, "-H X-Key: the value holds a non-ASCII character"),
        (("-H", "X-Kéy: SECRET123"), {}, "-H: the header name must be ASCII letters"),
        (
            ("--header-env", "X-Key=KEY"),
            {"KEY": "SECRET123\r\n"},
            "--header-env X-Key: environment variable KEY holds a line break",
        ),
    ],
)
def test_unsendable_header_values_are_refused_before_any_io(
    args: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    with scripted_server({"/chat": Route(b"")}) as server:
        result = invoke(
            "--from", APPROVAL_RUN1, "--approve", "transfer", "--url", server.url("/chat"),
            *args, env=env,
        )  # fmt: skip
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert "SECRET123" not in result.stderr
    assert "Traceback" not in result.stderr
    assert server.received == []


def test_the_refusal_comes_before_reading_any_file(tmp_path: Path) -> None:
    result = invoke("--from", str(tmp_path / "missing.sse"), env={"AGUI_TOKEN": "SECRET123\r"})
    assert result.exit_code == 2
    assert "AGUI_TOKEN" in result.stderr
    assert "missing.sse" not in result.stderr


@pytest.mark.parametrize(
    ("route", "shown"),
    [
        (Route(b"bad credentials: Bearer SECRET123", status=401, content_type="text/plain"),
         "HTTP 401"),
        (Route(RUN_ERROR_ECHO), "RUN_ERROR [server]"),
    ],
)  # fmt: skip
@pytest.mark.parametrize(
    ("args", "env"),
    [
        ((), {"AGUI_TOKEN": "SECRET123"}),
        (("-H", "X-Key: SECRET123"), {}),
        (("--header-env", "X-Key=KEY"), {"KEY": "SECRET123"}),
    ],
)
def test_a_server_echoing_a_secret_never_gets_it_printed(
    route: Route, shown: str, args: tuple[str, ...], env: dict[str, str]
) -> None:
    with scripted_server({"/chat": route}) as server:
        url = server.url("/chat")
        result = invoke("--from", APPROVAL_RUN1, "--approve", "transfer", "--url", url, *args,
                        env=env)  # fmt: skip
    assert result.exit_code in (1, 2), result.stderr
    assert shown in result.stderr
    assert "SECRET123" not in result.stderr
    assert "SECRET123" not in result.stdout
    assert "***" in result.stderr + result.stdout


def test_a_password_in_the_url_is_masked_in_echoed_bodies() -> None:
    body = b"user:SECRET123 is not allowed"
    with scripted_server({"/chat": Route(body, status=403, content_type="text/plain")}) as server:
        url = server.url("/chat").replace("http://", "http://user:SECRET123@")
        result = invoke("--from", APPROVAL_RUN1, "--approve", "transfer", "--url", url)
    assert result.exit_code == 2
    assert "HTTP 403" in result.stderr
    assert "SECRET123" not in result.stderr


def test_the_refusal_comes_before_reading_an_answers_file(tmp_path: Path) -> None:
    result = invoke(
        "--from", APPROVAL_RUN1, "--answers", str(tmp_path / "missing.json"),
        env={"AGUI_TOKEN": "SECRET123\r"},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "AGUI_TOKEN holds a line break" in result.stderr
    assert "missing.json" not in result.stderr


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://ada:SECRET123@127.0.0.1:99999/api", "Port out of range 0-65535"),
        ("http://ada:SECRET123@[::1:80/api", "Invalid IPv6 URL"),
    ],
)
def test_a_broken_url_with_a_password_is_refused_without_showing_it(url: str, reason: str) -> None:
    result = invoke("--from", APPROVAL_RUN1, "--cancel-all", "--url", url)
    assert result.exit_code == 2  # type: ignore[attr-defined]
    said = result.stdout + result.stderr  # type: ignore[attr-defined]
    assert said.count("\n") == 1
    assert reason in said
    assert "SECRET123" not in said
    assert "Traceback" not in said
