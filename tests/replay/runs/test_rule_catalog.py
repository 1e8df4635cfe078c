"""The rule catalog lists every rule id the stream layer can report, with the same severity."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from replay.runs.rules import RULES, RULES_BY_ID, finding, is_failure
from replay.wire.problems import Severity

REPLAY = Path(__file__).resolve().parents[3] / "replay"
SEVERITY_NAMES = {member.name: member for member in Severity}


def literal_problems() -> list[tuple[str, str, Severity | None]]:
    """(file, rule id, severity) for each `Problem("rule", Severity.X, ...)` in replay/."""
    found: list[tuple[str, str, Severity | None]] = []
    for path in sorted(REPLAY.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Problem"):
                continue
            rule = node.args[0] if node.args else None
            if not (isinstance(rule, ast.Constant) and isinstance(rule.value, str)):
                continue
            severity = None
            if len(node.args) > 1 and isinstance(node.args[1], ast.Attribute):
                severity = SEVERITY_NAMES.get(node.args[1].attr)
            found.append((path.name, rule.value, severity))
    return found


def test_ids_are_unique_kebab_case_with_titles() -> None:
    assert len(RULES) == len(RULES_BY_ID)
    for rule in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.id), rule.id
        assert rule.title.endswith("."), rule.id
        assert "\n" not in rule.title


def test_every_literal_problem_is_in_the_catalog_with_its_severity() -> None:
    problems = literal_problems()
    assert len(problems) > 15  # the decoder and the transcript builder are covered
    for source, rule_id, severity in problems:
        assert rule_id in RULES_BY_ID, f"{source}: {rule_id} is not in replay/runs/rules.py"
        if severity is not None:
            assert RULES_BY_ID[rule_id].severity is severity, f"{source}: {rule_id}"


def test_every_finding_call_names_a_catalog_rule() -> None:
    for path in sorted(REPLAY.rglob("*.py")):
        for rule_id in re.findall(r'finding\(\s*"([a-z-]+)"', path.read_text("utf-8")):
            assert rule_id in RULES_BY_ID, f"{path.name}: {rule_id}"


def test_every_batch_error_code_has_a_resume_rule() -> None:
    text = (REPLAY / "interrupts" / "batch.py").read_text("utf-8")
    codes = set(re.findall(r'"(?:item|batch)",\s*"([a-z-]+)"', text))
    codes |= set(re.findall(r'item\(\s*"([a-z-]+)"', text))
    assert {"conflict", "unknown-interrupt", "invalid-payload", "expired"} <= codes
    for code in codes:
        assert f"resume-{code}" in RULES_BY_ID, code


def test_finding_uses_the_catalog_severity_and_strict_promotes_warnings() -> None:
    warning = finding("unclosed-message", "m")
    assert warning.severity is Severity.WARNING
    assert not is_failure(warning, strict=False)
    assert is_failure(warning, strict=True)
    assert not is_failure(finding("bare-json", "n"), strict=True)


def test_the_replay_docs_list_every_rule() -> None:
    docs = (REPLAY.parent / "README.md").read_text("utf-8")
    for rule in RULES:
        assert f"| `{rule.id}` | {rule.severity.value} |" in docs, rule.id
