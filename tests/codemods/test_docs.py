"""Every rule has a README section whose anchor the TODO markers point at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods import RULE_TITLES, Rule, anchor, marker
from codemods.runner import Options, migrate_bytes
from codemods.typescript import COMPONENT_SUFFIXES, DECLARATION_SUFFIXES, SUFFIXES

DOC = Path(__file__).resolve().parents[2] / "README.md"


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
    hooks = (DOC.parent / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert "entry: agui migrate --check" in hooks


def test_pre_commit_hook_selects_every_file_migrate_reads() -> None:
    # its `types_or` left out .vue and .svelte components, and .mts/.cts (no identify tag)
    hooks = (DOC.parent / ".pre-commit-hooks.yaml").read_text("utf-8")
    [files] = re.findall(r"^  files: '(.*)'$", hooks, flags=re.M)
    [exclude] = re.findall(r"^  exclude: '(.*)'$", hooks, flags=re.M)
    assert re.search(r"^  types_or:", hooks, flags=re.M) is None

    def selected(name: str) -> bool:
        return bool(re.search(files, name)) and not re.search(exclude, name)

    read = ("x.py", *(f"x{suffix}" for suffix in SUFFIXES + COMPONENT_SUFFIXES))
    assert all(selected(name) for name in read)
    assert not any(selected(f"x{suffix}") for suffix in DECLARATION_SUFFIXES)
    assert not any(selected(name) for name in ("x.json", "x.md", "x.pyc", "x.tsbuildinfo"))


def rule_examples() -> list[tuple[Rule, str, str]]:
    """(rule, before, after) from each rule section's diff block."""
    examples = []
    sections = re.split(r"^#### (AG\d{3}) .*$", DOC.read_text("utf-8"), flags=re.M)
    for code, text in zip(sections[1::2], sections[2::2], strict=True):
        block = re.search(r"```diff\n(.*?)```", text, flags=re.S)
        assert block is not None, f"{code} has no before/after example"
        lines = block.group(1).splitlines()
        before = "".join(line[1:] + "\n" for line in lines if line[0] in " -")
        after = "".join(line[1:] + "\n" for line in lines if line[0] in " +")
        examples.append((Rule(code), before, after))
    return examples


@pytest.mark.parametrize(("rule", "before", "after"), rule_examples())
def test_rule_examples_are_what_the_rule_does(rule: Rule, before: str, after: str) -> None:
    result = migrate_bytes(before.encode(), "example.py", Options(rules=frozenset({rule})))
    assert (result.updated or before.encode()).decode() == after
