"""The TypeScript subpackage's layer order (its `__init__` docstring), enforced.

A module imports only from lower layers; the package root stays light (no parser), and
nothing here reaches up into the runner, the Python rules or LibCST.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "codemods" / "typescript"
RULE_MODULES = (
    "approval_loop",
    "approval_response",
    "get_pending_interrupts",
    "legacy_events",
    "pending_interrupts",
    "resume_interrupts",
)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("document", "components"),
    ("accessors", "bindings", "calls", "command", "markup"),
    RULE_MODULES,
    ("rules",),
    ("engine",),
)
ALLOWED_OUTSIDE = {"codemods", "codemods.settings", "codemods.site", "tree_sitter"}
ALLOWED_OUTSIDE |= {"tree_sitter_typescript"}
ALLOWED_OUTSIDE |= {"tree_sitter_javascript", "__future__", "bisect", "re", "codecs"}
ALLOWED_OUTSIDE |= {"collections.abc", "dataclasses", "functools", "typing"}


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "codemods.typescript":
                names.update(f"codemods.typescript.{alias.name}" for alias in node.names)
            else:
                names.add(node.module)
    return names


def test_every_module_is_in_a_layer() -> None:
    modules = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__"}
    assert modules == {name for layer in LAYERS for name in layer}


def test_modules_import_only_lower_layers() -> None:
    level = {name: index for index, layer in enumerate(LAYERS) for name in layer}
    offenders = []
    for name, index in level.items():
        for imported in sorted(imports(PACKAGE / f"{name}.py")):
            if imported.startswith("codemods.typescript."):
                target = imported.removeprefix("codemods.typescript.")
                if target in level and level[target] >= index:
                    offenders.append(f"{name} imports {target}")
            elif imported not in ALLOWED_OUTSIDE and imported != "codemods.typescript":
                offenders.append(f"{name} imports {imported}")
    assert offenders == []


def test_the_package_root_imports_no_parser() -> None:
    assert imports(PACKAGE / "__init__.py") == {"__future__", "codemods"}
