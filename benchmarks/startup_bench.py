"""Benchmark the everyday, small-input cost of agui: process start, imports, help rendering.

Whole processes, best of `--repeat` rounds; within a round every command runs once, in
turn, so load from other users of a shared machine hits them alike. The spread is the
worst run over the best one.

* `agui replay --check` and `agui replay` on the README's example recording vs
  `ag-ui-validate` on the same file: target <= 1.0x (issue #15).
* `agui --help`: target <= 100 ms. `agui --version` (the floor: Python, typer, the
  command tree) and each subcommand's `--help` are printed beside it.

Before measuring, agui's own modules are byte-compiled (`compileall`), as installing
the tool does and as every later run of an editable install finds them; without that
(`PYTHONDONTWRITEBYTECODE=1` on an editable install) each run compiles ~30 modules
from source first, about 25 ms that no installed copy pays.

    pip install -e '.[dev,bench]' && python benchmarks/startup_bench.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
EXAMPLE = HERE.parent / "examples" / "transfer-approval.sse"
SUBCOMMANDS = ("replay", "translate", "resume", "migrate")
HELP_TARGET = 0.100
VALIDATOR_TARGET = 1.0


def executable(name: str) -> str | None:
    found = BIN / name
    return str(found) if found.exists() else shutil.which(name)


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
        raise SystemExit(f"startup_bench: {' '.join(command)} exited {done.returncode}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--file", type=Path, default=EXAMPLE)
    args = parser.parse_args()
    agui = executable("agui")
    if agui is None:
        raise SystemExit("startup_bench: agui is not installed (pip install -e '.[dev]')")
    validator = executable("ag-ui-validate")
    for package in ("cli", "replay", "codemods"):
        compileall.compile_dir(HERE.parent / package, quiet=1)
    recording = str(args.file)
    commands: dict[str, list[str]] = {
        "agui replay --check FILE": [agui, "replay", "--check", recording],
        "agui replay FILE": [agui, "replay", recording],
        "agui --version": [agui, "--version"],
        "agui --help": [agui, "--help"],
        **{f"agui {name} --help": [agui, name, "--help"] for name in SUBCOMMANDS},
    }
    if validator is not None:
        commands["ag-ui-validate FILE"] = [validator, recording]
    runs: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(args.repeat):
        for label, command in commands.items():
            runs[label].append(wall(command))
    best = {label: min(times) for label, times in runs.items()}
    out = [f"{args.file.name} ({args.file.stat().st_size} bytes), best of {args.repeat}\n\n"]
    out.append(f"{'command':32} {'best ms':>8} {'median ms':>10} {'spread':>7}\n")
    for label, times in runs.items():
        median = sorted(times)[len(times) // 2]
        spread = max(times) / best[label]
        out.append(f"{label:32} {best[label] * 1000:8.0f} {median * 1000:10.0f} {spread:7.2f}\n")
    out.append("\n")
    theirs = best.get("ag-ui-validate FILE")
    for label in ("agui replay --check FILE", "agui replay FILE"):
        if theirs is None:
            out.append(f"{label}: ag-ui-validate not installed (pip install -e '.[bench]')\n")
            continue
        ratio = best[label] / theirs
        out.append(f"{label} / ag-ui-validate: {ratio:5.2f}x   target <= {VALIDATOR_TARGET}x\n")
    helped = best["agui --help"]
    out.append(f"agui --help: {helped * 1000:.0f} ms   target <= {HELP_TARGET * 1000:.0f} ms\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
