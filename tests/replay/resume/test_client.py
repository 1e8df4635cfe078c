"""The continuation HTTP client against a real local server: headers, checks, error mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.resume.client import (
    HttpRequest,
    curl_command,
    display_url,
    header_from_env,
    parse_header,
    record_paths,
    stream_post,
    write_atomic,
)
from replay.wire.errors import InvalidRequest, TransportFailure
from tests.resume_http import Route, free_port, scripted_server

SSE = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'


def _request(url: str, **kwargs: object) -> HttpRequest:
    return HttpRequest(url=url, body=b'{"a":1}', run_id="run-9", **kwargs)  # type: ignore[arg-type]


def test_posts_body_with_run_id_and_user_headers() -> None:
    with scripted_server({"/chat": Route([SSE[:10], SSE[10:]])}) as server:
        request = _request(server.url("/chat"), headers=(("Authorization", "Bearer s3cret"),))
        with stream_post(request) as (info, chunks):
            data = b"".join(chunks)
    assert data == SSE
    assert info.status == 200
    assert info.content_type == "text/event-stream"
    (received,) = server.received
    assert received.body == b'{"a":1}'
    assert received.headers["x-run-id"] == "run-9"
    assert received.headers["content-type"] == "application/json"
    assert received.headers["accept"] == "text/event-stream"
    assert received.headers["authorization"] == "Bearer s3cret"


def test_non_2xx_is_a_transport_failure_with_the_body_snippet() -> None:
    route = Route(b"Invalid AG-UI request body.", status=400, content_type="text/plain")
    with scripted_server({"/chat": route}) as server:
        request = _request(server.url("/chat"))
        with pytest.raises(TransportFailure) as caught, stream_post(request):
            pass
    assert "HTTP 400" in str(caught.value)
    assert "Invalid AG-UI request body." in str(caught.value)


def test_wrong_content_type_is_refused_before_decoding() -> None:
    route = Route(b"<html></html>", content_type="text/html")
    with scripted_server({"/chat": route}) as server:
        request = _request(server.url("/chat"))
        with pytest.raises(TransportFailure) as caught, stream_post(request):
            pass
    assert "text/html" in str(caught.value)


def test_connection_refused_is_one_line() -> None:
    url = f"http://127.0.0.1:{free_port()}/chat"
    with pytest.raises(TransportFailure) as caught, stream_post(_request(url)):
        pass
    message = str(caught.value)
    assert message.startswith(url)
    assert "cannot connect" in message
    assert "\n" not in message


def test_read_timeout_is_reported_and_not_retried() -> None:
    with scripted_server({"/slow": Route(SSE, delay=1.0)}) as server:
        request = _request(server.url("/slow"), read_timeout=0.2)
        with pytest.raises(TransportFailure) as caught, stream_post(request):
            pass
    assert "no data for 0.2 s" in str(caught.value)
    assert len(server.received) == 1


def test_a_cut_response_fails_while_streaming() -> None:
    with scripted_server({"/cut": Route(SSE, truncate=True)}) as server:
        request = _request(server.url("/cut"))
        with pytest.raises(TransportFailure) as caught, stream_post(request) as (_info, chunks):
            b"".join(chunks)
    assert "broke the connection" in str(caught.value)


def test_credentials_in_the_url_are_never_shown() -> None:
    assert display_url("https://user:pw@example.com:8443/api?x=1") == (
        "https://example.com:8443/api?x=1"
    )
    assert display_url("http://127.0.0.1:8000/api/chat") == "http://127.0.0.1:8000/api/chat"
    # A URL too broken to post is still shown without them (it is named in the refusal).
    assert display_url("http://u:p@ss@h:99999/x") == "http://h:99999/x"
    assert display_url("http://u:pw@[::1:80/") == "http://[::1:80/"


def test_header_parsing_keeps_values_out_of_errors() -> None:
    assert parse_header("X-Api-Key:  abc ") == ("X-Api-Key", "abc")
    with pytest.raises(InvalidRequest) as caught:
        parse_header("no colon secret-value")
    assert "secret-value" not in str(caught.value)
    with pytest.raises(InvalidRequest, match="sets this header itself"):
        parse_header("X-Run-Id: mine")
    assert header_from_env("X-Key=MY_KEY", {"MY_KEY": "v"}) == ("X-Key", "v")
    with pytest.raises(InvalidRequest, match="MY_KEY is not set"):
        header_from_env("X-Key=MY_KEY", {})


def test_curl_masks_user_header_values() -> None:
    request = _request("http://u:p@127.0.0.1:1/chat", headers=(("Authorization", "Bearer s3cret"),))
    command = curl_command(request)
    assert "s3cret" not in command
    assert ":p@" not in command
    assert "'Authorization: ***'" in command
    assert "'X-Run-Id: run-9'" in command
    assert command.endswith("""--data-binary '{"a":1}'""")


def test_record_paths_pair_with_the_recording_reader(tmp_path: Path) -> None:
    from replay.wire.recording import sidecar_request_path

    sse, request = record_paths(tmp_path / "out.sse")
    write_atomic(sse, SSE)
    write_atomic(request, b"{}")
    assert sidecar_request_path(sse) == request
    assert sse.read_bytes() == SSE
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
