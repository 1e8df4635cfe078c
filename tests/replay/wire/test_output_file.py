"""`replay.wire.output_file`: atomic replacement, discard, error names, stale temp files."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from replay.resume.client import AtomicFile
from replay.wire.output_file import OutputFile, stale_temp_files, write_output


def test_discard_keeps_the_old_content_and_removes_the_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "out.sse"
    target.write_bytes(b"old\n")

    def interrupted() -> None:
        with OutputFile(target) as out:
            out.write(b"new\n")
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        interrupted()
    assert target.read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["out.sse"]


def test_nothing_is_visible_before_commit(tmp_path: Path) -> None:
    target = tmp_path / "out.sse"
    out = OutputFile(target)
    out.write(b"data\n")
    assert not target.exists()
    out.commit()
    assert target.read_bytes() == b"data\n"


def test_record_file_through_a_dangling_symlink_creates_the_target(tmp_path: Path) -> None:
    link = tmp_path / "rec.sse"
    link.symlink_to(tmp_path / "store" / "rec.sse")
    (tmp_path / "store").mkdir()
    recorder = AtomicFile(link)
    recorder.write(b"data: {}\n\n")
    recorder.commit()
    assert link.is_symlink()
    assert (tmp_path / "store" / "rec.sse").read_bytes() == b"data: {}\n\n"


def test_read_only_file_is_refused_with_its_name(tmp_path: Path) -> None:
    target = tmp_path / "ro.sse"
    target.write_bytes(b"old\n")
    target.chmod(0o444)
    with pytest.raises(PermissionError) as caught:
        write_output(target, b"new\n")
    assert caught.value.filename == str(target)
    assert target.read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["ro.sse"]


def test_stale_temp_files_are_recognised_by_a_dead_pid(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    pid = int(dead.stdout)
    stale = tmp_path / f".a.py.{pid}.abcd1234.agui-tmp"
    live = tmp_path / f".a.py.{os.getpid()}.abcd1234.agui-tmp"
    foreign = tmp_path / ".a.py.abcd1234.tmp"
    for path in (stale, live, foreign):
        path.write_bytes(b"")
    assert list(stale_temp_files(tmp_path)) == [stale]


def test_a_retarget_moves_the_bytes_to_a_new_name_beside(tmp_path: Path) -> None:
    out = OutputFile(tmp_path / "run.sse")
    out.write(b"cut\n")
    assert out.retarget(tmp_path / "run.partial.sse")
    out.commit()
    assert sorted(os.listdir(tmp_path)) == ["run.partial.sse"]
    assert (tmp_path / "run.partial.sse").read_bytes() == b"cut\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_retarget_onto_what_is_no_regular_file_or_read_only_is_refused(tmp_path: Path) -> None:
    # As opening refuses them: a FIFO (or directory) there is never replaced by a file,
    # and a read-only file is not rewritten.
    os.mkfifo(tmp_path / "fifo.partial.sse")
    (tmp_path / "dir.partial.sse").mkdir()
    locked = tmp_path / "locked.partial.sse"
    locked.write_bytes(b"keep\n")
    locked.chmod(0o444)
    for name, words in (("fifo", "not a regular file"), ("dir", "not a regular file")):
        out = OutputFile(tmp_path / f"{name}.sse")
        with pytest.raises(OSError, match=words) as refused:
            out.retarget(tmp_path / f"{name}.partial.sse")
        assert refused.value.filename == str(tmp_path / f"{name}.partial.sse")
        out.discard()
    out = OutputFile(tmp_path / "locked.sse")
    with pytest.raises(PermissionError, match="read-only"):
        out.retarget(locked)
    out.discard()
    assert locked.read_bytes() == b"keep\n"
    assert sorted(os.listdir(tmp_path)) == [
        "dir.partial.sse",
        "fifo.partial.sse",
        "locked.partial.sse",
    ]


def test_bytes_written_straight_into_a_device_stay_there_on_a_retarget() -> None:
    out = AtomicFile(Path(os.devnull))
    out.write(b"cut\n")
    out.path = Path(os.devnull + ".partial")  # what a cut response asks for
    out.commit()
    assert out.path == Path(os.devnull)
    assert not Path(os.devnull + ".partial").exists()


def test_a_file_made_read_only_while_the_run_went_on_is_refused(tmp_path: Path) -> None:
    # a 20 MB translation takes seconds: `chmod a-w` in that time protects the file too
    target = tmp_path / "out.sse"
    target.write_bytes(b"old\n")
    out = OutputFile(target)
    out.write(b"new\n")
    target.chmod(0o444)
    with pytest.raises(PermissionError) as caught:
        out.commit()
    assert caught.value.filename == str(target)
    assert target.read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["out.sse"]


# In a process whose files cannot grow past LIMIT (a full disk, without root): the
# temp file is made before the limit, then copied into the hard-linked target's inode.
FULL_DISK_COPY = """
import os, resource, signal, sys
from replay.wire import output_file

temp, target, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    output_file._copy_into(temp, target)
except OSError as error:
    sys.exit(error.strerror)
"""


def test_a_hard_linked_target_the_disk_cannot_grow_keeps_its_old_bytes(tmp_path: Path) -> None:
    # Rewritten in its own inode, the file used to get the new bytes up to where the disk
    # was full: half new, the rest gone.
    old, new = b"old line\n" * 1000, b"new line!\n" * 1500
    target, temp = tmp_path / "out.sse", tmp_path / "temp"
    target.write_bytes(old)
    os.link(target, tmp_path / "link.sse")
    temp.write_bytes(new)
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_COPY, str(temp), str(target), str(len(old) + 100)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.decode().strip() == "File too large"
    assert target.read_bytes() == old
    assert (tmp_path / "link.sse").read_bytes() == old


@pytest.mark.parametrize("seed", range(20))
def test_a_hard_linked_target_gets_exactly_the_new_bytes(tmp_path: Path, seed: int) -> None:
    # shorter, longer or as long as before, across the copy's block size
    rng = random.Random(seed)
    old = rng.randbytes(rng.choice([0, 1, 5000, (1 << 20) + 7]))
    new = rng.randbytes(rng.choice([0, 3, 4999, (1 << 20) - 1, (2 << 20) + 3]))
    target = tmp_path / "out.sse"
    target.write_bytes(old)
    os.link(target, tmp_path / "link.sse")
    write_output(target, new)
    assert target.read_bytes() == new
    assert (tmp_path / "link.sse").read_bytes() == new
    assert sorted(os.listdir(tmp_path)) == ["link.sse", "out.sse"]
