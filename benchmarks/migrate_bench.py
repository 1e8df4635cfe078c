"""Benchmark `agui migrate --check` against ruff's parse-only pass and bump-pydantic.

Everything is timed as a whole process, in the same run, so the printed ratios
compare like with like on this machine:

* 2,000 realistic modules: `agui migrate --check` vs `ruff check --select E9 --no-cache`
  (a Rust parse-only lower bound); target <= 10x.
* a 50-file sample: `bump-pydantic --diff` (a LibCST codemod tool) in files/s vs agui.
* 20,000 modules vs 2,000: target <= 12x the time.
* a dense tree where every file needs parsing: `-j 1` vs the default (all cores).
* 2,000 TypeScript/TSX modules (2% with call sites): `agui migrate --check` vs the same
  run on the 2,000-module Python tree (target <= 2x), and vs `jscodeshift --dry` running
  an equivalent AG001 transform (benchmarks/approval_transform.cjs; target >= 10x), both
  as such transforms are usually written (every file parsed) and with agui's own text
  prefilter. jscodeshift is installed with npm into benchmarks/.data/jscodeshift only.

    pip install -e '.[dev,bench]' && python benchmarks/migrate_bench.py
    python benchmarks/migrate_bench.py --typescript-only   # just the TypeScript rows

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
from generate_ts_tree import generate as generate_ts

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
JSCODESHIFT = "jscodeshift@17.4.0"
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


def tree(name: str, files: int, share: float, typescript: bool = False) -> Path:
    out = DATA / name
    stamp = out / ".complete"
    if not stamp.exists():
        shutil.rmtree(out, ignore_errors=True)
        (generate_ts if typescript else generate)(out, files, share)
        stamp.write_text("", encoding="utf-8")
    return out


def sample(source: Path, files: int) -> Path:
    out = DATA / f"sample-{files}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for path in sorted(source.rglob("*.py"))[:files]:
        shutil.copy(path, out / path.name)
    return out


def jscodeshift() -> str:
    """The jscodeshift executable, installed into the benchmark's own folder on first use."""
    folder = DATA / "jscodeshift"
    executable = folder / "node_modules" / ".bin" / "jscodeshift"
    if not executable.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("migrate_bench: the jscodeshift comparison needs npm on PATH")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", JSCODESHIFT],
            cwd=folder,
            check=True,
        )
    return str(executable)


def typescript_rows(
    agui: str, files: int, python_tree: Path, repeat: int
) -> tuple[list[tuple[str, Timing]], list[str]]:
    """The TypeScript comparisons: rows to print and the ratio lines."""
    check = (0, 1)
    ts_tree = tree(f"ts-tree-{files}", files, 0.02, typescript=True)
    shift = jscodeshift()
    transform = str(HERE / "approval_transform.cjs")
    codeshift = [shift, "--dry", "--silent", "--parser=tsx", "--extensions=tsx", "-t", transform]
    agui_ts = timed([agui, "migrate", "--check", str(ts_tree)], repeat, check)
    agui_py = timed([agui, "migrate", "--check", str(python_tree)], repeat, check)
    every_file = timed([*codeshift, str(ts_tree)], 1)
    os.environ["AGUI_BENCH_PREFILTER"] = "1"
    try:
        prefiltered = timed([*codeshift, str(ts_tree)], repeat)
    finally:
        del os.environ["AGUI_BENCH_PREFILTER"]
    rows = [
        (f"agui migrate --check, {files} TS files", agui_ts),
        (f"agui migrate --check, {files} Python files", agui_py),
        (f"jscodeshift --dry, {files} TS files (every file parsed)", every_file),
        (f"jscodeshift --dry, {files} TS files (text prefilter)", prefiltered),
    ]
    ratios = [
        f"agui TS / agui Python ({files} files):   {agui_ts.wall / agui_py.wall:6.2f}x   "
        "target <= 2x\n",
        f"jscodeshift (every file) / agui TS:   {every_file.wall / agui_ts.wall:6.2f}x   "
        "target >= 10x\n",
        f"jscodeshift (prefilter) / agui TS:    {prefiltered.wall / agui_ts.wall:6.2f}x\n",
    ]
    return rows, ratios


def report(rows: list[tuple[str, Timing]], ratios: list[str]) -> None:
    out = [f"cores: {os.cpu_count()}  python: {sys.version.split()[0]}\n\n"]
    out.append(f"{'run':58} {'wall s':>8} {'cpu s':>8}\n")
    for label, timing in rows:
        out.append(f"{label:58} {timing.wall:8.3f} {timing.cpu:8.3f}\n")
    out.append("\n")
    out.extend(ratios)
    sys.stdout.write("".join(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=20000)
    parser.add_argument("--bump-files", type=int, default=50)
    parser.add_argument("--dense", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ts-files", type=int, default=2000)
    parser.add_argument("--typescript-only", action="store_true")
    args = parser.parse_args()

    agui = tool("agui")
    if not args.typescript_only:  # fail before the long runs when a tool is missing
        ruff, bump = tool("ruff"), tool("bump-pydantic")
    small = tree(f"tree-{args.small}", args.small, 0.03)
    ts_rows, ts_ratios = typescript_rows(agui, args.ts_files, small, args.repeat)
    if args.typescript_only:
        report(ts_rows, ts_ratios)
        return
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
        *ts_rows,
    ]
    out: list[str] = []
    vs_ruff = agui_small.wall / ruff_small.wall
    scaling = agui_large.wall / agui_small.wall
    speedup = dense_one.wall / dense_all.wall
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
    report(rows, [*out, *ts_ratios])


if __name__ == "__main__":
    main()
