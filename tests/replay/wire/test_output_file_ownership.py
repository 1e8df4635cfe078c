"""`output_file` in directories the user does not own: no temp file beside the target,
owners kept, other users' links and files in sticky directories refused.

These tests chown files to other uids, so they need root (the test bed runs as root).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replay.wire.output_file import OutputFile, remove_stale_temp_files, write_output

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")

ROOT = Path(__file__).resolve().parents[3]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
OWNER, STRANGER, NOBODY = 4242, 4343, 65534


def owned(path: Path, uid: int, mode: int) -> Path:
    if not path.exists():
        path.touch()
    os.chown(path, uid, uid)
    path.chmod(mode)
    return path


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """A directory another user owns (root may still write into it)."""
    folder = tmp_path / "alice"
    folder.mkdir()
    return owned(folder, OWNER, 0o755)


@pytest.fixture
def sticky(tmp_path: Path) -> Path:
    """A shared sticky directory like /tmp, owned by another user."""
    folder = tmp_path / "shared"
    folder.mkdir()
    return owned(folder, OWNER, 0o1777)


def test_no_temp_file_is_created_in_a_directory_someone_else_owns(foreign: Path) -> None:
    target = foreign / "new.sse"
    out = OutputFile(target)
    out.write(b"data\n")
    assert os.listdir(foreign) == []  # nothing beside the target while the run goes on
    out.commit()
    assert target.read_bytes() == b"data\n"
    assert os.listdir(foreign) == ["new.sse"]


def test_a_rewritten_file_in_someone_elses_directory_keeps_owner_inode_and_mode(
    foreign: Path,
) -> None:
    target = owned(foreign / "rec.sse", OWNER, 0o640)
    target.write_bytes(b"old content that is longer\n")
    before = target.stat()
    write_output(target, b"new\n")
    after = target.stat()
    assert target.read_bytes() == b"new\n"
    assert (after.st_uid, after.st_gid, after.st_ino) == (OWNER, OWNER, before.st_ino)
    assert after.st_mode == before.st_mode
    assert os.listdir(foreign) == ["rec.sse"]


def test_an_interrupted_write_in_someone_elses_directory_leaves_the_target_as_it_was(
    foreign: Path,
) -> None:
    target = owned(foreign / "rec.sse", OWNER, 0o644)
    target.write_bytes(b"old\n")

    def interrupted() -> None:
        with OutputFile(target) as out:
            out.write(b"new\n")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert target.read_bytes() == b"old\n"
    assert os.listdir(foreign) == ["rec.sse"]


def test_a_name_planted_during_the_run_is_refused_not_followed(
    foreign: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    target = foreign / "new.sse"
    out = OutputFile(target)
    out.write(b"data\n")
    target.symlink_to(victim)  # appears between the check and the commit
    with pytest.raises(OSError, match="symbolic link") as caught:
        out.commit()
    assert caught.value.filename == str(target)
    assert victim.read_bytes() == b"precious\n"


def test_another_users_file_in_a_sticky_directory_is_refused(sticky: Path) -> None:
    target = owned(sticky / "out.sse", STRANGER, 0o666)
    target.write_bytes(b"theirs\n")
    with pytest.raises(PermissionError, match="another user") as caught:
        write_output(target, b"ours\n")
    assert caught.value.filename == str(target)
    assert target.read_bytes() == b"theirs\n"
    # The directory's owner's file, like the user's own, is theirs to rewrite.
    mine = owned(sticky / "mine.sse", OWNER, 0o644)
    write_output(mine, b"ours\n")
    assert mine.read_bytes() == b"ours\n"


def test_another_users_symlink_in_a_sticky_directory_is_not_followed(
    sticky: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "passwd"
    victim.write_bytes(b"root:x:0:0\n")
    link = sticky / "out.sse"
    link.symlink_to(victim)
    os.lchown(link, STRANGER, STRANGER)
    with pytest.raises(PermissionError, match="symlink") as caught:
        write_output(link, b"ours\n")
    assert caught.value.filename == str(link)
    assert victim.read_bytes() == b"root:x:0:0\n"
    assert sorted(os.listdir(tmp_path)) == ["passwd", "shared"]
    os.lchown(link, 0, 0)  # the user's own link is followed as before
    write_output(link, b"ours\n")
    assert victim.read_bytes() == b"ours\n"


def test_translate_into_someone_elses_directory_never_shows_a_temp_file(foreign: Path) -> None:
    out = foreign / "out.sse"
    agui = Path(sys.executable).with_name("agui")
    process = subprocess.Popen(
        [str(agui), "translate", "-", "-o", str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    block = NATIVE.read_bytes()
    try:
        for _ in range((1 << 16) // len(block) + 2):  # past the head it sniffs
            process.stdin.write(block)
        process.stdin.flush()
        time.sleep(0.5)  # the run is writing and waiting for more input
        assert os.listdir(foreign) == []
        process.stdin.close()
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait()
        assert process.stderr is not None
        err = process.stderr.read()
        process.stderr.close()
    assert process.returncode == 0, err
    assert os.listdir(foreign) == ["out.sse"]
    assert out.read_bytes() == block * ((1 << 16) // len(block) + 2)


def test_an_ordinary_user_writes_into_tmp_without_a_temp_file_beside_it() -> None:
    """`-o /tmp/out.sse` for a user who does not own /tmp: it works and the file is theirs.

    A forked child drops to `nobody` (the test bed's interpreter lives where `nobody`
    cannot run it, so a fresh `agui` process is not an option) and writes there."""
    out = Path(f"/tmp/agui-ownership-{os.getpid()}.sse")
    out.unlink(missing_ok=True)
    try:
        child = os.fork()
        if child == 0:  # pragma: no cover - the child reports through its status
            status = 1
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                with OutputFile(out) as handle:
                    handle.write(b"data\n")
                    beside = [n for n in os.listdir("/tmp") if n.startswith(f".{out.name}.")]
                    status = 3 if beside else 0
            finally:
                os._exit(status)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert out.read_bytes() == b"data\n"
        assert out.stat().st_uid == NOBODY
        assert not [name for name in os.listdir("/tmp") if name.startswith(f".{out.name}.")]
    finally:
        out.unlink(missing_ok=True)


def test_a_stale_looking_temp_file_another_user_owns_is_left_alone(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    theirs = owned(tmp_path / f".a.sse.{int(dead.stdout)}.abcd1234.agui-tmp", STRANGER, 0o600)
    ours = tmp_path / f".b.sse.{int(dead.stdout)}.abcd1234.agui-tmp"
    ours.touch()
    removed = remove_stale_temp_files([tmp_path / "a.sse", tmp_path / "b.sse"], lambda _: None)
    assert removed == [ours]
    assert theirs.exists()


def test_translate_refuses_another_users_file_in_a_sticky_directory_in_one_line(
    sticky: Path,
) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    target = owned(sticky / "out.sse", STRANGER, 0o666)
    target.write_bytes(b"theirs\n")
    result = CliRunner().invoke(app, ["translate", str(NATIVE), "-o", str(target)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"agui: {target}: owned by another user in a shared directory; choose another name\n"
    )
    assert target.read_bytes() == b"theirs\n"
