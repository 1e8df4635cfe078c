"""Guards the layer order of `replay/` that the README's "Architecture" section states.

Every import in `replay/` counts, module-level or inside a function, and so does an
`importlib.import_module("replay....")` call: a subpackage may import its own layer and
the layers below it, never one above, and no set of modules may import each other in a
cycle. The order itself is read from the README, so it is written down once.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
LARGE_FILE_LAYER = "large"


def layer_order(readme: Path = README) -> tuple[str, ...]:
    """The subpackages, lowest first, from the README line `Layer order (lowest first): …`."""
    match = re.search(r"^Layer order \(lowest first\): (.+)$", readme.read_text("utf-8"), re.M)
    assert match is not None, "README.md states no `Layer order (lowest first): ...` line"
    return tuple(name.strip(" `") for name in match.group(1).split("→"))


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, name: str) -> Iterator[str]:
    """Every module `path` imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value


def import_graph(root: Path, package: str = "replay") -> dict[str, set[str]]:
    """Module → the modules of `package` it imports (as files: a name that is an
    attribute of a module counts as that module)."""
    files = {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for imported in imported_modules(path, name):
            while imported and imported not in files:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and imported != package:
                targets.add(imported)
        graph[name] = targets
    return graph


def layer_of(module: str, order: tuple[str, ...]) -> int:
    """A module's rank: its subpackage's place in the order (a top-level module such as
    `replay.pytest_plugin` composes everything, so it ranks above all layers)."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in order:
        return order.index(parts[1])
    assert len(parts) == 2, f"{module}: not in any layer of {order}"
    return len(order)


def upward_imports(graph: Mapping[str, set[str]], order: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if layer_of(target, order) > layer_of(module, order)
    )


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_subpackage_is_in_the_order_and_says_its_job() -> None:
    order = layer_order()
    packages = {p.parent.name for p in (ROOT / "replay").glob("*/__init__.py")}
    assert packages == set(order)
    for name in order:
        doc = ast.get_docstring(ast.parse((ROOT / "replay" / name / "__init__.py").read_text()))
        assert doc, f"replay/{name}/__init__.py has no docstring"


def test_replay_imports_only_downwards() -> None:
    assert upward_imports(import_graph(ROOT), layer_order()) == []


def test_replay_has_no_import_cycle() -> None:
    assert cycles(import_graph(ROOT)) == []


def test_no_command_imports_the_large_file_strategy() -> None:
    graph = import_graph(ROOT, "cli")
    offenders = []
    for path in sorted((ROOT / "cli").glob("*.py")):
        name = module_name(path, ROOT)
        for imported in imported_modules(path, name):
            if imported.startswith(f"replay.{LARGE_FILE_LAYER}"):
                offenders.append(f"{name} imports {imported}")
    assert graph  # the walk saw the commands
    assert offenders == []


def test_an_events_to_piece_reader_import_in_the_real_graph_is_caught() -> None:
    graph = import_graph(ROOT)
    graph["replay.wire.events"] = graph["replay.wire.events"] | {"replay.large.piece_reader"}
    assert "replay.wire.events imports replay.large.piece_reader" in upward_imports(
        graph, layer_order()
    )
    assert any("replay.wire.events" in component for component in cycles(graph))


FIXTURE_TREE = {
    "replay/__init__.py": '"""Fixture."""\n',
    "replay/wire/__init__.py": '"""Fixture wire."""\n',
    "replay/wire/events.py": (
        "def decode_events(path):\n"
        "    from replay.large.piece_reader import decode_file  # the old reach upwards\n"
        "    return decode_file(path)\n"
    ),
    "replay/runs/__init__.py": '"""Fixture runs."""\n',
    "replay/runs/check_loop.py": "from replay.wire import events\n",
    "replay/large/__init__.py": '"""Fixture large."""\n',
    "replay/large/piece_reader.py": (
        "import importlib\n"
        "from ..runs import check_loop\n"
        "def decode_file(path):\n"
        "    return importlib.import_module('replay.wire.events')\n"
    ),
}


@pytest.fixture
def fixture_tree(tmp_path: Path) -> Path:
    for relative, text in FIXTURE_TREE.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "README.md").write_text("Layer order (lowest first): wire → runs → large\n")
    return tmp_path


def test_a_function_level_events_to_piece_reader_import_fails_both_checks(
    fixture_tree: Path,
) -> None:
    graph = import_graph(fixture_tree)
    order = layer_order(fixture_tree / "README.md")
    assert upward_imports(graph, order) == ["replay.wire.events imports replay.large.piece_reader"]
    assert cycles(graph) == [
        ["replay.large.piece_reader", "replay.runs.check_loop", "replay.wire.events"]
    ]
    # Without the reach upwards, the same tree passes.
    (fixture_tree / "replay/wire/events.py").write_text("def decode_events(path): ...\n")
    graph = import_graph(fixture_tree)
    assert upward_imports(graph, order) == []
    assert cycles(graph) == []
