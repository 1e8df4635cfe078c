"""Inputs the hostile-value fuzz tests (tests/replay/*/test_*_fuzz.py) found crashing a
library function, run through the real `agui` executable as a subprocess.

Each must end as the house rule says: a result (exit 0 or 1) or one line on stderr and
exit 2; never a traceback, and never an output file left half-written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGUI = str(Path(sys.executable).with_name("agui"))
BIG = "1" + "0" * 400
"""An integer no double holds: `JSON.parse` reads it as Infinity."""


def _agui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGUI, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "Error:" not in result.stderr.replace("RUN_ERROR", ""), result.stderr


def _frames(*events: str) -> bytes:
    return b"".join(f"data: {event}\n\n".encode() for event in events)


PAUSE_WITH_BIG_NUMBERS = _frames(
    '{"type":"RUN_STARTED","runId":"r","threadId":"t"}',
    '{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"pick"}',
    '{"type":"TOOL_CALL_END","toolCallId":"c","input":{"n":' + BIG + "}}",
    '{"type":"RUN_FINISHED","runId":"r","threadId":"t","finishReason":"tool_calls",'
    '"result":' + BIG + "}",
    '{"type":"CUSTOM","name":"tool-input-available",'
    '"value":{"toolCallId":"c","toolName":"pick","input":{"n":-' + BIG + "}}}",
)


def test_translate_writes_an_integer_no_double_holds_as_null(tmp_path: Path) -> None:
    (tmp_path / "big.sse").write_bytes(PAUSE_WITH_BIG_NUMBERS)
    result = _agui(tmp_path, "translate", "big.sse", "-o", "out.sse")
    _no_traceback(result)
    assert result.returncode == 0, result.stderr
    out = (tmp_path / "out.sse").read_text(encoding="utf-8")
    assert '"outcome":{"type":"interrupt"' in out
    assert '"result"' not in out  # Infinity to JavaScript: a retired null, left out
    assert '"arguments":"{\\"n\\":null}"' in out
    synthesised = [
        line for line in out.splitlines() if "SNAPSHOT" in line or "RUN_FINISHED" in line
    ]
    assert synthesised
    assert all(BIG not in line for line in synthesised)  # (passed-through events: verbatim)
    again = _agui(tmp_path, "translate", "out.sse")
    assert again.returncode == 0, again.stderr
    assert again.stdout == out  # its own output translates to itself
