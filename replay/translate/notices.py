"""The three notice rules translation reports, and the callback every part records one by.

Each change the translator makes is reported as a `Problem` notice so `agui translate`
can list what happened and `--check` can tell a native stream from a rewritten one; the
parts that build events call one `Notify` (the translator's), which also remembers that
something changed.
"""

from __future__ import annotations

from collections.abc import Callable

from replay.wire.problems import Location, Problem

TRANSLATED = "translated"
"""A legacy or retired shape was rewritten into its native form."""
INVENTED = "invented"
"""agui had to make something up: a minted id, a synthesised snapshot or terminal."""
LOST = "lost"
"""Something the legacy stream said has no native counterpart and was dropped."""
NOTICE_RULES = (TRANSLATED, INVENTED, LOST)

Notify = Callable[[str, str, Location], Problem]
"""Record one notice (rule, message, where) and return it for the output."""
