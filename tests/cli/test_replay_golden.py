"""Golden files: `agui replay --normalize` over every real recording from the interop test bed.

For each case in `tests/fixtures/recordings/{native,legacy}` (its `run1.sse`, plus its
continuation `run2.sse` when there is one) the test renders the normalised NDJSON
events, the check report and the plain timeline, and compares them with
`tests/golden/replay/<group>/<case>.*`. Normalisation makes re-recordings of a scenario
byte-identical, so these files change only when agui's behaviour does.

Regenerate after an intended change (then review the diff):

    AGUI_UPDATE_GOLDEN=1 .venv/bin/pytest tests/cli/test_replay_golden.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ROOT / "tests" / "fixtures" / "recordings"
GOLDEN = ROOT / "tests" / "golden" / "replay"
UPDATE = os.environ.get("AGUI_UPDATE_GOLDEN") == "1"
runner = CliRunner()

VIEWS = {
    "events.ndjson": ["--json", "--normalize"],
    "check.txt": ["--check", "--normalize"],
    "timeline.txt": ["--normalize"],
}


def cases() -> list[tuple[str, str]]:
    found = []
    for group in ("native", "legacy"):
        for run1 in sorted((RECORDINGS / group).glob("*.run1.sse")):
            found.append((group, run1.name.removesuffix(".run1.sse")))
    return found


def render(group: str, case: str, view: str, monkeypatch: pytest.MonkeyPatch) -> str:
    folder = RECORDINGS / group
    monkeypatch.chdir(folder)
    names = [f"{case}.run1.sse"]
    if (folder / f"{case}.run2.sse").exists():
        names.append(f"{case}.run2.sse")
    result = runner.invoke(app, ["replay", *VIEWS[view], *names], env={"COLUMNS": "120"})
    assert result.exit_code in (0, 1), result.stderr
    return f"# exit {result.exit_code}\n{result.stdout}"


def test_the_fixtures_exist() -> None:
    groups = {group for group, _ in cases()}
    assert groups == {"native", "legacy"}, "run the interop test bed to record the fixtures"


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize(("group", "case"), cases())
def test_golden(group: str, case: str, view: str, monkeypatch: pytest.MonkeyPatch) -> None:
    actual = render(group, case, view, monkeypatch)
    golden = GOLDEN / group / f"{case}.{view}"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8", newline="")
    assert golden.exists(), f"{golden} is missing; regenerate with AGUI_UPDATE_GOLDEN=1"
    assert actual == golden.read_text(encoding="utf-8")


def test_no_stale_golden_files() -> None:
    expected = {f"{group}/{case}.{view}" for group, case in cases() for view in VIEWS}
    present = {str(path.relative_to(GOLDEN)) for path in GOLDEN.glob("*/*.*")}
    assert present <= expected, sorted(present - expected)
