"""Benchmark: `agui translate` on a 100 MB legacy recording vs `agui replay --json` on it.

Targets (issue #15): translation within 1.2x of `replay --json`'s wall time, and a peak
RSS under 64 MiB for both; each the best of `--repeat` runs (default 3: the machine may
be shared), the two commands alternating, with the spread (worst / best) printed.
Usage: `python benchmarks/translate_bench.py [--mb 100] [--keep PATH] [--repeat N]`.
The recording comes from this file's own generator, because translation needs legacy
input (`generate_recording.py` writes native streams): 0.42.0-style runs (text, a tool
call, legacy RUN_FINISHED, `approval-requested`) mixed 1:1 with plain runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGUI = [str(Path(sys.executable).parent / "agui")]


def _run(index: int, legacy: bool) -> bytes:
    run_id, thread = f"run-{index}", "thread-bench"
    events: list[dict[str, object]] = [
        {"type": "RUN_STARTED", "runId": run_id, "threadId": thread, "model": "m", "timestamp": 1},
        {"type": "TEXT_MESSAGE_START", "messageId": f"m{index}", "role": "assistant"},
    ]
    events += [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{index}", "delta": "lorem ipsum " * 4}
        for _ in range(6)
    ]
    events.append({"type": "TEXT_MESSAGE_END", "messageId": f"m{index}"})
    if legacy:
        call = f"call_{index}"
        events += [
            {
                "type": "TOOL_CALL_START",
                "toolCallId": call,
                "toolCallName": "transfer",
                "parentMessageId": f"m{index}",
            },
            {
                "type": "TOOL_CALL_ARGS",
                "toolCallId": call,
                "delta": '{"amount":42,"recipient":"Ada"}',
            },
            {"type": "TOOL_CALL_END", "toolCallId": call},
            {
                "type": "RUN_FINISHED",
                "runId": run_id,
                "threadId": thread,
                "model": "m",
                "timestamp": 2,
                "finishReason": "tool_calls",
            },
            {
                "type": "CUSTOM",
                "timestamp": 3,
                "model": "m",
                "name": "approval-requested",
                "value": {
                    "toolCallId": call,
                    "toolName": "transfer",
                    "input": {"amount": 42, "recipient": "Ada"},
                    "approval": {"id": f"approval_{call}", "needsApproval": True},
                },
            },
        ]
    else:
        events.append({"type": "RUN_FINISHED", "runId": run_id, "threadId": thread})
    return b"".join(
        b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n" for e in events
    )


def generate(path: Path, megabytes: int) -> None:
    target = megabytes * 1024 * 1024
    size = index = 0
    with path.open("wb") as handle:
        while size < target:
            block = b"".join(_run(index + k, legacy=(index + k) % 2 == 0) for k in range(200))
            handle.write(block)
            size += len(block)
            index += 200


def measure(command: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (KiB) and CPU seconds (user + system, its helper process
    included) of one child process. On a loaded machine the CPU time is the steadier
    figure: the two commands' wall times depend on whether the second core is free."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
        " stderr=subprocess.DEVNULL).returncode\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(time.perf_counter() - start, usage.ru_maxrss, usage.ru_utime + usage.ru_stime,"
        " code)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True)
    seconds, rss, cpu, code = out.stdout.split()
    if code not in ("0", "1"):
        raise SystemExit(f"{command}: exit {code}")
    return float(seconds), int(rss), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "legacy.sse"
        if not path.exists():
            started = time.perf_counter()
            generate(path, args.mb)
            print(
                f"generated {path.stat().st_size / 2**20:.0f} MB in "
                f"{time.perf_counter() - started:.1f} s"
            )
        replays, translations = [], []
        for _ in range(args.repeat):
            replays.append(measure([*AGUI, "replay", "--json", str(path)]))
            out = str(Path(tmp) / "out.sse")
            translations.append(measure([*AGUI, "translate", str(path), "-o", out]))
        for label, runs in (("replay --json", replays), ("translate", translations)):
            best_s = min(s for s, _, _ in runs)
            spread = max(s for s, _, _ in runs) / best_s
            peak = max(rss for _, rss, _ in runs) / 1024
            low = min(rss for _, rss, _ in runs) / 1024
            cpu = min(c for _, _, c in runs)
            print(
                f"{label:14}: {best_s:6.1f} s (spread {spread:.2f}), cpu {cpu:5.1f} s"
                f"  peak {low:4.1f}-{peak:4.1f} MiB (target < 64)"
            )
        ratio = min(s for s, _, _ in translations) / min(s for s, _, _ in replays)
        cpu_ratio = min(c for _, _, c in translations) / min(c for _, _, c in replays)
        print(f"ratio {ratio:.2f} (target <= 1.2); cpu time ratio {cpu_ratio:.2f}")


if __name__ == "__main__":
    main()
