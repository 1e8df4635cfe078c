"""Benchmark `agui migrate --check` against ruff's parse-only pass and bump-pydantic.

Everything is timed as a whole process, in the same run, so the printed ratios
compare like with like on this machine:

* 2,000 realistic modules, in two profiles (`generate_tree.py`: the plain one, 3% of
  files with a call site in a top-level function; the dense one of issue #15, 2% of
  files with 1-3 sites in the async methods of a class among pydantic models):
  `agui migrate --check` vs `ruff check --select E9 --no-cache` (a Rust parse-only lower
  bound); target <= 5x. Ruff and agui alternate, best of `--repeat`, spread printed.
* a 50-file sample: `bump-pydantic --diff` (a LibCST codemod tool) in files/s vs agui.
* 20,000 modules vs 2,000, each profile: target <= 10x the time.
* a dense tree where every file needs parsing: `-j 1` vs the default (all cores).
* 2,000 TypeScript/TSX modules (2% with call sites): `agui migrate --check` vs the same
  run on the 2,000-module Python tree (target <= 2x), and vs `jscodeshift --dry` running
  an equivalent AG001 transform (benchmarks/approval_transform.cjs; target >= 10x), both
  as such transforms are usually written (every file parsed) and with agui's own text
  prefilter. jscodeshift is installed with npm into benchmarks/.data/jscodeshift only.

    pip install -e '.[dev,bench]' && python benchmarks/migrate_bench.py
    python benchmarks/migrate_bench.py --typescript-only   # just the TypeScript rows
    python benchmarks/migrate_bench.py --python-only       # no TypeScript rows

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


def tree(
    name: str, files: int, share: float, typescript: bool = False, profile: str = "plain"
) -> Path:
    out = DATA / name
    stamp = out / ".complete"
    if not stamp.exists():
        shutil.rmtree(out, ignore_errors=True)
        if typescript:
            generate_ts(out, files, share)
        else:
            generate(out, files, share, profile=profile)
        stamp.write_text("", encoding="utf-8")
    return out


def alternating(commands: list[list[str]], repeat: int) -> list[tuple[Timing, float]]:
    """Each command's best timing and the spread (worst / best wall) over `repeat` rounds,
    the commands run in turn within a round so load on a shared machine hits them alike."""
    runs: list[list[Timing]] = [[] for _ in commands]
    for _ in range(repeat):
        for index, command in enumerate(commands):
            runs[index].append(timed(command, 1, (0, 1)))
    out = []
    for timings in runs:
        best = min(timings, key=lambda t: t.wall)
        out.append((best, max(t.wall for t in timings) / best.wall))
    return out


def profile_rows(
    ruff: str, agui: str, profile: str, small_files: int, large_files: int, repeat: int
) -> tuple[list[tuple[str, Timing]], list[str]]:
    """One tree profile: ruff vs agui on the small tree, the large tree vs the small one."""
    share = 0.02 if profile == "dense" else 0.03
    suffix = "" if profile == "plain" else f"-{profile}"
    small = tree(f"tree{suffix}-{small_files}", small_files, share, profile=profile)
    large = tree(f"tree{suffix}-{large_files}", large_files, share, profile=profile)
    ruff_cmd = [ruff, "check", "--select", "E9", "--no-cache", str(small)]
    agui_cmd = [agui, "migrate", "--check", str(small)]
    (ruff_t, ruff_spread), (agui_t, agui_spread) = alternating([ruff_cmd, agui_cmd], repeat)
    (large_t, large_spread), (again_t, _) = alternating(
        [[agui, "migrate", "--check", str(large)], agui_cmd], max(1, repeat // 2)
    )
    small_best = min(agui_t.wall, again_t.wall)
    rows = [
        (f"ruff check --select E9, {small_files} {profile} files", ruff_t),
        (f"agui migrate --check, {small_files} {profile} files", agui_t),
        (f"agui migrate --check, {large_files} {profile} files", large_t),
    ]
    ratios = [
        f"{profile}: agui / ruff E9 ({small_files} files): {agui_t.wall / ruff_t.wall:6.2f}x   "
        f"target <= 5x   (spread over {repeat} runs: ruff {ruff_spread:.2f}, "
        f"agui {agui_spread:.2f})\n",
        f"{profile}: {large_files} / {small_files} files time: "
        f"{large_t.wall / small_best:6.2f}x   target <= 10x   (spread {large_spread:.2f})\n",
    ]
    return rows, ratios


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
    parser.add_argument("--python-only", action="store_true")
    args = parser.parse_args()

    agui = tool("agui")
    if not args.typescript_only:  # fail before the long runs when a tool is missing
        ruff, bump = tool("ruff"), tool("bump-pydantic")
    small = tree(f"tree-{args.small}", args.small, 0.03)
    ts_rows: list[tuple[str, Timing]] = []
    ts_ratios: list[str] = []
    if not args.python_only:
        ts_rows, ts_ratios = typescript_rows(agui, args.ts_files, small, args.repeat)
    if args.typescript_only:
        report(ts_rows, ts_ratios)
        return
    profile_out: list[tuple[str, Timing]] = []
    profile_ratios: list[str] = []
    for profile in ("plain", "dense"):
        rows, ratios = profile_rows(ruff, agui, profile, args.small, args.large, args.repeat)
        profile_out += rows
        profile_ratios += ratios
    dense = tree(f"dense-{args.dense}", args.dense, 1.0)
    bump_sample = sample(small, args.bump_files)
    check = (0, 1)  # --check exits 1: the trees contain legacy call sites

    agui_small = profile_out[1][1]
    agui_sample = timed([agui, "migrate", "--check", str(bump_sample)], args.repeat, check)
    # bump-pydantic only accepts a path relative to the working directory.
    bump_time = timed([bump, "--diff", bump_sample.name], 1, cwd=bump_sample.parent)
    dense_one = timed([agui, "migrate", "--check", "-j", "1", str(dense)], args.repeat, check)
    dense_all = timed([agui, "migrate", "--check", str(dense)], args.repeat, check)

    agui_rate = args.small / agui_small.wall
    bump_rate = args.bump_files / bump_time.wall
    rows = [
        *profile_out,
        (f"agui migrate --check, {args.bump_files}-file sample", agui_sample),
        (f"bump-pydantic --diff, {args.bump_files}-file sample", bump_time),
        (f"agui migrate --check -j 1, {args.dense} dense files", dense_one),
        (f"agui migrate --check, {args.dense} dense files", dense_all),
        *ts_rows,
    ]
    out: list[str] = [*profile_ratios]
    speedup = dense_one.wall / dense_all.wall
    out.append(
        f"agui vs bump-pydantic throughput:     {agui_rate / bump_rate:6.0f}x   "
        f"({agui_rate:.0f} vs {bump_rate:.2f} files/s)\n"
    )
    out.append(
        f"dense tree -j 1 / all cores:          {speedup:6.2f}x   "
        f"(cpu/wall {dense_all.cpu / dense_all.wall:.2f} on {os.cpu_count()} cores)\n"
    )
    report(rows, [*out, *ts_ratios])


if __name__ == "__main__":
    main()
