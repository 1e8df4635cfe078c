"""Each rule's TypeScript before/after in the README is what the rule does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods import Rule
from codemods.runner import Options, migrate_bytes

DOC = Path(__file__).resolve().parents[3] / "README.md"


def typescript_examples() -> list[tuple[Rule, str, str]]:
    """(rule, before, after) from each rule section's ```diff tsx block."""
    examples = []
    sections = re.split(r"^#### (AG\d{3}) .*$", DOC.read_text("utf-8"), flags=re.M)
    for code, text in zip(sections[1::2], sections[2::2], strict=True):
        block = re.search(r"```diff tsx\n(.*?)```", text, flags=re.S)
        assert block is not None, f"{code} has no TypeScript before/after example"
        lines = block.group(1).splitlines()
        before = "".join(line[1:] + "\n" for line in lines if line[0] in " -")
        after = "".join(line[1:] + "\n" for line in lines if line[0] in " +")
        examples.append((Rule(code), before, after))
    return examples


@pytest.mark.parametrize(("rule", "before", "after"), typescript_examples())
def test_typescript_examples_are_what_the_rule_does(rule: Rule, before: str, after: str) -> None:
    result = migrate_bytes(before.encode(), "example.tsx", Options(rules=frozenset({rule})))
    assert result.error is None
    assert (result.updated or before.encode()).decode() == after
