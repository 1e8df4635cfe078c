"""`agui translate -o OUT` puts the request beside OUT, so `agui resume --from OUT` works.

Before, the translation had no `OUT.request.json`: `agui resume --from native.sse` then
built a continuation with no history and `tools: []`, unless the user found the legacy
request and passed it with `--request`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

LEGACY = Path(__file__).resolve().parents[2] / "examples" / "legacy"
RUN = LEGACY / "tool-approval.0.42.0.sse"
REQUEST = LEGACY / "tool-approval.0.42.0.request.json"
runner = CliRunner()


def test_the_request_goes_beside_the_translation_and_resume_reads_it(tmp_path: Path) -> None:
    out = tmp_path / "native.sse"
    assert runner.invoke(app, ["translate", str(RUN), "-o", str(out)]).exit_code == 0
    assert (tmp_path / "native.request.json").read_bytes() == REQUEST.read_bytes()
    resumed = runner.invoke(app, ["resume", "--from", str(out), "--approve-all", "--dry-run"])
    assert resumed.exit_code == 0, resumed.output
    body = json.loads(resumed.stdout)
    assert body["messages"]
    assert body["tools"] == json.loads(REQUEST.read_text())["tools"]


def test_a_request_given_with_request_goes_beside_it_too(tmp_path: Path) -> None:
    run = tmp_path / "legacy.sse"  # no sidecar of its own
    shutil.copyfile(RUN, run)
    out = tmp_path / "native.sse"
    result = runner.invoke(app, ["translate", str(run), "--request", str(REQUEST), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "native.request.json").read_bytes() == REQUEST.read_bytes()


def test_a_different_file_already_there_is_left_with_a_warning(tmp_path: Path) -> None:
    out = tmp_path / "native.sse"
    mine = tmp_path / "native.request.json"
    mine.write_text('{"mine": true}\n')
    result = runner.invoke(app, ["translate", str(RUN), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert mine.read_text() == '{"mine": true}\n'
    assert f"agui: warning: {mine} is there and differs from {REQUEST}; left as it is" in (
        " ".join(result.stderr.split())
    )
    # the same request already there: nothing said, nothing written
    mine.write_bytes(REQUEST.read_bytes())
    again = runner.invoke(app, ["translate", str(RUN), "-o", str(out)])
    assert again.exit_code == 0
    assert "warning" not in again.stderr


def test_no_request_no_file(tmp_path: Path) -> None:
    run = tmp_path / "legacy.sse"
    shutil.copyfile(RUN, run)
    assert runner.invoke(app, ["translate", str(run), "-o", str(tmp_path / "n.sse")]).exit_code == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["legacy.sse", "n.sse"]
