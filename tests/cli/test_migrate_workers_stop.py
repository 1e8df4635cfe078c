"""`agui migrate` stopped while its worker processes parse: no worker outlives it.

SIGTERM (a service manager, `timeout`) or Ctrl-C sent to the main process only ends it
without the interpreter's teardown; the workers, waiting on a queue nothing would close
any more, stayed asleep for good, one per core, each holding the terminal's or the
pipe's stderr open. A Ctrl-C from a terminal reaches every worker as well: none may
print a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

AGUI = str(Path(sys.executable).with_name("agui"))
FUNCTION = (
    "def handler_{n}(client, approval, items):\n"
    "    total = sum(len(str(item)) for item in items if item)\n"
    "    client.add_tool_approval_response(id=approval.id, approved=total > {n})\n"
    "    return [client.pending_interrupts for _ in range(total % 7)]\n\n\n"
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "code"
    tree.mkdir()
    body = "".join(FUNCTION.format(n=n) for n in range(60))
    for number in range(400):
        (tree / f"m{number}.py").write_text(body)
    return tree


def _state(pid: int) -> str | None:
    """The process's state letter (`Z` for a zombie), None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _workers_once_busy(process: subprocess.Popen[bytes]) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        children = _children(process.pid)
        if len(children) >= 2:
            time.sleep(0.3)  # the workers have started on the first batches
            return _children(process.pid)
        time.sleep(0.02)
    raise AssertionError("the run never started its worker processes")


@pytest.mark.parametrize(
    ("number", "group"),
    [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True)],
    ids=["SIGTERM", "SIGINT", "Ctrl-C to the process group"],
)
def test_no_worker_outlives_a_stopped_migrate(tmp_path: Path, number: int, group: bool) -> None:
    tree = _tree(tmp_path)
    before = {path: path.read_bytes() for path in tree.iterdir()}
    process = subprocess.Popen(
        [AGUI, "migrate", "--write", "-q", "-j", "2", str(tree)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    workers: list[int] = []
    try:
        workers = _workers_once_busy(process)
        if group:
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
        process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_state(w) not in (None, "Z") for w in workers):
            time.sleep(0.05)
        assert [w for w in workers if _state(w) not in (None, "Z")] == []
    finally:
        for worker in workers:
            if _state(worker) not in (None, "Z"):
                os.kill(worker, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
        assert process.stderr is not None
        stderr = process.stderr.read().decode()
        process.stderr.close()
    assert process.returncode in (-number, 130)
    assert "Traceback" not in stderr
    # Stopped mid-scan as a rule; should the signal land in the write, each file is whole.
    for path in tree.iterdir():
        assert path.name.endswith(".py"), path.name  # no temp file left
        now = path.read_bytes()
        assert now == before[path] or b"resolve_interrupt(" in now
        compile(now, str(path), "exec")
