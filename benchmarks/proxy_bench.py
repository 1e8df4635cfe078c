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
    python benchmarks/proxy_bench.py --plain        # the proxy without its pipe (before)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / ".data"
BODY = json.dumps(
    {"threadId": "t-bench", "runId": "r-bench", "messages": [], "tools": [], "context": []}
).encode()


PLAIN_TWIN = """
import sys
from cli.errors import stderr
from cli.proxy_command import render_exchange
from replay.proxy.app import ProxyOptions
from replay.proxy.server import ProxyServer

def log(entry):
    stderr.print(render_exchange(entry), markup=False, highlight=False, soft_wrap=True)

server = ProxyServer(ProxyOptions(upstream=sys.argv[1], fast_path=False), logger=log).start()
stderr.print(f"listening on {server.url}")
server.wait()
"""
"""`agui proxy` with every request on the httpx path (the pipe's plain twin), same log."""


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


def start(
    args: list[str], script: str = "from cli.app import main; main()"
) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-c", script, *args]
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


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def concurrent(port: int, streams: int) -> tuple[float, int]:
    """(seconds, events) of `streams` concurrent streams read to the end."""
    started = time.perf_counter()
    results = await asyncio.gather(*(stream(port) for _ in range(streams)))
    return time.perf_counter() - started, sum(events for _, _, events in results)


@dataclass(frozen=True, slots=True)
class Burst:
    """One burst of concurrent streams: wall rate, events, CPU seconds of each process."""

    rate: float
    events: int
    proxy_s: float
    upstream_s: float
    client_s: float


def burst(port: int, streams: int, proxy: int, upstream: int) -> Burst:
    before = cpu_seconds(proxy), cpu_seconds(upstream), time.process_time()
    seconds, events = asyncio.run(concurrent(port, streams))
    after = cpu_seconds(proxy), cpu_seconds(upstream), time.process_time()
    spent = [b - a for a, b in zip(before, after, strict=True)]
    return Burst(events / seconds, events, *spent)


def measure(
    run: Path, pace: str, rounds: int, bursts: int = 0, twin: bool = False
) -> tuple[dict[str, list[float]], dict[Any, list[Burst]]]:
    """First-event times (`rounds` of them) and `bursts` bursts at 1 and 50 streams,
    direct and proxied, interleaved."""
    upstream, up_port = start(["replay", str(run), "--serve", "127.0.0.1:0", "--pace", pace])
    upstream_url = f"http://127.0.0.1:{up_port}"
    if twin:
        proxy, proxy_port = start([upstream_url], PLAIN_TWIN)
    else:
        proxy, proxy_port = start(["proxy", "--upstream", upstream_url, "--listen", "127.0.0.1:0"])
    try:
        targets = {"direct": up_port, "proxied": proxy_port}
        for port in targets.values():
            asyncio.run(stream(port))  # warm up: imports, first connections
        firsts: dict[str, list[float]] = {name: [] for name in targets}
        for _ in range(rounds):  # interleaved, so load on the machine hits both alike
            for name, port in targets.items():
                firsts[name].append(asyncio.run(stream(port))[0])
        rates: dict[Any, list[Burst]] = {}
        for _ in range(bursts):  # interleaved too
            for level in (1, 50):
                for name, port in targets.items():
                    sample = burst(port, level, proxy.pid, upstream.pid)
                    rates.setdefault((name, level), []).append(sample)
    finally:
        for process in (proxy, upstream):
            process.terminate()
            process.wait(10)
    return firsts, rates


def per_event(samples: list[Burst], name: str) -> float:
    """Microseconds of CPU per event, over all `samples`."""
    events = sum(sample.events for sample in samples)
    return sum(getattr(sample, name) for sample in samples) * 1e6 / events


def report(title: str, rates: dict[Any, list[Burst]]) -> None:
    """Best and spread of the wall rate, and the CPU per event of each process (summed
    over all bursts: /proc counts CPU in 10 ms ticks, longer than a single stream).

    On 2 cores the wall rate of an unpaced run says how the three processes share the
    CPU more than what the proxy costs: direct, upstream and client have a core each;
    proxied, three busy processes share two. CPU per event is the proxy's own cost.
    """
    print(title)
    for level in (1, 50):
        best = {}
        for name in ("direct", "proxied"):
            samples = rates[(name, level)]
            walls = [sample.rate for sample in samples]
            best[name] = max(walls)
            print(
                f"  {level:>2} streams {name:>7}: best {max(walls):,.0f} events/s"
                f" (worst {min(walls):,.0f}, of {len(walls)}); CPU per event:"
                f" upstream {per_event(samples, 'upstream_s'):.2f} us,"
                f" proxy {per_event(samples, 'proxy_s'):.2f} us,"
                f" client {per_event(samples, 'client_s'):.2f} us"
            )
        loss = (1 - best["proxied"] / best["direct"]) * 100
        print(f"  {level:>2} streams: {loss:+.1f}% lost, best against best (goal <= 5% at 50)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000, help="text deltas in the run")
    parser.add_argument("--rounds", type=int, default=100, help="single streams timed")
    parser.add_argument("--paced", type=int, default=400, help="events of the paced run")
    parser.add_argument("--bursts", type=int, default=5, help="bursts per level and target")
    parser.add_argument("--only", choices=("first", "unpaced", "paced"), help="one part only")
    parser.add_argument(
        "--plain", action="store_true", help="proxy on the httpx path only (the plain twin)"
    )
    args = parser.parse_args()
    if args.plain:
        print("proxy: every request on the httpx path (the plain twin)")
    if args.only in (None, "first"):
        first_event(args.rounds, args.plain)
    if args.only in (None, "unpaced"):
        _, rates = measure(write_run(args.events), "fast", 0, args.bursts, args.plain)
        report(f"unpaced run of {args.events} events:", rates)
    if args.only in (None, "paced"):
        _, rates = measure(write_run(args.paced, gap_ms=5), "real", 0, args.bursts, args.plain)
        report(f"paced run of {args.paced} events, 200 events/s per stream:", rates)


def first_event(rounds: int, twin: bool) -> None:
    firsts, _ = measure(write_run(10), "fast", rounds, twin=twin)
    direct_ms = statistics.median(firsts["direct"]) * 1000
    proxied_ms = statistics.median(firsts["proxied"]) * 1000
    print(
        f"first event of a 10-event run (median of {rounds}): direct {direct_ms:.2f} ms,"
        f" proxied {proxied_ms:.2f} ms, added {proxied_ms - direct_ms:.2f} ms (goal <= 2 ms)"
    )


if __name__ == "__main__":
    main()
