"""Untrusted text made safe to show on a terminal: its control characters become escapes.

Recordings, a server's answers and the requests `--serve`/`agui proxy` receive are
written by others; an ESC among them would act on the user's terminal instead of showing.
"""

from __future__ import annotations

CONTROL_ESCAPES = {
    code: f"\\x{code:02x}"
    for code in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0))
    if code != 0x0A  # line breaks are laid out by the caller
} | {
    code: f"\\u{code:04x}"
    for code in (
        *range(0x202A, 0x202F),  # bidi embeddings and overrides
        *range(0x2066, 0x206A),  # bidi isolates
        0x200E,  # left-to-right mark
        0x200F,  # right-to-left mark
        0x061C,  # Arabic letter mark
        0x2028,  # line separator
        0x2029,  # paragraph separator
    )
}
"""Characters that would act on the terminal rather than show (ESC starts a sequence that
can clear the screen, set the title or the clipboard; C1 controls; bidi overrides and
marks that reorder what is shown; separators some terminals break lines at), written as
visible escapes, the way findings show them."""


def visible(text: str) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\u202e`)."""
    # Every character escaped is a control or format character, which `isprintable`
    # refuses: one scan in C answers for nearly every text (a translation prints tens of
    # thousands of notices), where `str.translate` looks each character up in a dict.
    if text.isprintable():
        return text
    return text.translate(CONTROL_ESCAPES)


def visible_line(text: str) -> str:
    """`visible(text)` kept on one line: a line break becomes `\\x0a` too. For a line
    that quotes what others sent (a path, a runId, an item id): a break there would
    show as a second line of agui's own, a forged request or answer."""
    return visible(text).replace("\n", "\\x0a")


_BYTE_ESCAPES = range(0xDC80, 0xDD00)
"""The lone surrogates `surrogateescape` makes of undecodable bytes 0x80-0xFF."""


def _escaped(char: str) -> str:
    code = ord(char)
    if code in _BYTE_ESCAPES:
        return f"\\x{code - 0xDC00:02x}"  # a name's byte that is not UTF-8, as on disk
    if char.isprintable():
        return char
    if code < 0x80:
        return f"\\x{code:02x}"
    # C1 controls too: `\\x9b` would read as the undecodable byte 0x9B
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable_line(text: str) -> str:
    """`text` as one printable line: an error line quoting a file name or what a server
    sent, whatever they hold.

    An undecodable byte of a name (`surrogateescape`'s U+DC80-DCFF) shows as `\\xff`,
    as on disk; any other lone surrogate (JSON's `"\\ud800"`) as `\\ud800`, so the line
    always encodes; control, format and other unprintable characters as `\\x1b`,
    `\\u202e`, `\\U000e0001`. C1 controls are `\\u009b`, not `\\x9b`, which is the byte.
    Each character is escaped alone, so the text reads back exactly unless it holds
    backslashes of its own (a `repr` in the message), which are kept as they are for
    the message to stay readable.
    """
    return "".join(map(_escaped, text))
