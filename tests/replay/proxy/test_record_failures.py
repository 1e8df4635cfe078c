"""`--record` on a disk that refuses the bytes: the exchange still reaches the client
whole, the log line says what was not recorded, and no temp file is left behind.

Before, a full disk cut the client's stream silently (no final chunk, no RUN_ERROR) and
a vanished directory answered `500 Internal Server Error` without forwarding anything;
neither exchange was logged.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx

from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from tests.resume_http import Route, scripted_server

START = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
DELTA = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"' + b"x" * 200 + b'"}\n\n'
FINISH = b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r1"}\n\n'
BIG = [START, *[DELTA] * 1000, FINISH]
SMALL = [START, FINISH]
LIMIT = 64 * 1024
"""RLIMIT_FSIZE of the proxy process: files past this size cannot grow (EFBIG)."""

# The proxy in a process whose files cannot grow past LIMIT: a full disk, without root.
LIMITED = (
    "import resource, signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
    f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT})); "
    "from cli.app import main; main()"
)


def test_a_recording_the_disk_refuses_still_reaches_the_client(tmp_path: Path) -> None:
    record = tmp_path / "rec"
    routes = {"/big": Route(body=BIG), "/small": Route(body=SMALL)}
    with scripted_server(routes) as upstream:
        args = ["--upstream", upstream.url(""), "--listen", "0", "--record", str(record)]
        process = subprocess.Popen(
            [sys.executable, "-c", LIMITED, "proxy", *args, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            url = httpx.Response(200, content=process.stdout.readline()).json()["url"]
            big = httpx.post(url + "/big", json={"runId": "r1"}, timeout=10)
            small = httpx.post(url + "/small", json={"runId": "r2"}, timeout=10)
            lines = [process.stdout.readline(), process.stdout.readline()]
            process.terminate()
            process.communicate(timeout=10)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert big.content == b"".join(BIG)
    assert small.content == b"".join(SMALL)
    first, second = sorted(
        (httpx.Response(200, content=line).json() for line in lines), key=lambda e: e["number"]
    )
    assert first["end"] == "complete"
    assert first["recorded"] is None
    assert first["detail"] == f"not recorded: {record / '001-r1.sse'}: File too large"
    assert second["end"] == "complete"
    assert second["detail"] is None
    assert second["recorded"] == str(record / "002-r2.sse")
    assert sorted(path.name for path in record.iterdir()) == [
        "002-r2.exchange.json",
        "002-r2.request.json",
        "002-r2.sse",
    ]
    assert (record / "002-r2.sse").read_bytes() == b"".join(SMALL)


def test_a_record_directory_gone_meanwhile_still_forwards(tmp_path: Path) -> None:
    record = tmp_path / "rec"
    logged: list[ExchangeLog] = []
    with (
        scripted_server({"/chat": Route(body=SMALL)}) as upstream,
        ProxyServer(
            ProxyOptions(upstream=upstream.url(""), record=record), logger=logged.append
        ) as proxy,
    ):
        shutil.rmtree(record)
        record.write_text("now a file\n")
        response = httpx.post(proxy.url + "/chat", json={"runId": "r1"}, timeout=10)
    assert response.status_code == 200
    assert response.content == b"".join(SMALL)
    assert len(logged) == 1
    assert logged[0].end == "complete"
    assert logged[0].saved is None
    assert logged[0].detail == f"not recorded: {record / '001-r1.sse'}: Not a directory"
    assert record.read_text() == "now a file\n"


def test_two_proxies_recording_into_one_directory_never_share_a_name(tmp_path: Path) -> None:
    # Before, each proxy numbered from what the directory held when it started: the
    # second one's 001-r1.sse replaced the first one's, and both logs named 001-r1.sse.
    record = tmp_path / "rec"
    routes = {
        "/chat": Route(body=SMALL),
        "/open": Route(body=[START, DELTA], trickle=0.05, endless=True),
    }
    with scripted_server(routes) as upstream:
        options = ProxyOptions(upstream=upstream.url(""), record=record)
        with (
            ProxyServer(options) as first,
            ProxyServer(options) as second,
            # an exchange of the first still streaming: its number is taken already
            httpx.stream("POST", first.url + "/open", json={"runId": "r1"}) as held,
        ):
            next(held.iter_raw())
            for server, tag in ((second, "b"), (first, "c"), (second, "d")):
                body = {"runId": "r1", "tag": tag}
                response = httpx.post(server.url + "/chat", json=body, timeout=10)
                assert response.content == b"".join(SMALL)
    names = sorted(path.name for path in record.iterdir() if path.suffix == ".json")
    assert names == [
        "001-r1.partial.exchange.json",
        "001-r1.partial.request.json",
        *[f"00{n}-r1.{kind}.json" for n in (2, 3, 4) for kind in ("exchange", "request")],
    ]
    tags = [json.loads((record / f"00{n}-r1.request.json").read_text())["tag"] for n in (2, 3, 4)]
    assert tags == ["b", "c", "d"]
    assert not [path for path in record.iterdir() if path.name.startswith(".")]
