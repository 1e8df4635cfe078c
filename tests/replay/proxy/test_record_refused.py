"""A recording directory that stops taking changes while an exchange streams into it:
the exchange ends with `Saved.error`, never with an exception out of the tap.

The directory is made read-only for the recorder's user mid-stream, so linking the
placeholder to its name fails and so does removing it. Root writes anywhere, so the
recorder runs in its own process that gives up root first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
NOBODY = 65534

# Everything the recorder imports is imported while still root: the interpreter's own
# files may not be readable by `nobody`.
RECORDER = r"""
import fcntl, json, os, sys
from pathlib import Path
from replay.proxy.recorder import Recorder

directory = Path(sys.argv[1])
os.setgid(65534)
os.setuid(65534)
exchange = Recorder(directory).open("r1", b'{"runId": "r1"}')
exchange.write(b"data: {}\n\n")
os.chmod(directory, 0o555)
saved = exchange.finish(complete=True, method="POST", path="/chat", status=200,
                        request_headers=[], response_headers=[], end="complete")
print(json.dumps([saved.stream is None, saved.error]))
"""


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving the recorder a user the directory can refuse needs root",
)
def test_a_directory_turned_read_only_mid_stream_is_a_saved_error_not_an_exception() -> None:
    directory = Path(tempfile.mkdtemp(prefix="agui-refused-"))
    try:
        os.chown(directory, NOBODY, NOBODY)
        ran = subprocess.run(
            [sys.executable, "-c", RECORDER, str(directory)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        not_recorded, error = json.loads(ran.stdout)
        assert not_recorded
        assert error == f"not recorded: {directory / '001-r1.sse'}: Permission denied"
        # what could not be linked nor removed stays hidden, where no `*.sse` glob finds it
        assert [path.name for path in directory.iterdir()] == [".001.claim"]
    finally:
        os.chmod(directory, 0o755)
        shutil.rmtree(directory)
