"""Benchmark what `agui proxy` adds to a stream: time to first event and throughput.

An upstream (`agui replay RUN --serve`, pace fast) serves one run of `--events` text
deltas; `agui proxy --upstream …` runs in front of it, each in its own process. The
client (raw asyncio HTTP/1.1, one connection per stream) measures, direct and through
the proxy, on loopback:

* time to first event: from sending the request to the first `data:` line, over
  `--rounds` single streams of a short run (median; on a long unpaced run the first
  event also waits for CPU the upstream spends streaming the rest, on 2 shared cores);
* throughput: events per second over 1 and 50 concurrent streams read to the end, from
  an upstream as fast as it can go (what each event costs the proxy in CPU), and from
  an upstream paced like a fast model (`--paced`, 200 events/s per stream).

Goals (issue 13): ≤ 2 ms added to the first event, ≤ 5 % throughput lost at 50 streams.

    python benchmarks/proxy_bench.py                 # 2,000-event run, 100 rounds
    python benchmarks/proxy_bench.py --events 500 --rounds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / ".data"
BODY = json.dumps(
    {"threadId": "t-bench", "runId": "r-bench", "messages": [], "tools": [], "context": []}
).encode()


def write_run(events: int, gap_ms: int = 0) -> Path:
    """One run: RUN_STARTED, a text message of `events` deltas, RUN_FINISHED; with
    `gap_ms`, timestamps that far apart (for `--pace real`)."""
    DATA.mkdir(exist_ok=True)
    path = DATA / f"proxy-bench-{events}-{gap_ms}.sse"
    frames = [{"type": "RUN_STARTED", "runId": "r", "threadId": "t"}]
    frames.append({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"})
    frames += [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": f"word {index} "}
        for index in range(events)
    ]
    frames.append({"type": "TEXT_MESSAGE_END", "messageId": "m"})
    frames.append({"type": "RUN_FINISHED", "runId": "r", "threadId": "t"})
    if gap_ms:
        for index, frame in enumerate(frames):
            frame["timestamp"] = 1_800_000_000_000 + index * gap_ms
    text = "".join(f"data: {json.dumps(frame, separators=(',', ':'))}\n\n" for frame in frames)
    path.write_text(text)
    return path


def start(args: list[str]) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-c", "from cli.app import main; main()", *args]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stderr is not None
    for _ in range(10):
        line = process.stderr.readline()
        if "listening on" in line:
            port = int(line.split("listening on ", 1)[1].split()[0].rsplit(":", 1)[1])

            def drain() -> None:
                assert process.stderr is not None
                for _ in process.stderr:
                    pass

            threading.Thread(target=drain, daemon=True).start()
            return process, port
    process.kill()
    raise SystemExit(f"proxy_bench: {args[0]} did not start")


async def stream(port: int) -> tuple[float, float, int]:
    """(seconds to the first event, seconds to the end, events) for one stream."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
    )
    await writer.drain()
    first = 0.0
    data = b""
    while chunk := await reader.read(65536):
        if not first and b"data: " in data + chunk:
            first = time.perf_counter() - started
        data += chunk
    writer.close()
    return first, time.perf_counter() - started, data.count(b"data: ")


async def concurrent(port: int, streams: int) -> float:
    """Events per second over `streams` concurrent streams."""
    started = time.perf_counter()
    results = await asyncio.gather(*(stream(port) for _ in range(streams)))
    return sum(events for _, _, events in results) / (time.perf_counter() - started)


def measure(run: Path, pace: str, rounds: int) -> tuple[dict[str, list[float]], dict[Any, float]]:
    """First-event times (`rounds` of them) and events/s, direct and proxied."""
    upstream, up_port = start(["replay", str(run), "--serve", "127.0.0.1:0", "--pace", pace])
    proxy, proxy_port = start(
        ["proxy", "--upstream", f"http://127.0.0.1:{up_port}", "--listen", "127.0.0.1:0"]
    )
    try:
        targets = {"direct": up_port, "proxied": proxy_port}
        for port in targets.values():
            asyncio.run(stream(port))  # warm up: imports, first connections
        firsts: dict[str, list[float]] = {name: [] for name in targets}
        for _ in range(rounds):  # interleaved, so load on the machine hits both alike
            for name, port in targets.items():
                firsts[name].append(asyncio.run(stream(port))[0])
        rates = {
            (name, level): max(asyncio.run(concurrent(port, level)) for _ in range(3))
            for level in ((1, 50) if not rounds else ())
            for name, port in targets.items()
        }
    finally:
        for process in (proxy, upstream):
            process.terminate()
            process.wait(10)
    return firsts, rates


def report(title: str, rates: dict[Any, float]) -> None:
    print(title)
    for level in (1, 50):
        direct, proxied = rates[("direct", level)], rates[("proxied", level)]
        loss = (1 - proxied / direct) * 100
        print(
            f"  {level:>2} streams: direct {direct:,.0f} events/s, proxied {proxied:,.0f}"
            f" events/s, {loss:+.1f}% lost (goal <= 5% at 50)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000, help="text deltas in the run")
    parser.add_argument("--rounds", type=int, default=100, help="single streams timed")
    parser.add_argument("--paced", type=int, default=400, help="events of the paced run")
    args = parser.parse_args()
    firsts, _ = measure(write_run(10), "fast", args.rounds)
    direct_ms = statistics.median(firsts["direct"]) * 1000
    proxied_ms = statistics.median(firsts["proxied"]) * 1000
    print(
        f"first event of a 10-event run (median of {args.rounds}): direct {direct_ms:.2f} ms,"
        f" proxied {proxied_ms:.2f} ms, added {proxied_ms - direct_ms:.2f} ms (goal <= 2 ms)"
    )
    _, rates = measure(write_run(args.events), "fast", 0)
    report(f"unpaced run of {args.events} events (best of 3 bursts):", rates)
    _, rates = measure(write_run(args.paced, gap_ms=5), "real", 0)
    report(f"paced run of {args.paced} events, 200 events/s per stream:", rates)


if __name__ == "__main__":
    main()
