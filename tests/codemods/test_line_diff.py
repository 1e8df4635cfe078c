"""Lines across a rewrite: the original line of each new one, and mixed endings kept."""

from __future__ import annotations

import random

import pytest

from codemods.line_diff import follow_line_ends, line_map


def test_unchanged_lines_keep_their_numbers_and_edits_map_to_their_start() -> None:
    before = "a\nb\nc\n"
    after = "a\nB1\nB2\nc\n"
    assert line_map(before, after, None) == [1, 2, 2, 3, 4]


def test_a_second_rewrite_maps_through_the_first() -> None:
    first = line_map("a\nb\n", "x\na\nb\n", None)
    assert line_map("x\na\nb\n", "x\na\nb\ny\n", first) == [1, 1, 2, 3, 3]


def test_one_kind_of_line_ending_comes_back_untouched() -> None:
    assert follow_line_ends("a\r\nb\r\n", "a\nB\n") == "a\nB\n"
    assert follow_line_ends("a\nb\n", "a\nB\n") == "a\nB\n"


def test_in_a_mixed_file_each_new_line_takes_the_ending_it_replaces() -> None:
    before = "a\r\nb\nc\r\n"
    # LibCST writes every line with the module's first ending (CRLF here).
    after = "a\r\nB\r\nc\r\n"
    assert follow_line_ends(before, after) == "a\r\nB\nc\r\n"


@pytest.mark.parametrize("seed", range(20))
def test_following_line_ends_never_changes_a_lines_text(seed: int) -> None:
    rng = random.Random(seed)
    words = ["a", "b", "c", "d"]
    ends = ["\n", "\r\n"]
    before = "".join(rng.choice(words) + rng.choice(ends) for _ in range(rng.randint(1, 8)))
    after = "".join(rng.choice(words) + "\r\n" for _ in range(rng.randint(1, 8)))
    result = follow_line_ends(before, after)
    assert result.splitlines() == after.splitlines()
