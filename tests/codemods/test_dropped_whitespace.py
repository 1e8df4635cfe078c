"""Blank and comment lines LibCST drops near the end of a file are kept by `agui migrate`.

LibCST generates `x = 1\\n  ` for `x = 1\\n  \\n  `, and `x = 1\\n  # c` for
`x = 1\\n\\t\\n  # c`: lines far from any site would be lost from a rewritten file. Both
the region fast path (a large file whose sites are in one function) and the whole-module
path must give back the file's tail byte for byte.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.runner import FileStatus, Options, dropped_whitespace_kept, migrate_bytes

SITE = "def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
FILLER = "".join(f"def filler_{n}(x):\n    return x + {n}\n\n\n" for n in range(40))
TAIL_LINES = st.sampled_from(["", "  ", "\t", " \t ", "  # c", "# c", "    # note", "\x0c"])


def _migrated(text: str) -> str:
    result = migrate_bytes(text.encode(), "m.py", Options())
    assert result.status is FileStatus.CHANGED, result
    assert result.updated is not None
    return result.updated.decode()


@settings(max_examples=60, deadline=None)
@given(st.lists(TAIL_LINES, min_size=1, max_size=5), st.booleans(), st.booleans())
def test_the_tail_of_a_migrated_file_is_kept(lines: list[str], final_lf: bool, large: bool) -> None:
    tail = "\n".join(lines) + ("\n" if final_lf else "")
    head = (FILLER if large else "") + SITE
    updated = _migrated(head + tail)
    assert updated.endswith("\n" + tail) if tail else updated.endswith("\n")
    assert "resolve_interrupt(True)" in updated
    # A second run finds nothing left to do.
    again = migrate_bytes(updated.encode(), "m.py", Options())
    assert again.status in (FileStatus.UNCHANGED, FileStatus.SKIPPED)


def test_the_examples_libcst_shortens() -> None:
    for tail in ("  \n  ", "\t\n\x0c\n  # c", "\n  \n\t\n    # note", "  # c\n  "):
        for head in (SITE, FILLER + SITE):
            assert _migrated(head + tail).endswith(tail)


def test_only_dropped_whitespace_goes_back() -> None:
    parsed, regenerated = "x = 1\n\t\n  # c", "x = 1\n  # c"
    assert dropped_whitespace_kept(parsed, regenerated, "y = 2\n  # c") == "y = 2\n\t\n  # c"
    # The rules changed the ending: nothing is guessed.
    assert dropped_whitespace_kept(parsed, regenerated, "y = 2\n") == "y = 2\n"
    assert dropped_whitespace_kept("x\n  # c\n  ", "x\n  ", "y\n  ") == "y\n  # c\n  "
    # Something other than whitespace and comments differs: left as LibCST wrote it.
    assert dropped_whitespace_kept("x = 1\ny = 2\n", "x = 1\n", "z\n") == "z\n"
    assert dropped_whitespace_kept("same", "same", "code") == "code"
