"""Benchmark `agui migrate --check` against ruff's parse-only pass and bump-pydantic.

Everything is timed as a whole process, in the same run, so the printed ratios
compare like with like on this machine:

* 2,000 realistic modules: `agui migrate --check` vs `ruff check --select E9 --no-cache`
  (a Rust parse-only lower bound); target <= 10x.
* a 50-file sample: `bump-pydantic --diff` (a LibCST codemod tool) in files/s vs agui.
* 20,000 modules vs 2,000: target <= 12x the time.
* a dense tree where every file needs parsing: `-j 1` vs the default (all cores).

    pip install -e '.[dev,bench]' && python benchmarks/migrate_bench.py

Trees are generated under benchmarks/.data/ (git-ignored) and reused between runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_tree import generate

DATA = Path(__file__).resolve().parent / ".data"
BIN = Path(sys.executable).parent


@dataclass(frozen=True, slots=True)
class Timing:
    """Best wall time of the repeats, and the CPU time (user + sys) of that repeat."""

    wall: float
    cpu: float


def tool(name: str) -> str:
    found = BIN / name
    if found.exists():
        return str(found)
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"migrate_bench: {name} is not installed (pip install -e '.[dev,bench]')")
    return path


def timed(
    command: list[str], repeat: int, ok: tuple[int, ...] = (0,), cwd: Path | None = None
) -> Timing:
    best: Timing | None = None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, check=False, cwd=cwd)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in ok:
            sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
            raise SystemExit(f"migrate_bench: {command[0]} exited {done.returncode}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or wall < best.wall:
            best = Timing(wall, cpu)
    assert best is not None
    return best


def tree(name: str, files: int, share: float) -> Path:
    out = DATA / name
    stamp = out / ".complete"
    if not stamp.exists():
        shutil.rmtree(out, ignore_errors=True)
        generate(out, files, share)
        stamp.write_text("", encoding="utf-8")
    return out


def sample(source: Path, files: int) -> Path:
    out = DATA / f"sample-{files}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for path in sorted(source.rglob("*.py"))[:files]:
        shutil.copy(path, out / path.name)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=20000)
    parser.add_argument("--bump-files", type=int, default=50)
    parser.add_argument("--dense", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    agui, ruff, bump = tool("agui"), tool("ruff"), tool("bump-pydantic")
    small = tree(f"tree-{args.small}", args.small, 0.03)
    large = tree(f"tree-{args.large}", args.large, 0.03)
    dense = tree(f"dense-{args.dense}", args.dense, 1.0)
    bump_sample = sample(small, args.bump_files)
    check = (0, 1)  # --check exits 1: the trees contain legacy call sites

    ruff_small = timed([ruff, "check", "--select", "E9", "--no-cache", str(small)], args.repeat)
    agui_small = timed([agui, "migrate", "--check", str(small)], args.repeat, check)
    agui_large = timed([agui, "migrate", "--check", str(large)], 1, check)
    agui_sample = timed([agui, "migrate", "--check", str(bump_sample)], args.repeat, check)
    # bump-pydantic only accepts a path relative to the working directory.
    bump_time = timed([bump, "--diff", bump_sample.name], 1, cwd=bump_sample.parent)
    dense_one = timed([agui, "migrate", "--check", "-j", "1", str(dense)], args.repeat, check)
    dense_all = timed([agui, "migrate", "--check", str(dense)], args.repeat, check)

    agui_rate = args.small / agui_small.wall
    bump_rate = args.bump_files / bump_time.wall
    rows = [
        (f"ruff check --select E9, {args.small} files", ruff_small),
        (f"agui migrate --check, {args.small} files", agui_small),
        (f"agui migrate --check, {args.large} files", agui_large),
        (f"agui migrate --check, {args.bump_files}-file sample", agui_sample),
        (f"bump-pydantic --diff, {args.bump_files}-file sample", bump_time),
        (f"agui migrate --check -j 1, {args.dense} dense files", dense_one),
        (f"agui migrate --check, {args.dense} dense files", dense_all),
    ]
    out = [f"cores: {os.cpu_count()}  python: {sys.version.split()[0]}\n\n"]
    out.append(f"{'run':58} {'wall s':>8} {'cpu s':>8}\n")
    for label, timing in rows:
        out.append(f"{label:58} {timing.wall:8.3f} {timing.cpu:8.3f}\n")
    vs_ruff = agui_small.wall / ruff_small.wall
    scaling = agui_large.wall / agui_small.wall
    speedup = dense_one.wall / dense_all.wall
    out.append("\n")
    out.append(f"agui / ruff E9 ({args.small} files):     {vs_ruff:6.2f}x   target <= 10x\n")
    out.append(
        f"agui vs bump-pydantic throughput:     {agui_rate / bump_rate:6.0f}x   "
        f"({agui_rate:.0f} vs {bump_rate:.2f} files/s)\n"
    )
    label = f"{args.large} / {args.small} files time:"
    out.append(f"{label:38}{scaling:6.2f}x   target <= 12x\n")
    out.append(
        f"dense tree -j 1 / all cores:          {speedup:6.2f}x   "
        f"(cpu/wall {dense_all.cpu / dense_all.wall:.2f} on {os.cpu_count()} cores)\n"
    )
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
