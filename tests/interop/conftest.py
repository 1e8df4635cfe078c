"""Session fixtures for the interop test bed: node, ``npm ci``, both real servers, the driver.

Every test collected under ``tests/interop/`` gets the ``interop`` marker. Without
node/npm the fixtures skip with one reason locally and fail under ``CI=true``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.interop.harness import (
    LEGACY_DIR,
    NATIVE_DIR,
    InteropUnavailable,
    NodeServer,
    NodeTools,
    ensure_project,
    find_node_tools,
    start_server,
)
from tests.interop.harness import run_client as drive_client

RunClient = Callable[[dict[str, Any]], dict[str, Any]]

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.interop)


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"interop: {reason} (CI=true, so this is a failure, not a skip)")
    pytest.skip(f"interop: {reason}")


@pytest.fixture(scope="session")
def interop_node() -> NodeTools:
    """Paths of node and npm; skips (locally) or fails (CI=true) when either is missing."""
    try:
        return find_node_tools()
    except InteropUnavailable as exc:
        _unavailable(str(exc))


@pytest.fixture(scope="session")
def native_project(interop_node: NodeTools) -> Path:
    """tests/interop/native with node_modules installed from its lockfile (cached)."""
    try:
        return ensure_project(NATIVE_DIR, interop_node)
    except InteropUnavailable as exc:
        _unavailable(str(exc))


@pytest.fixture(scope="session")
def legacy_project(interop_node: NodeTools) -> Path:
    """tests/interop/legacy with node_modules installed from its lockfile (cached)."""
    try:
        return ensure_project(LEGACY_DIR, interop_node)
    except InteropUnavailable as exc:
        _unavailable(str(exc))


@pytest.fixture(scope="session")
def native_server(
    interop_node: NodeTools, native_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NodeServer]:
    """The @tanstack/ai 0.58.0 server, started once per session on a free port."""
    server = start_server("native", interop_node, tmp_path_factory.mktemp("interop-native"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def legacy_server(
    interop_node: NodeTools, legacy_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NodeServer]:
    """The @tanstack/ai 0.42.0 (legacy events) server, started once per session."""
    server = start_server("legacy", interop_node, tmp_path_factory.mktemp("interop-legacy"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def run_client_native(interop_node: NodeTools, native_project: Path) -> RunClient:
    """``run(script) -> result`` with the ai-client 0.33.2 driver (native/client.mjs)."""

    def run(script: dict[str, Any]) -> dict[str, Any]:
        return drive_client(script, project="native", tools=interop_node)

    return run


@pytest.fixture(scope="session")
def run_client_legacy(interop_node: NodeTools, legacy_project: Path) -> RunClient:
    """``run(script) -> result`` with the ai-client 0.22.1 driver (legacy/client.mjs)."""

    def run(script: dict[str, Any]) -> dict[str, Any]:
        return drive_client(script, project="legacy", tools=interop_node)

    return run


@pytest.fixture(scope="session")
def run_client(run_client_native: RunClient) -> RunClient:
    """Alias of ``run_client_native``: the default driver is the native (0.33.2) client."""
    return run_client_native
