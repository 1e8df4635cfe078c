"""Guards the import direction cli → replay, codemods; replay and codemods never import cli."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "replay": {"cli", "codemods"},
    "codemods": {"cli", "replay"},
}


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_never_imports_upward(package: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in sorted(imported_top_levels(path) & FORBIDDEN[package])
    ]
    assert offenders == []


def test_nobody_imports_click_directly() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for package in ("cli", "replay", "codemods")
        for path in sorted((ROOT / package).rglob("*.py"))
        if "click" in imported_top_levels(path)
    ]
    assert offenders == []
