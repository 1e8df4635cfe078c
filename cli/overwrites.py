"""An output path that names a file the same run reads: refused before any work.

Writing a `--record` over the recording a resume reads, or appending `--log` lines to a
recording being served, would destroy what the run (or a retry of it) needs. Paths are
compared as files (`os.path.samefile`: through links, `./x` and `x` alike); a path that
does not exist yet names nothing that could be lost.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path


def overwritten_input(
    outputs: Iterable[str | Path], inputs: Iterable[str | Path]
) -> tuple[Path, Path] | None:
    """The first (output, input) pair that names one file, or None."""
    read = [Path(path) for path in inputs]
    for output in outputs:
        for path in read:
            with suppress(OSError):
                if os.path.samefile(output, path):
                    return Path(output), path
    return None
