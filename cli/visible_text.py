"""Untrusted text made safe to show on a terminal: its control characters become escapes.

Recordings, a server's answers and the requests `--serve`/`agui proxy` receive are
written by others; an ESC among them would act on the user's terminal instead of showing.
"""

from __future__ import annotations

import re
from typing import Final

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
    if char.isprintable() and code not in _SELECTORS:
        return char
    return _escape(code)


def _escape(code: int) -> str:
    if code < 0x80:
        return f"\\x{code:02x}"
    # C1 controls too: `\\x9b` would read as the undecodable byte 0x9B
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_JOINERS: Final = frozenset("\u200c\u200d")
"""ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER: they shape emoji (`👩‍💻`) and scripts
(Persian, the Indic conjuncts) and do nothing else."""
_SELECTORS: Final = frozenset((0xFE0E, 0xFE0F))
"""Text and emoji presentation selectors (`❤︎`, `❤️`, the keycap `1️⃣`)."""
_FLAG_TAGS: Final = re.compile(
    "\U0001f3f4([\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7})\U000e007f"
)
"""A subdivision flag (`🏴` + tags spelling `gbeng` + CANCEL TAG, England's flag):
the tag characters that spell the region code and end the sequence."""


def _solid(char: str) -> bool:
    """A character that shows as itself and is no space or selector: what a joiner
    may stand between, and a selector may follow."""
    return char.isprintable() and not char.isspace() and ord(char) not in _SELECTORS


def _shaping(text: str) -> set[int]:
    """The positions of the joiners, selectors and tags in `text` that only shape the
    emoji or the word they stand in, and are shown as themselves (`printable_line`)."""
    kept: set[int] = set()
    for match in _FLAG_TAGS.finditer(text):
        kept.update(range(match.start(1), match.end()))
    for at, char in enumerate(text):
        if ord(char) in _SELECTORS and at and _solid(text[at - 1]):
            kept.add(at)
    for at, char in enumerate(text):
        if char in _JOINERS and 0 < at < len(text) - 1 and _solid(text[at + 1]):
            before = text[at - 1]
            if _solid(before) or (at - 1 in kept and before not in _JOINERS):
                kept.add(at)
    return kept


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

    Three kinds of invisible character only shape what stands around them, and are kept
    where they do, so a name like `👩‍💻.sse` reads as the user sees it elsewhere:

    - a joiner (U+200D ZWJ, U+200C ZWNJ) between two characters shown: after a solid
      character (printable, no space, no selector) or a kept selector or flag tag, and
      before a solid character. So never first or last, never two in a row, never
      beside an escape or a space, where it would hide in the line;
    - a presentation selector (U+FE0E, U+FE0F) right after a solid character; anywhere
      else it is escaped too (a lone one would hide at the start of a name);
    - the tag characters of a subdivision flag (`🏴` U+1F3F4, then 2 to 7 tag digits and
      lowercase letters U+E0030-E0039 / U+E0061-E007A, then CANCEL TAG U+E007F): that is
      all a flag spells. Any other tag character, or a longer run, is escaped: tags are
      invisible, and a run of them could carry a hidden text in a name.

    Bidi controls, marks and every other format character are always escaped.
    """
    kept = _shaping(text)
    return "".join(char if at in kept else _escaped(char) for at, char in enumerate(text))
