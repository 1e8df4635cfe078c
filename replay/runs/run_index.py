"""The run checker's index of recent runs: least recently used first, in a plain dict.

`Checker` remembers the last 20,000 runs for resume checks. An `OrderedDict` keeps a
linked-list node per key besides its dict: about 100 bytes a run, 2 MiB of a 100 MB
check's peak. A plain dict keeps insertion order too, so moving a key to the end is
taking it out and putting it back, and the oldest key is the first one iterated. Only
that first step is not free: each key taken from the front leaves an empty slot that
iteration steps over until the dict is rebuilt, so the index is rebuilt in place
each time `REBUILD_AFTER` keys have left it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import TypeVar

V = TypeVar("V")

REBUILD_AFTER = 1_500
"""Keys removed before the dict is rebuilt. Finding the oldest key steps over at most
this many empty slots (about a microsecond), a rebuild (about a millisecond) happens
once per as many removals, and 20,000 keys and as many empty slots still fit the table
a rebuild makes (32,768 slots, 21,845 usable): more, and the dict would grow to twice
that on its own, which is what it is here to save.
"""


class RunIndex(dict[str, V]):
    """A dict whose order is least recently used first (`move_to_end`, `evict_to`)."""

    __slots__ = ("_removed",)

    def __init__(self) -> None:
        super().__init__()
        self._removed = 0

    def store(self, key: str, value: V) -> None:
        """Set `key` to `value`, as the most recently used."""
        if key in self:
            dict.__delitem__(self, key)
            self._left()
        self[key] = value

    def store_all(self, items: Iterable[tuple[str, V]]) -> None:
        """`store` each of `items`, in order (one call for a whole adopted stretch)."""
        for key, value in items:
            if key in self:
                dict.__delitem__(self, key)
                self._left()
            dict.__setitem__(self, key, value)

    def move_to_end(self, key: str) -> None:
        """Make `key` the most recently used (it must be present)."""
        value = dict.pop(self, key)
        dict.__setitem__(self, key, value)
        self._left()

    def evict_to(self, size: int) -> None:
        """Forget the least recently used keys until at most `size` are left."""
        # Taken in one pass over the front: looking for each oldest key on its own
        # steps over the same empty slots again (an adopted stretch evicts hundreds).
        for key in list(islice(self, max(len(self) - size, 0))):
            dict.__delitem__(self, key)
            self._left()

    def _left(self) -> None:
        self._removed += 1
        if self._removed >= REBUILD_AFTER:
            self._removed = 0
            items = list(dict.items(self))
            dict.clear(self)
            dict.update(self, items)
