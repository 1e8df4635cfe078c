"""Recording where the file system has no hard links (FAT, exFAT, some network shares and
FUSE file systems): a recording still never replaces a file and never loses its bytes.

`os.link` is made to fail the way such a file system answers. The name is then taken by
a rename that refuses a taken name (`renameat2` with `RENAME_NOREPLACE`) or, where that
is missing too, by a copy into a file created with `O_EXCL`. Before, the fallback looked
for a file at the name and then renamed over it: a file that appeared in between (another
proxy's, the user's) was replaced.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from replay.proxy import new_name
from replay.proxy.new_name import give_name
from replay.proxy.recorder import Recorder, Saved, recover_killed
from tests.recorded_exchanges import finish_complete

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file semantics")

NO_LINK_ERRORS = [
    pytest.param(errno.EPERM, id="EPERM"),
    pytest.param(errno.ENOTSUP, id="ENOTSUP"),
    pytest.param(errno.EXDEV, id="EXDEV"),
]
STREAM = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r1"}\n\n' * 3


def _no_links(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def refuse(source: object, target: object, **_: object) -> None:
        raise OSError(code, os.strerror(code), str(source), None, str(target))

    monkeypatch.setattr(os, "link", refuse)


@pytest.fixture(params=["rename", "copy"])
def fallback(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The way the name is taken without links: the exclusive rename where the system
    offers it (it does here, on Linux), else the copy (forced by hiding the rename)."""
    if request.param == "rename" and new_name.exclusive_rename() is None:
        pytest.skip("no renameat2 here")
    if request.param == "copy":
        monkeypatch.setattr(new_name, "exclusive_rename", lambda: None)
    return str(request.param)


def _blind_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every look before the move answers "nothing there": the file at the name appears
    right after any check, as it does when another writer races the move."""
    never: Callable[[object], bool] = lambda path: False  # noqa: E731
    for name in ("exists", "lexists", "isfile"):
        monkeypatch.setattr(os.path, name, never)


def _hidden(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.name.startswith("."))


@pytest.mark.parametrize("code", NO_LINK_ERRORS)
def test_a_recording_is_put_in_place_with_its_sidecars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, fallback: str
) -> None:
    _no_links(monkeypatch, code)
    exchange = Recorder(tmp_path).open("r1", b'{"tag": "ours"}')
    exchange.write(STREAM)
    assert finish_complete(exchange) == Saved(tmp_path / "001-r1.sse", True)
    assert (tmp_path / "001-r1.sse").read_bytes() == STREAM
    assert json.loads((tmp_path / "001-r1.request.json").read_bytes()) == {"tag": "ours"}
    assert json.loads((tmp_path / "001-r1.exchange.json").read_bytes())["bytes"] == len(STREAM)
    assert _hidden(tmp_path) == []


@pytest.mark.parametrize("code", NO_LINK_ERRORS)
def test_a_file_at_the_name_the_check_missed_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, fallback: str
) -> None:
    exchange = Recorder(tmp_path).open("r1", b'{"tag": "ours"}')
    exchange.write(STREAM)
    (tmp_path / "001-r1.sse").write_bytes(b"another proxy's\n")
    _no_links(monkeypatch, code)
    _blind_checks(monkeypatch)
    saved = finish_complete(exchange)
    monkeypatch.undo()
    assert saved == Saved(tmp_path / "002-r1.sse", True)
    assert (tmp_path / "001-r1.sse").read_bytes() == b"another proxy's\n"
    assert (tmp_path / "002-r1.sse").read_bytes() == STREAM
    assert json.loads((tmp_path / "002-r1.exchange.json").read_bytes())["exchange"] == 2
    assert _hidden(tmp_path) == []


@pytest.mark.parametrize("code", NO_LINK_ERRORS)
def test_a_sidecar_at_its_name_the_check_missed_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, fallback: str
) -> None:
    exchange = Recorder(tmp_path).open("r1", b'{"tag": "ours"}')
    exchange.write(STREAM)
    (tmp_path / "001-r1.request.json").write_bytes(b"the user's\n")
    _no_links(monkeypatch, code)
    _blind_checks(monkeypatch)
    saved = finish_complete(exchange)
    monkeypatch.undo()
    assert saved.stream == tmp_path / "001-r1.sse"
    assert saved.error == (
        f"recorded without its sidecars: {tmp_path / '001-r1.request.json'}: File exists"
    )
    assert (tmp_path / "001-r1.request.json").read_bytes() == b"the user's\n"
    assert (tmp_path / "001-r1.sse").read_bytes() == STREAM
    assert _hidden(tmp_path) == []


@pytest.mark.parametrize("code", NO_LINK_ERRORS)
def test_a_killed_proxys_bytes_are_kept_without_replacing_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, fallback: str
) -> None:
    (tmp_path / ".001.claim").write_bytes(STREAM)  # nobody holds it: a killed proxy's
    (tmp_path / "001-r1.partial.sse").write_bytes(b"the user's\n")
    _no_links(monkeypatch, code)
    _blind_checks(monkeypatch)
    (found,) = recover_killed(tmp_path)
    monkeypatch.undo()
    assert (found.kept, found.error) == (tmp_path / "002-r1.partial.sse", None)
    assert (tmp_path / "002-r1.partial.sse").read_bytes() == STREAM
    assert (tmp_path / "001-r1.partial.sse").read_bytes() == b"the user's\n"
    assert _hidden(tmp_path) == []


def test_a_copy_that_fails_keeps_the_bytes_where_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = tmp_path / ".001.claim", tmp_path / "001-r1.sse"
    source.write_bytes(STREAM)
    _no_links(monkeypatch, errno.EPERM)
    monkeypatch.setattr(new_name, "exclusive_rename", lambda: None)
    real_fdopen = os.fdopen

    class Full:
        """The new file, on a disk that fills up at its first write."""

        def __init__(self, fd: int, *args: object, **kwargs: object) -> None:
            self.file = real_fdopen(fd, "wb")

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *_: object) -> None:
            self.file.close()

        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", Full)
    with pytest.raises(OSError, match="No space left"):
        give_name(source, target)
    monkeypatch.undo()
    assert source.read_bytes() == STREAM
    assert not target.exists()  # the unfinished copy is gone


@pytest.mark.parametrize("code", NO_LINK_ERRORS)
def test_a_taken_name_is_refused_and_the_source_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, fallback: str
) -> None:
    source, target = tmp_path / ".001.claim", tmp_path / "001-r1.sse"
    source.write_bytes(STREAM)
    target.write_bytes(b"theirs\n")
    _no_links(monkeypatch, code)
    _blind_checks(monkeypatch)
    with pytest.raises(FileExistsError):
        give_name(source, target)
    monkeypatch.undo()
    assert (source.read_bytes(), target.read_bytes()) == (STREAM, b"theirs\n")


def test_an_error_that_is_no_missing_link_support_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = tmp_path / ".001.claim", tmp_path / "001-r1.sse"
    source.write_bytes(STREAM)
    _no_links(monkeypatch, errno.EIO)
    with pytest.raises(OSError, match="Input/output error"):
        give_name(source, target)
    monkeypatch.undo()
    assert source.read_bytes() == STREAM
    assert not target.exists()
