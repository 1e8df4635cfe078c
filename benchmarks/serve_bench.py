"""Benchmark `agui replay --serve` under bursts of concurrent requests.

It starts `agui replay RECORDING --serve 127.0.0.1:0` as a child process, then for each
concurrency level (50, 200 and 500 by default) opens that many connections at once,
each posting the recording's request body and reading the whole event stream, for
`--rounds` bursts. It reports completed requests per second, the p50/p99 latency of a
whole request, and how many requests failed (connection refused or reset, or a stream
without its terminal event). The client speaks HTTP/1.1 over raw asyncio streams so the
load generator costs less than the server it measures.

    python benchmarks/serve_bench.py                       # 50, 200, 500 concurrent
    python benchmarks/serve_bench.py --levels 4,50 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 20.0
CASE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One request: seconds from connect to the end of the stream, and whether it ended."""

    seconds: float
    complete: bool


async def one_request(host: str, port: int, body: bytes, terminal: bytes) -> Outcome:
    """POST the body, read to EOF; complete only when the stream's terminal arrived."""
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection(host, port)
        head = (
            f"POST /api/chat HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\nAccept: text/event-stream\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        writer.write(head + body)
        await writer.drain()
        data = await reader.read(-1)
        writer.close()
    except OSError:
        return Outcome(time.perf_counter() - start, False)
    ok = data.startswith(b"HTTP/1.1 200") and terminal in data and data.endswith(b"0\r\n\r\n")
    return Outcome(time.perf_counter() - start, ok)


async def bounded(host: str, port: int, body: bytes, terminal: bytes) -> Outcome:
    """A request that has not finished within TIMEOUT_S counts as failed."""
    start = time.perf_counter()
    try:
        return await asyncio.wait_for(one_request(host, port, body, terminal), TIMEOUT_S)
    except TimeoutError:
        return Outcome(time.perf_counter() - start, False)


async def burst(host: str, port: int, body: bytes, level: int, terminal: bytes) -> list[Outcome]:
    return await asyncio.gather(*(bounded(host, port, body, terminal) for _ in range(level)))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def start_server(recordings: list[str]) -> tuple[subprocess.Popen[str], str, int]:
    command = [sys.executable, "-c", "from cli.app import main; main()", "replay"]
    command += [*recordings, "--serve", "127.0.0.1:0"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stderr is not None
    for _ in range(10):
        line = process.stderr.readline()
        if "listening on" in line:
            url = line.split("listening on ", 1)[1].split()[0]
            host, _, port = url.removeprefix("http://").rpartition(":")
            # Drain the request log so the server never blocks on a full pipe.
            threading_drain(process)
            return process, host, int(port)
    process.kill()
    raise SystemExit("serve_bench: the server did not start")


def threading_drain(process: subprocess.Popen[str]) -> None:
    import threading

    def drain() -> None:
        assert process.stderr is not None
        for _ in process.stderr:
            pass

    threading.Thread(target=drain, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="50,200,500", help="comma-separated concurrency")
    parser.add_argument("--rounds", type=int, default=3, help="bursts per level")
    args = parser.parse_args()
    body = Path(f"{CASE}.request.json").read_bytes()
    json.loads(body)
    process, host, port = start_server([f"{CASE}.run1.sse"])
    try:
        asyncio.run(burst(host, port, body, 4, b'"RUN_FINISHED"'))  # warm up: lazy imports
        print(f"{'concurrent':>10} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'failed':>10}")
        for level in (int(x) for x in args.levels.split(",")):
            outcomes: list[Outcome] = []
            started = time.perf_counter()
            for _ in range(args.rounds):
                outcomes += asyncio.run(burst(host, port, body, level, b'"RUN_FINISHED"'))
            elapsed = time.perf_counter() - started
            done = [o.seconds for o in outcomes if o.complete]
            failed = len(outcomes) - len(done)
            rate = len(done) / elapsed
            p50 = percentile(done, 0.5) * 1000 if done else float("nan")
            p99 = percentile(done, 0.99) * 1000 if done else float("nan")
            print(f"{level:>10} {rate:>8.0f} {p50:>8.1f} {p99:>8.1f} {failed:>4}/{len(outcomes)}")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
