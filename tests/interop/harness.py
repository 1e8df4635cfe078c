"""Drives the real TanStack AI Node projects from Python: npm install, servers, client driver.

The interop fixtures in ``conftest.py`` and ``record.py`` both build on this module, so
the same code starts servers for tests and for fixture regeneration. It never imports
the project packages: it checks agui against the real library, not against itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INTEROP_DIR = Path(__file__).resolve().parent
REPO_ROOT = INTEROP_DIR.parent.parent
NATIVE_DIR = INTEROP_DIR / "native"
LEGACY_DIR = INTEROP_DIR / "legacy"
PROJECTS = {"native": NATIVE_DIR, "legacy": LEGACY_DIR}

#: Written into node_modules after a successful ``npm ci``: the lockfile digest it installed.
STAMP_NAME = ".agui-interop-lock.sha256"

NPM_CI_TIMEOUT_S = 300.0
SERVER_START_TIMEOUT_S = 20.0
CLIENT_TIMEOUT_S = 60.0

#: Scenarios each server answers on ``POST /scenario/<name>``.
NATIVE_SCENARIOS = (
    "plain",
    "tool-approval",
    "tool-approval-schema",
    "client-tool",
    "two-approvals",
    "generic-before-model",
    "generic-after-model",
    "generic-before-tools",
    "generic-after-tools",
    "generic-two-cards",
    "generic-expiring",
    "mixed",
)
LEGACY_SCENARIOS = ("tool-approval", "client-tool", "two-approvals", "plain")
#: Native scenarios that only walkthrough tests use; record.py does not record them.
WALKTHROUGH_SCENARIOS = ("chained-approvals",)


class InteropUnavailable(RuntimeError):
    """Node or npm is missing, or the Node projects cannot be installed."""


class InteropFailure(RuntimeError):
    """A server or the client driver misbehaved (crashed, timed out, printed garbage)."""


@dataclass(frozen=True, slots=True)
class NodeTools:
    """Absolute paths of the node and npm executables."""

    node: str
    npm: str


def find_node_tools() -> NodeTools:
    """Locate node and npm on PATH, or raise InteropUnavailable naming what is missing."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    missing = [name for name, path in (("node", node), ("npm", npm)) if path is None]
    if node is None or npm is None:
        raise InteropUnavailable(
            f"interop tests need {' and '.join(missing)} on PATH (Node 20+ with npm)"
        )
    return NodeTools(node=node, npm=npm)


def lockfile_digest(project_dir: Path) -> str:
    """SHA-256 of the project's package-lock.json (what the install stamp records)."""
    return hashlib.sha256((project_dir / "package-lock.json").read_bytes()).hexdigest()


def ensure_project(project_dir: Path, tools: NodeTools) -> Path:
    """Run ``npm ci`` in ``project_dir`` unless node_modules already matches the lockfile.

    The stamp file inside node_modules holds the lockfile digest of the last
    successful install, so repeated sessions cost nothing and a lockfile change
    triggers a clean reinstall.
    """
    digest = lockfile_digest(project_dir)
    stamp = project_dir / "node_modules" / STAMP_NAME
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        return project_dir
    try:
        completed = subprocess.run(
            [tools.npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=project_dir,
            capture_output=True,
            text=True,
            timeout=NPM_CI_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise InteropUnavailable(
            f"npm ci in {project_dir.name}/ timed out after {NPM_CI_TIMEOUT_S:.0f} s"
        ) from exc
    if completed.returncode != 0:
        tail = (completed.stderr or completed.stdout).strip().splitlines()[-5:]
        raise InteropUnavailable(
            f"npm ci in {project_dir.name}/ failed (exit {completed.returncode}): "
            + " | ".join(tail)
        )
    stamp.write_text(digest + "\n", encoding="utf-8")
    return project_dir


@dataclass
class NodeServer:
    """One running ``server.mjs`` (native or legacy) bound to 127.0.0.1 on a free port."""

    project_dir: Path
    request_log_path: Path
    tools: NodeTools
    port: int = 0
    _process: subprocess.Popen[str] | None = field(default=None, repr=False)
    _stderr: list[str] = field(default_factory=list, repr=False)
    _drain: threading.Thread | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, scenario: str) -> str:
        """The chat endpoint of one scenario: ``<base_url>/scenario/<scenario>``."""
        return f"{self.base_url}/scenario/{scenario}"

    def start(self) -> NodeServer:
        self.request_log_path.parent.mkdir(parents=True, exist_ok=True)
        self.request_log_path.write_text("", encoding="utf-8")
        env = {**os.environ, "AGUI_INTEROP_REQUEST_LOG": str(self.request_log_path)}
        process = subprocess.Popen(
            [self.tools.node, "server.mjs", "0"],
            cwd=self.project_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._process = process
        self._drain = threading.Thread(target=self._drain_stderr, daemon=True)
        self._drain.start()
        port_line: list[str] = []
        reader = threading.Thread(
            target=lambda: port_line.append(process.stdout.readline() if process.stdout else ""),
            daemon=True,
        )
        reader.start()
        reader.join(SERVER_START_TIMEOUT_S)
        line = port_line[0].strip() if port_line else ""
        if not line.isdigit():
            self.stop()
            raise InteropFailure(
                f"{self.project_dir.name}/server.mjs did not print its port within "
                f"{SERVER_START_TIMEOUT_S:.0f} s (got {line!r}); stderr: {self.stderr_text()}"
            )
        self.port = int(line)
        with urllib.request.urlopen(f"{self.base_url}/health", timeout=5) as response:
            if response.status != 200 or response.read() != b"ok":
                self.stop()
                raise InteropFailure(f"{self.project_dir.name}/server.mjs: /health is not ok")
        return self

    def _drain_stderr(self) -> None:
        process = self._process
        if process is None or process.stderr is None:
            return
        for line in process.stderr:
            self._stderr.append(line)

    def stderr_text(self) -> str:
        return "".join(self._stderr).strip()

    def stop(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        if self._drain is not None:
            self._drain.join(timeout=5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        self._process = None

    def requests(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """Every request body the server received, in order (optionally one thread's)."""
        bodies: list[dict[str, Any]] = []
        # Lines end with LF only: `splitlines` would also cut at a U+2028 that
        # JSON.stringify leaves raw inside a string.
        for line in self.request_log_path.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            body = json.loads(line)
            if thread_id is None or (isinstance(body, dict) and body.get("threadId") == thread_id):
                bodies.append(body)
        return bodies


def start_server(project: str, tools: NodeTools, log_dir: Path) -> NodeServer:
    """Start ``<project>/server.mjs`` on a free port with its own request log."""
    project_dir = PROJECTS[project]
    server = NodeServer(
        project_dir=project_dir,
        request_log_path=log_dir / f"{project}-requests.jsonl",
        tools=tools,
    )
    return server.start()


def run_client(
    script: Mapping[str, Any],
    *,
    project: str = "native",
    tools: NodeTools | None = None,
    timeout: float = CLIENT_TIMEOUT_S,
    number: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Run ``<project>/client.mjs`` on ``script`` and return its parsed JSON result.

    ``number`` (optional) receives every JSON number's literal text, for a test that
    compares numbers as the client wrote them (`1e-7`, not `1e-07`).

    Raises InteropFailure (with the driver's stderr) when it exits non-zero, times
    out or prints something that is not one JSON object.
    """
    node_tools = tools or find_node_tools()
    project_dir = PROJECTS[project]
    with tempfile.TemporaryDirectory(prefix="agui-interop-") as tmp:
        script_path = Path(tmp) / "script.json"
        script_path.write_text(json.dumps(script), encoding="utf-8")
        try:
            completed = subprocess.run(
                [node_tools.node, "client.mjs", str(script_path)],
                cwd=project_dir,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise InteropFailure(
                f"{project}/client.mjs timed out after {timeout:.0f} s; stderr: {exc.stderr!r}"
            ) from exc
    if completed.returncode != 0:
        raise InteropFailure(
            f"{project}/client.mjs exited {completed.returncode}; "
            f"stderr: {completed.stderr.strip()}"
        )
    try:
        result = json.loads(completed.stdout, parse_int=number, parse_float=number)
    except json.JSONDecodeError as exc:
        raise InteropFailure(
            f"{project}/client.mjs printed no JSON result ({exc}); "
            f"stdout: {completed.stdout[:500]!r}; stderr: {completed.stderr.strip()}"
        ) from exc
    if not isinstance(result, dict):
        raise InteropFailure(f"{project}/client.mjs printed {type(result).__name__}, not an object")
    return result


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Tiny SSE reader for tests: blank-line separated events, ``data:`` lines as JSON.

    Deliberately independent of the ``replay`` package so the test bed checks it
    instead of trusting it.
    """
    events: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [
            line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")
        ]
        if data:
            events.append(json.loads("\n".join(data)))
    return events


def event_types(text: str) -> list[str]:
    """The ``type`` of every event in an SSE text, in order."""
    return [str(event.get("type")) for event in parse_sse(text)]


def normalised_interrupts(result: Mapping[str, Any]) -> list[Any]:
    """A driver result's ``interruptsAfterRun1`` with what differs between two runs of the
    same pause (the first run id, generic interrupt ids) replaced by stable tokens, so the
    interrupts the client saw from two servers compare equal."""
    names = {result["requests"][0]["runId"]: "<run-1>"}
    for item in result["interruptsAfterRun1"]:
        if item["kind"] == "generic":
            names[item["id"]] = f"<generic:{item.get('definitionId')}:{item.get('key')}>"
    text = json.dumps(result["interruptsAfterRun1"], sort_keys=True)
    for value, token in names.items():
        text = text.replace(json.dumps(value), json.dumps(token))
    items: list[Any] = json.loads(text)
    return items
