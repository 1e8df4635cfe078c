"""A signal at the worst moment of a write leaves no temp file behind.

The signal is sent by the agui process to itself at an exact point: right after a temp
file was created (before it was known to the cleanup), or right after an output was
opened (before the block that would discard it began). Under a timer, killing a large
`migrate --write` left such a file about one run in five. The run itself is the real
console script; only the moment of the signal is chosen.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"

# Runs `agui ARGS` with `SIGNAL` sent at `WHERE`: "mkstemp" (the temp file exists, the
# cleanup does not know it yet) or "opened" (the output is open, its `with` not begun).
INJECT = """
import os, sys, tempfile
from replay.wire import output_file

where, number = sys.argv[1], int(sys.argv[2])
sent = []

def now():
    if not sent:
        sent.append(True)
        os.kill(os.getpid(), number)

if where == "mkstemp":
    real_mkstemp = tempfile.mkstemp
    def mkstemp(*args, **kwargs):
        made = real_mkstemp(*args, **kwargs)
        now()
        return made
    tempfile.mkstemp = mkstemp
else:
    real_init = output_file.OutputFile.__init__
    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        now()
    output_file.OutputFile.__init__ = init

from cli.app import main
sys.argv = ["agui", *sys.argv[3:]]
main()
"""


def _run(where: str, number: int, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", INJECT, where, str(int(number)), *args],
        capture_output=True,
        timeout=120,
        check=False,
    )


def _code(tmp_path: Path) -> tuple[Path, dict[Path, bytes]]:
    tree = tmp_path / "code"
    tree.mkdir()
    for number in range(5):
        (tree / f"m{number}.py").write_bytes(LEGACY_CODE)
    return tree, {path: path.read_bytes() for path in tree.iterdir()}


def _temp_files(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.name.endswith(".agui-tmp"))


@pytest.mark.parametrize("where", ["mkstemp", "opened"])
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_migrate_write_leaves_originals_and_no_temp_file(
    tmp_path: Path, where: str, number: int
) -> None:
    tree, before = _code(tmp_path)
    done = _run(where, number, "migrate", "--write", "-j", "1", str(tree))
    assert done.returncode == -number, done.stderr.decode()[-500:]
    assert _temp_files(tree) == []
    assert {path: path.read_bytes() for path in tree.iterdir()} == before


@pytest.mark.parametrize("where", ["mkstemp", "opened"])
def test_a_ctrl_c_during_migrate_write_leaves_originals_and_no_temp_file(
    tmp_path: Path, where: str
) -> None:
    tree, before = _code(tmp_path)
    done = _run(where, signal.SIGINT, "migrate", "--write", "-j", "1", str(tree))
    assert done.returncode == 130
    assert done.stderr.decode().splitlines()[-1] == "agui: interrupted"
    assert _temp_files(tree) == []
    assert {path: path.read_bytes() for path in tree.iterdir()} == before


@pytest.mark.parametrize("where", ["mkstemp", "opened"])
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_translate_output_leaves_no_temp_file(
    tmp_path: Path, where: str, number: int
) -> None:
    out = tmp_path / "out.sse"
    out.write_bytes(b"old\n")
    done = _run(where, number, "translate", str(LEGACY), "-o", str(out))
    assert done.returncode in (130, -number)
    assert _temp_files(tmp_path) == []
    assert out.read_bytes() == b"old\n"


def test_a_sighup_under_nohup_lets_the_write_finish(tmp_path: Path) -> None:
    # `nohup agui translate …`, then the terminal closes: SIGHUP is ignored, so the run
    # goes on; the temp file it was writing used to be removed all the same, and the
    # run failed at the end with "No such file or directory".
    out = tmp_path / "out.sse"
    ignored = "import signal\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\n" + INJECT
    args = ["translate", str(LEGACY), "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", ignored, "opened", str(int(signal.SIGHUP)), *args],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-500:]
    whole = subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", "translate", str(LEGACY)],
        capture_output=True,
        check=True,
    )
    assert out.read_bytes() == whole.stdout
    assert _temp_files(tmp_path) == []


# The bytes copied into a hard-linked target's own inode, with SIGNAL sent halfway.
HALFWAY = """
import os, sys
from replay.wire import output_file

number = int(sys.argv[1])

def copy_into(source, target):
    data = open(source, "rb").read()
    with open(target, "r+b") as writer:
        writer.write(data[: len(data) // 2])
        writer.flush()
        os.kill(os.getpid(), number)
        writer.write(data[len(data) // 2 :])
        writer.truncate()

output_file._copy_into = copy_into
from cli.app import main
sys.argv = ["agui", *sys.argv[2:]]
main()
"""


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_hard_linked_file_is_never_left_half_overwritten(tmp_path: Path, number: int) -> None:
    # A file with other hard links is rewritten in its own inode, not renamed over: a
    # signal in the middle of that copy left half new bytes over the old ones.
    tree, before = _code(tmp_path)
    target = tree / "m0.py"
    os.link(target, tmp_path / "link.py")
    done = subprocess.run(
        [sys.executable, "-c", HALFWAY, str(int(number)), "migrate", "--write", str(target)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (130, -number), done.stderr.decode()[-500:]
    now = target.read_bytes()
    assert now == before[target] or (b"resolve_interrupt(" in now and compile(now, "m0", "exec"))
    assert (tmp_path / "link.py").read_bytes() == now
    assert _temp_files(tree) == []
