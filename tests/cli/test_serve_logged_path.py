"""`agui replay --serve` logs the request path as the client sent it, on one line.

Before, the logged path was Starlette's decoded URL path: `/a%0D%0Ab` was logged as
`/ab` (the line break lost from the JSON log), and `%00`/`%1B` reached the log as the
control characters themselves. And a runId holding a line break split the request's
stderr line in two, the second one reading like a request of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.listening import serving
from tests.raw_http import exchange

ROOT = Path(__file__).resolve().parent.parent.parent
RUN = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
BODY = json.loads((RUN.parent / "tool-approval.approve.request.json").read_text())
TARGETS = ["/a%0D%0Ab", "/a%0Ab", "/x%0D%0APOST%20/forged", "/a%00b%1B%5B2J%7F", "/a%E2%80%A8b"]
FORGED_ID = "r\nPOST /forged runId=r -> served: run 1"


def post(url: str, target: str, body: dict[str, object]) -> bytes:
    data = json.dumps(body).encode()
    head = (
        f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    )
    return exchange(url, head.encode("ascii") + data)


def test_paths_are_logged_as_sent_and_every_request_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with serving(["replay", str(RUN), "--serve", "0", "--log", str(log)]) as served:
        answers = [post(served.url, target, BODY) for target in TARGETS]
        answers.append(post(served.url, "/chat", {**BODY, "runId": FORGED_ID}))
    assert served.process.returncode == 0
    assert served.stdout == ""
    stderr = served.stderr
    assert all(answer.startswith(b"HTTP/1.1 200 OK\r\n") for answer in answers)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["path"] for entry in entries] == [*TARGETS, "/chat"]
    assert entries[-1]["runId"] == FORGED_ID  # the JSON log keeps the id as sent
    requests = [line for line in stderr.splitlines() if line.startswith("POST ")]
    assert [line.split(" ", 2)[1] for line in requests] == [*TARGETS, "/chat"]
    for target, line in zip(TARGETS, requests, strict=False):
        assert line.startswith(f"POST {target} runId={BODY['runId']} -> served: run 1 (")
    assert requests[-1].startswith(
        "POST /chat runId=r\\x0aPOST /forged runId=r -> served: run 1 -> served: run 1 ("
    )
    assert stderr.count("\n") == len(stderr.splitlines())  # no other line boundary
