"""Untrusted text made safe to show on a terminal: its control characters become escapes.

Recordings, a server's answers and the requests `--serve`/`agui proxy` receive are
written by others; an ESC among them would act on the user's terminal instead of showing.
"""

from __future__ import annotations

import re

CONTROL_ESCAPES = {
    code: f"\\x{code:02x}"
    for code in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0))
    if code != 0x0A  # line breaks are laid out by the caller
} | {code: f"\\u{code:04x}" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
"""Characters that would act on the terminal rather than show (ESC starts a sequence that
can clear the screen, set the title or the clipboard; C1 controls; bidi overrides that
reorder what is shown), written as visible escapes, the way findings show them."""


_ANY_CONTROL = re.compile("[" + "".join(re.escape(chr(code)) for code in CONTROL_ESCAPES) + "]")
"""Whether a text holds any of them: one scan in C, where `str.translate` looks every
character up in a dict (a translation prints tens of thousands of notices, nearly all
without one)."""


def visible(text: str) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\u202e`)."""
    if _ANY_CONTROL.search(text) is None:
        return text
    return text.translate(CONTROL_ESCAPES)
