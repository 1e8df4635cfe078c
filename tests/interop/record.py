"""Regenerate tests/fixtures/recordings/ from the real TanStack AI servers and clients.

Run from the repository root: ``python tests/interop/record.py`` (or
``python -m tests.interop.record``). It installs the Node projects if needed, starts
both servers, drives every case in ``tests/interop/cases.py`` through the real client
and rewrites ``native/``, ``legacy/`` and ``MANIFEST.json`` under the recordings folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # executed as a script: make `tests.interop` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.interop.cases import ALL_CASES, Case, fixture_files
from tests.interop.harness import (
    LEGACY_DIR,
    NATIVE_DIR,
    REPO_ROOT,
    InteropFailure,
    InteropUnavailable,
    NodeServer,
    NodeTools,
    ensure_project,
    find_node_tools,
    run_client,
    start_server,
)

RECORDINGS_DIR = REPO_ROOT / "tests" / "fixtures" / "recordings"
MANIFEST_PATH = RECORDINGS_DIR / "MANIFEST.json"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    os.replace(tmp, path)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def record_case(case: Case, server: NodeServer, tools: NodeTools, out_dir: Path) -> list[str]:
    """Drive one case and write its files; returns the written paths (manifest form)."""
    result = run_client(case.script(server.url(case.scenario)), project=case.project, tools=tools)
    problems = [*result["errors"], *[json.dumps(e) for e in result["interruptErrors"]]]
    if problems:
        raise InteropFailure(f"{case.project}/{case.name}: client reported {problems}")
    requests, responses = result["requests"], result["responses"]
    expected_requests = 2 if case.pauses else 1
    if len(requests) != expected_requests or len(responses) != expected_requests:
        raise InteropFailure(
            f"{case.project}/{case.name}: expected {expected_requests} request(s), "
            f"the client posted {len(requests)}"
        )
    base = out_dir / case.project / case.name
    _write_atomic(base.with_name(f"{case.name}.request.json"), _pretty(requests[0]))
    _write_atomic(base.with_name(f"{case.name}.run1.sse"), responses[0])
    if case.project == "native":
        interrupts = result["interruptsAfterRun1"]
        _write_atomic(base.with_name(f"{case.name}.interrupts.json"), _pretty(interrupts))
    if case.pauses:
        _write_atomic(base.with_name(f"{case.name}.resume.json"), _pretty(requests[1]))
        _write_atomic(base.with_name(f"{case.name}.run2.sse"), responses[1])
    return fixture_files(case)


def record_all(out_dir: Path = RECORDINGS_DIR) -> list[str]:
    tools = find_node_tools()
    ensure_project(NATIVE_DIR, tools)
    ensure_project(LEGACY_DIR, tools)
    for project in ("native", "legacy"):
        shutil.rmtree(out_dir / project, ignore_errors=True)
    written: list[str] = []
    with tempfile.TemporaryDirectory(prefix="agui-record-") as logs:
        servers = {
            "native": start_server("native", tools, Path(logs)),
            "legacy": start_server("legacy", tools, Path(logs)),
        }
        try:
            for case in ALL_CASES:
                written += record_case(case, servers[case.project], tools, out_dir)
                sys.stderr.write(f"recorded {case.project}/{case.name}\n")
        finally:
            for server in servers.values():
                server.stop()
    manifest = {
        "generatedBy": "python tests/interop/record.py",
        "native": "@tanstack/ai 0.58.0 + @tanstack/ai-client 0.33.2",
        "legacy": "@tanstack/ai 0.42.0 + @tanstack/ai-client 0.22.1",
        "files": sorted(written),
    }
    _write_atomic(out_dir / "MANIFEST.json", _pretty(manifest))
    return written


def main() -> int:
    try:
        written = record_all()
    except (InteropUnavailable, InteropFailure) as exc:
        sys.stderr.write(f"record.py: {exc}\n")
        return 2
    sys.stderr.write(f"wrote {len(written)} files under {RECORDINGS_DIR.relative_to(REPO_ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
