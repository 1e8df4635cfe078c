"""Pacing by recorded timestamps, shared by the terminal replay and the server."""

from __future__ import annotations

import pytest

from replay.serve.pacing import FAST, REAL, Pace, Pacer


@pytest.mark.parametrize(
    ("text", "factor"), [("fast", None), ("real", 1.0), ("2", 2.0), ("0.5x", 0.5), (" REAL ", 1.0)]
)
def test_parse(text: str, factor: float | None) -> None:
    assert Pace.parse(text).factor == factor


@pytest.mark.parametrize("text", ["slowly", "0", "-1", "inf", ""])
def test_parse_refuses_what_is_not_a_pace(text: str) -> None:
    with pytest.raises(ValueError, match="pace"):
        Pace.parse(text)


def test_pacer_sleeps_the_scaled_gaps_and_caps_long_ones() -> None:
    slept: list[float] = []
    pacer = Pacer(Pace(2.0), slept.append, max_gap=5.0)
    for stamp in (1000, 1500, 1400, 31400, "late", 31600):
        pacer.wait({"timestamp": stamp})
    assert slept == [0.25, 5.0, 0.1]


def test_fast_never_sleeps_and_real_keeps_time() -> None:
    slept: list[float] = []
    Pacer(FAST, slept.append).wait({"timestamp": 1})
    real = Pacer(REAL, slept.append)
    real.wait({"timestamp": 1000})
    real.wait({"timestamp": 1250})
    assert slept == [0.25]
