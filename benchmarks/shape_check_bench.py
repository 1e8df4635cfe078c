"""Micro benchmark: `shape_check.all_valid` against `events.validate_batch` on real batches.

Reads the events of a generated recording (`benchmarks/.data/replay-100MB.sse` by
default; see `generate_recording.py`), splits them into batches, and times both
functions over all batches (best of `--repeat`). Prints the per-event costs and the
ratio; both must answer the same for every batch.

The cyclic GC is off while timing unless `--gc`: pydantic allocates a model per event
and, with the whole file's objects alive in this process, the collections it triggers
dominate its time (3-8x) — a cost `agui replay` pays only as far as its own heap is large.
`--gc` shows that case.

    python benchmarks/shape_check_bench.py
    python benchmarks/shape_check_bench.py --batch 4000 --limit 200000
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pydantic_core import from_json  # noqa: E402

from replay.large.shape_check import all_valid  # noqa: E402
from replay.wire.events import validate_batch  # noqa: E402

DEFAULT_FILE = HERE / ".data" / "replay-100MB.sse"


def read_events(path: Path, limit: int | None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    with path.open("rb") as stream:
        for line in stream:
            if line.startswith(b"data: "):
                data = from_json(line[6:])
                if type(data) is dict:
                    events.append(data)
                    if limit is not None and len(events) >= limit:
                        break
    return events


def best_time(
    check: Callable[[list[dict[str, Any]]], bool], batches: list[list[dict[str, Any]]], repeat: int
) -> tuple[float, list[bool]]:
    best = float("inf")
    answers: list[bool] = []
    for _ in range(repeat):
        start = time.perf_counter()
        answers = list(map(check, batches))
        best = min(best, time.perf_counter() - start)
    return best, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--batch", type=int, default=2000, help="events per batch")
    parser.add_argument("--limit", type=int, default=None, help="read at most this many")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gc", action="store_true", help="keep the cyclic GC on")
    args = parser.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file} not found: run benchmarks/generate_recording.py (or pass a file)")
    events = read_events(args.file, args.limit)
    size = args.batch
    batches = [events[at : at + size] for at in range(0, len(events), size)]
    all_valid(batches[0])  # compile the shapes once, as a long replay would
    if not args.gc:
        gc.disable()
    pydantic_time, expected = best_time(validate_batch, batches, args.repeat)
    fast_time, answers = best_time(all_valid, batches, args.repeat)
    if answers != expected:
        sys.exit("all_valid and validate_batch disagree")
    count = len(events)
    sys.stdout.write(
        f"{count} events in {len(batches)} batches of {size}, GC {'on' if args.gc else 'off'}\n"
        f"validate_batch: {pydantic_time / count * 1e9:7.0f} ns/event\n"
        f"all_valid:      {fast_time / count * 1e9:7.0f} ns/event\n"
        f"ratio:          {pydantic_time / fast_time:7.2f}x\n"
    )


if __name__ == "__main__":
    main()
