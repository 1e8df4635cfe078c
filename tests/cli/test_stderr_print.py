"""`cli.errors.stderr_print` writes what rich's stderr console prints, without rich
when it can: random lines and widths, both ways."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cli.errors
from cli.errors import stderr_print

LINES = st.one_of(
    st.from_regex(
        r"agui replay: [0-9]{1,12} errors?, [0-9]{1,12} warnings?, [0-9]{1,12} notices?",
        fullmatch=True,
    ),
    st.text(alphabet=st.sampled_from("ab :[]/\t\x07日-_"), max_size=120),
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=LINES, columns=st.one_of(st.none(), st.sampled_from(["20", "45", "80", "x", "200"])))
def test_a_line_is_what_rich_prints(
    text: str,
    columns: str | None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich.console import Console

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(cli.errors.stderr, "_console", None)  # made anew, as in a new process
    capsys.readouterr()
    stderr_print(text)
    fast = capsys.readouterr().err
    Console(stderr=True, highlight=False).print(text, markup=False)
    assert fast == capsys.readouterr().err
