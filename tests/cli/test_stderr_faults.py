"""stderr that cannot take the notices (a full disk, a file at its size limit): the result
is still whole on stdout, `-o` or `--write`, and the run ends 2, buffered or not.

`PYTHONUNBUFFERED` used to stop `agui translate` at its first notice (exit 2, nothing on
stdout) while buffered stderr let it finish: the same failure, two outcomes. Now both do
the whole job; the lost notices make the run end 2 (not 0, nor 1 whose findings no one
saw), since no one could be told.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGUI = str(Path(sys.executable).with_name("agui"))
NATIVE = ROOT / "examples" / "transfer-approval.sse"
LEGACY = ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse"
BROKEN = ROOT / "examples" / "broken.sse"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"

needs_dev_full = pytest.mark.skipif(
    not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)"
)
modes = pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def _run(args: list[str], unbuffered: bool, *, stderr: int | None = None) -> tuple[int, bytes]:
    """agui's exit code and stdout: with stderr on /dev/full unless `stderr` is given."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [AGUI, *args],
            stdout=subprocess.PIPE,
            stderr=full if stderr is None else stderr,
            env=_env(unbuffered),
            timeout=120,
            check=False,
        )
    return done.returncode, done.stdout


def _told(args: list[str], unbuffered: bool) -> tuple[int, bytes, bytes]:
    """The same run with a stderr that takes everything: code, stdout, stderr."""
    done = subprocess.run(
        [AGUI, *args], capture_output=True, env=_env(unbuffered), timeout=120, check=False
    )
    return done.returncode, done.stdout, done.stderr


@needs_dev_full
@modes
@pytest.mark.parametrize(
    ("args", "code"),
    [
        ([str(LEGACY)], 0),  # translate: the stream on stdout, notices on stderr
        (["--format", "json", str(LEGACY)], 0),
        (["--check", str(BROKEN)], 1),  # replay: findings on stdout, summary on stderr
        (["--json", "--check", str(BROKEN)], 1),  # events on stdout, findings on stderr
        (["CODE"], 0),  # migrate: the diff on stdout, the summary on stderr
    ],
    ids=["translate", "translate --format json", "replay --check", "replay --json", "migrate"],
)
def test_the_result_on_stdout_is_whole_and_the_run_ends_2(
    args: list[str], code: int, unbuffered: bool, tmp_path: Path
) -> None:
    if args[-1] == "CODE":
        args = [str(_code(tmp_path, "code"))]
    command = {str(LEGACY): "translate", str(BROKEN): "replay"}.get(args[-1], "migrate")
    told = _told([command, *args], unbuffered)
    assert told[0] == code
    assert told[2]  # something was to be said on stderr
    assert _run([command, *args], unbuffered) == (2, told[1])


@needs_dev_full
@modes
def test_a_run_that_says_nothing_on_stderr_is_not_failed_by_it(unbuffered: bool) -> None:
    told = _told(["replay", "--json", str(NATIVE)], unbuffered)
    assert (told[0], told[2]) == (0, b"")
    assert _run(["replay", "--json", str(NATIVE)], unbuffered) == (0, told[1])


def _code(tmp_path: Path, name: str) -> Path:
    """A tree of legacy call sites that `agui migrate` rewrites whole (exit 0)."""
    root = tmp_path / name
    (root / "pkg").mkdir(parents=True)
    for number in range(6):
        (root / "pkg" / f"m{number}.py").write_bytes(LEGACY_CODE)
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*.py")}


@needs_dev_full
@modes
@pytest.mark.parametrize("how", ["-o", "--write"])
def test_translate_into_a_file_writes_it_whole(how: str, unbuffered: bool, tmp_path: Path) -> None:
    expected = _told(["translate", str(LEGACY)], unbuffered)[1]
    source = tmp_path / "run.sse"
    shutil.copy(LEGACY, source)
    shutil.copy(LEGACY.with_suffix(".request.json"), tmp_path / "run.request.json")
    target = tmp_path / "native.sse"
    args = ["-o", str(target)] if how == "-o" else ["--write"]
    assert _run(["translate", *args, str(source)], unbuffered) == (2, b"")
    assert (target if how == "-o" else source).read_bytes() == expected


@needs_dev_full
@modes
def test_migrate_write_rewrites_every_file(unbuffered: bool, tmp_path: Path) -> None:
    told = _code(tmp_path, "told")
    assert _told(["migrate", "--write", str(told)], unbuffered)[0] == 0
    lost = _code(tmp_path, "lost")
    before = _tree(lost)
    assert _run(["migrate", "--write", str(lost)], unbuffered) == (2, b"")
    assert _tree(lost) == _tree(told) != before


def _limited(limit: int) -> str:
    return (
        "import os, resource, signal, sys; "
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )


@modes
@pytest.mark.parametrize(
    "args",
    [["translate", str(LEGACY)], ["replay", "--check", str(BROKEN)], ["migrate", "CODE"]],
    ids=lambda args: args[0],
)
def test_stderr_at_its_size_limit_keeps_its_start_and_the_result_whole(
    args: list[str], unbuffered: bool, tmp_path: Path
) -> None:
    args = [str(_code(tmp_path, "code")) if arg == "CODE" else arg for arg in args]
    told = _told(args, unbuffered)
    limit = len(told[2]) // 2
    log = tmp_path / "stderr"
    with log.open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-c", _limited(limit), AGUI, *args],
            stdout=subprocess.PIPE,  # a pipe: the size limit is only the file's
            stderr=out,
            env=_env(unbuffered),
            timeout=120,
            check=False,
        )
    assert (done.returncode, done.stdout) == (2, told[1])
    assert log.read_bytes() == told[2][:limit]
