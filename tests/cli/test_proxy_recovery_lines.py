"""`agui proxy --record` says what became of each placeholder a killed proxy left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli.proxy_command import recovery_lines
from replay.proxy.recorder import recover_killed


@pytest.mark.skipif(os.name != "posix", reason="hard links")
def test_a_placeholder_whose_bytes_were_in_place_is_said_to_be_removed(tmp_path: Path) -> None:
    (tmp_path / "001-r1.sse").write_bytes(b"data: {}\n\n")
    os.link(tmp_path / "001-r1.sse", tmp_path / ".001.claim")
    (tmp_path / ".002.claim").write_bytes(b"data: {}\n\n")
    lines = sorted(recovery_lines(recover_killed(tmp_path)))
    assert lines == [
        f"agui proxy: kept {tmp_path / '002-no-run-id.partial.sse'}: the 10 bytes a killed"
        " proxy had recorded (its stream was cut)",
        f"agui proxy: removed {tmp_path / '.001.claim'}: a killed proxy had already"
        f" recorded its bytes as {tmp_path / '001-r1.sse'}",
    ]
