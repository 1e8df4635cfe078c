"""`cli.visible_text.visible`: its quick "no control character" answer equals the plain
translation, whatever the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cli.visible_text import CONTROL_ESCAPES, visible

CONTROLS = st.sampled_from([chr(code) for code in CONTROL_ESCAPES])
TEXTS = st.lists(st.one_of(st.text(max_size=8), CONTROLS)).map("".join)


@given(TEXTS)
def test_visible_equals_the_plain_translation(text: str) -> None:
    assert visible(text) == text.translate(CONTROL_ESCAPES)


def test_every_control_character_is_caught() -> None:
    for code, escape in CONTROL_ESCAPES.items():
        assert visible(f"a{chr(code)}b") == f"a{escape}b"
    assert visible("plain\ntext é ✓") == "plain\ntext é ✓"


def test_bidi_marks_and_unicode_line_breaks_are_shown_not_obeyed() -> None:
    text = "tool\u200fname\u200e\u061c x\u2028y\u2029z"
    assert visible(text) == "tool\\u200fname\\u200e\\u061c x\\u2028y\\u2029z"
