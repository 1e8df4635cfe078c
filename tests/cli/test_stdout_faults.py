"""stdout that cannot take the output (a full disk, a file at its size limit): one line on
stderr and exit 2, never a traceback and never a clean exit over a truncated result.

Both ways Python may set stdout up are run: buffered (the default, where the last bytes
reach the disk only when the entry point flushes) and unbuffered (`PYTHONUNBUFFERED`,
set in many container images, where a write the disk takes only part of used to drop
the rest silently). The file-size limit (`RLIMIT_FSIZE`, SIGXFSZ ignored) is a full disk
any user can make.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGUI = str(Path(sys.executable).with_name("agui"))
NATIVE = ROOT / "examples" / "transfer-approval.sse"
LEGACY = ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"

COMMANDS = [
    ["--help"],
    ["--version"],
    ["replay", "{native}"],
    ["replay", "--json", "{native}"],
    ["translate", "{legacy}"],
    ["migrate", "{code}"],
    ["migrate", "--json", "{code}"],
    ["migrate", "--format", "sarif", "{code}"],
]


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def _args(args: list[str], tmp_path: Path) -> list[str]:
    code = tmp_path / "code"
    if not code.exists():
        code.mkdir()
        for number in range(30):
            (code / f"m{number}.py").write_bytes(LEGACY_CODE * 10)
    names = {"native": NATIVE, "legacy": LEGACY, "code": code}
    return [arg.format(**names) for arg in args]


def _one_error_line(stderr: bytes, reason: str) -> None:
    text = stderr.decode()
    assert "Traceback" not in text
    errors = [line for line in text.splitlines() if line.startswith("agui: ")]
    assert len(errors) == 1, text
    assert reason in errors[0]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_stdout_on_a_full_device_is_one_line_and_exit_2(
    args: list[str], unbuffered: bool, tmp_path: Path
) -> None:
    with open("/dev/full", "wb") as full:  # stdout only, through the redirection
        done = subprocess.run(
            [AGUI, *_args(args, tmp_path)],
            stdout=full,
            stderr=subprocess.PIPE,
            env=_env(unbuffered),
            timeout=120,
            check=False,
        )
    assert done.returncode == 2
    _one_error_line(done.stderr, "No space left on device")


def _limited(limit: int) -> str:
    return (
        "import os, resource, signal, sys; "
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "args",
    [
        ["replay", "--json", "{native}"],
        ["translate", "{legacy}"],
        ["migrate", "{code}"],
        ["migrate", "--json", "{code}"],
        ["migrate", "--format", "github", "{code}"],
    ],
    ids=" ".join,
)
def test_stdout_on_a_file_at_its_size_limit_is_never_a_clean_exit(
    args: list[str], unbuffered: bool, tmp_path: Path
) -> None:
    argv = [AGUI, *_args(args, tmp_path)]
    whole = subprocess.run(argv, capture_output=True, env=_env(unbuffered), check=False)
    assert whole.returncode == 0
    # The output is one write or many: cut it in the middle of the last one as well.
    for limit in (len(whole.stdout) // 2, len(whole.stdout) - 3):
        target = tmp_path / "out"
        with target.open("wb") as out:
            done = subprocess.run(
                [sys.executable, "-c", _limited(limit), *argv],
                stdout=out,
                stderr=subprocess.PIPE,
                env=_env(unbuffered),
                timeout=120,
                check=False,
            )
        assert done.returncode == 2, (limit, done.stderr.decode()[-300:])
        _one_error_line(done.stderr, "File too large")
        assert target.read_bytes() == whole.stdout[:limit]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_stderr_on_a_full_device_is_exit_2(unbuffered: bool, tmp_path: Path) -> None:
    # The notices are lost (no one can be told) and the run says it did not go well: 2,
    # not the interpreter's 120 for a failed last flush. Unbuffered, the first notice
    # fails at once and the translation stops there; buffered, it is whole.
    argv = [AGUI, "translate", str(LEGACY)]
    whole = subprocess.run(argv, capture_output=True, env=_env(unbuffered), check=False)
    assert (whole.returncode, whole.stderr.count(b"\n")) == (0, 4)
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            argv, stdout=subprocess.PIPE, stderr=full, env=_env(unbuffered), check=False
        )
    assert done.returncode == 2
    assert done.stdout == (b"" if unbuffered else whole.stdout)
