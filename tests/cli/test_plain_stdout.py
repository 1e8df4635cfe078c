"""The plain timeline without rich (cli/stdout.py `PlainStdout`) writes what rich's
console writes to a pipe: per call on random text, and whole `agui replay` timelines."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import cli.stdout
from cli.app import app
from cli.stdout import PlainStdout, stdout_console
from tests.hostile_streams import recordings

ROOT = Path(__file__).resolve().parents[2]
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from("\t\r\n\x07\x08\x0b\x0c\x1b\x00 a日\u0301"),
    ),
    max_size=30,
)
runner = CliRunner()


@pytest.fixture(autouse=True)
def _a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls=st.lists(st.tuples(TEXT, st.sampled_from(["\n", ""])), max_size=5))
def test_each_write_is_what_rich_prints(
    calls: list[tuple[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    from rich.text import Text

    capsys.readouterr()
    plain = PlainStdout()
    for text, end in calls:
        plain.write(text, end)
    fast = capsys.readouterr().out
    console = stdout_console()
    assert not console.is_terminal
    for text, end in calls:
        console.print(Text(text), end=end, soft_wrap=True, highlight=False, markup=False)
    assert fast == capsys.readouterr().out


def _timelines(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    fast = runner.invoke(app, ["replay", str(path)])
    with monkeypatch.context() as patch:
        patch.setattr(cli.stdout, "timeline_stdout", stdout_console)
        plain = runner.invoke(app, ["replay", str(path)])
    return (
        (fast.exit_code, fast.stdout_bytes, fast.stderr),
        (plain.exit_code, plain.stdout_bytes, plain.stderr),
    )


def test_the_timelines_of_the_recordings_are_rich_s(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted((ROOT / "tests" / "fixtures" / "recordings").rglob("*.sse"))
    assert paths
    for path in [*paths, ROOT / "examples" / "transfer-approval.sse"]:
        fast, plain = _timelines(path, monkeypatch)
        assert fast == plain, path


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=recordings(max_events=25))
def test_the_timelines_of_hostile_recordings_are_rich_s(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "hostile.sse"
        path.write_bytes(data.replace(b"m", b"m\t", 1))  # and a tab, padded by cells
        fast, plain = _timelines(path, monkeypatch)
    assert fast == plain


def test_a_terminal_or_forced_colour_gets_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(cli.stdout.timeline_stdout(), PlainStdout)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not isinstance(cli.stdout.timeline_stdout(), PlainStdout)
