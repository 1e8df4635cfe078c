"""Every rule has a README section whose anchor the TODO markers point at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods import RULE_TITLES, Rule, anchor, marker

DOC = Path(__file__).resolve().parents[2] / "docs" / "migrate.md"


def github_anchor(heading: str) -> str:
    """GitHub's slug: lowercase, drop punctuation except - and _, spaces to dashes."""
    return "#" + re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("rule", list(Rule))
def test_rule_section_exists_with_the_markers_anchor(rule: Rule) -> None:
    headings = [
        line.lstrip("#").strip()
        for line in DOC.read_text("utf-8").splitlines()
        if line.startswith("#### ")
    ]
    heading = f"{rule.value} {RULE_TITLES[rule]}"
    assert heading in headings
    assert github_anchor(heading) == anchor(rule)
    assert marker(rule, "x").endswith(f"— README{anchor(rule)}")


def test_pre_commit_hook_runs_check() -> None:
    hooks = (DOC.parents[1] / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert "entry: agui migrate --check" in hooks
