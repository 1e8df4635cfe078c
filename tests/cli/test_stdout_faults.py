"""stdout that cannot take the output (a full disk, a file at its size limit): one line on
stderr naming stdout (`agui: stdout: No space left on device`) and exit 2, never a
traceback and never a clean exit over a truncated result.

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.resume_http import Route, ScriptedServer, scripted_server

ROOT = Path(__file__).resolve().parents[2]
AGUI = str(Path(sys.executable).with_name("agui"))
NATIVE = ROOT / "examples" / "transfer-approval.sse"
LEGACY = ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
RECORDINGS = ROOT / "tests" / "fixtures" / "recordings" / "native"
PAUSED = RECORDINGS / "tool-approval.approve.run1.sse"
CONTINUATION = (RECORDINGS / "tool-approval.approve.run2.sse").read_bytes()
FULL = "agui: stdout: No space left on device"
TOO_LARGE = "agui: stdout: File too large"

COMMANDS = [
    ["--help"],
    ["--version"],
    ["replay", "{native}"],
    ["replay", "--json", "{native}"],
    ["translate", "{legacy}"],
    ["migrate", "{code}"],
    ["migrate", "--json", "{code}"],
    ["migrate", "--format", "sarif", "{code}"],
    ["migrate", "--format", "github", "{code}"],
    # larger than stdout's buffer: the write that fails is one in the middle of the run
    ["replay", "{large}"],
    ["replay", "--json", "{large}"],
    ["resume", "--from", "{paused}", "--approve-all", "--dry-run"],
    ["resume", "--from", "{paused}", "--approve-all", "--no-input", "--url", "{url}"],
    ["resume", "--from", "{paused}", "--approve-all", "--no-input", "--json", "--url", "{url}"],
]


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recording whose timeline and events are many times stdout's 8 KiB buffer."""
    path = tmp_path_factory.mktemp("large") / "large.sse"
    script = ROOT / "benchmarks" / "generate_recording.py"
    subprocess.run([sys.executable, script, "--size", "100KB", path], check=True, timeout=120)
    return path


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """What `agui resume` posts to: the recorded continuation of the paused run."""
    with scripted_server({"/chat": Route(CONTINUATION)}) as running:
        yield running


def _args(args: list[str], tmp_path: Path, large: Path, server: ScriptedServer) -> list[str]:
    code = tmp_path / "code"
    if not code.exists():
        code.mkdir()
        for number in range(30):
            (code / f"m{number}.py").write_bytes(LEGACY_CODE * 10)
    paused = tmp_path / "paused.sse"
    if not paused.exists():
        paused.write_bytes(PAUSED.read_bytes())
        paused.with_suffix(".request.json").write_bytes(
            RECORDINGS.joinpath("tool-approval.approve.request.json").read_bytes()
        )
    names = {
        "native": NATIVE,
        "legacy": LEGACY,
        "code": code,
        "large": large,
        "paused": paused,
        "url": server.url("/chat"),
    }
    return [arg.format(**names) for arg in args]


def _one_error_line(stderr: bytes, line: str) -> None:
    """`line` is on stderr once, and no other line tells of the error (notices, progress
    and summaries may surround it)."""
    text = stderr.decode()
    assert "Traceback" not in text
    assert "Errno" not in text
    reason = line.rsplit(": ", 1)[1]
    assert [said for said in text.splitlines() if reason in said] == [line], text


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_stdout_on_a_full_device_is_one_line_and_exit_2(
    args: list[str], unbuffered: bool, tmp_path: Path, large: Path, server: ScriptedServer
) -> None:
    with open("/dev/full", "wb") as full:  # stdout only, through the redirection
        done = subprocess.run(
            [AGUI, *_args(args, tmp_path, large, server)],
            stdout=full,
            stderr=subprocess.PIPE,
            env=_env(unbuffered),
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr.decode()
    _one_error_line(done.stderr, FULL)


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
        ["migrate", "--format", "sarif", "{code}"],
        ["replay", "{large}"],
        ["replay", "--json", "{large}"],
        ["resume", "--from", "{paused}", "--approve-all", "--no-input", "--url", "{url}"],
        ["resume", "--from", "{paused}", "--approve-all", "--no-input", "--json", "--url", "{url}"],
    ],
    ids=" ".join,
)
def test_stdout_on_a_file_at_its_size_limit_is_never_a_clean_exit(
    args: list[str], unbuffered: bool, tmp_path: Path, large: Path, server: ScriptedServer
) -> None:
    argv = [AGUI, *_args(args, tmp_path, large, server)]
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
        _one_error_line(done.stderr, TOO_LARGE)
        written = target.read_bytes()
        assert len(written) == limit
        if args[0] != "resume":  # (a resumed run has a new id each time)
            assert written == whole.stdout[:limit]


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_an_output_file_at_its_size_limit_is_named_not_stdout(
    unbuffered: bool, tmp_path: Path
) -> None:
    target = tmp_path / "native.sse"
    argv = [AGUI, "translate", str(LEGACY), "-o", str(target)]
    done = subprocess.run(
        [sys.executable, "-c", _limited(100), *argv],
        capture_output=True,
        env=_env(unbuffered),
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    _one_error_line(done.stderr, f"agui: {target}: File too large")
    assert not target.exists()


STARTED = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n'
FINISHED = b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r1"}\n\n'


@contextmanager
def _proxy(stdout: int, limit: int | None, unbuffered: bool) -> Iterator[str]:
    """`agui proxy --json` in front of a scripted upstream, its stdout on `stdout`
    (under a file-size limit of `limit` bytes): the URL to reach it through."""
    with scripted_server({"/chat": Route([STARTED, FINISHED])}) as upstream:
        argv = [AGUI, "proxy", "--json", "--listen", "0", "--upstream", upstream.url("")]
        if limit is not None:
            argv = [sys.executable, "-c", _limited(limit), *argv]
        process = subprocess.Popen(
            argv, stdout=stdout, stderr=subprocess.PIPE, env=_env(unbuffered)
        )
        try:
            assert process.stderr is not None
            url = ""
            for _ in range(8):
                line = process.stderr.readline().decode()
                if "listening on " in line:
                    url = line.split("listening on ", 1)[1].split()[0]
                    break
            yield url
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            stderr = process.stderr.read()
            process.stderr.close()
    assert process.returncode == 2, stderr.decode()
    _one_error_line(stderr, FULL if limit is None else TOO_LARGE)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_proxy_json_on_a_full_device_stops_at_its_first_line(unbuffered: bool) -> None:
    with open("/dev/full", "wb") as full, _proxy(full.fileno(), None, unbuffered):
        pass  # the listening line fails: the proxy ends without serving anyone


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_proxy_json_whose_exchange_line_meets_the_size_limit_ends_with_one_line(
    unbuffered: bool, tmp_path: Path
) -> None:
    # The listening line fits, the exchange's does not: it fails on a server thread,
    # where the error used to be lost while the proxy served on with a cut log.
    out = tmp_path / "out"
    with out.open("wb") as stdout, _proxy(stdout.fileno(), 100, unbuffered) as url:
        answer = httpx.post(url + "/chat", json={"runId": "r1"}, timeout=20)
        assert answer.content == STARTED + FINISHED  # its client is served whole
    assert out.read_bytes().startswith(b'{"type": "listening"')
