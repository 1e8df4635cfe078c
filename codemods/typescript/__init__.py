"""The same rules (AG001-AG006) for TypeScript and JavaScript call sites, on tree-sitter trees.

Where TanStack AI apps really call the legacy approval API: `useChat()` in React
components and `ChatClient` in plain modules. Layers, lowest first (a test enforces
them): `document` (parse once, byte ranges, edits, TODO markers); `bindings` (what a
name is bound to: a `useChat` result, a `ChatClient`), `calls` (what a legacy call
says) and `command` (the rule base); one module per rule; `rules` (catalog and run
order); `engine` (one file through the rules). `components` (where a Vue/Svelte file's
script blocks are) sits beside `document`, and `accessors` (`accessor` class fields,
which the grammars lack) and `markup` (where a component's markup TODO markers go)
beside `bindings`. This module stays light (no parser import)
so discovery and the runner's byte prefilter can use it for free.

Public names: `SUFFIXES`, `COMPONENT_SUFFIXES`, `is_script`, `is_component`, `TRIGGERS`.
"""

from __future__ import annotations

from codemods import Rule

# Every extension a TanStack AI app's sources use; the declaration files beside them
# (`.d.ts`, `.d.mts`, `.d.cts`) describe packages and are never migrated.
SUFFIXES: tuple[str, ...] = (".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs")
DECLARATION_SUFFIXES: tuple[str, ...] = (".d.ts", ".d.mts", ".d.cts")
# Single-file components of `@tanstack/ai-vue` and `@tanstack/ai-svelte` apps: only their
# `<script>` blocks are migrated (`components` finds them).
COMPONENT_SUFFIXES: tuple[str, ...] = (".vue", ".svelte")

# Text one of which must occur in a file for the rule to possibly match (the byte
# prefilter; the rule itself matches exact syntax).
TRIGGERS: dict[Rule, tuple[bytes, ...]] = {
    Rule.AG001: (b"addToolApprovalResponse",),
    Rule.AG002: (b"pendingInterrupts",),
    Rule.AG003: (b"getPendingInterrupts",),
    Rule.AG004: (b"resumeInterrupts",),
    Rule.AG005: (b"addToolApprovalResponse",),
    Rule.AG006: (
        b"approval-requested",
        b"tool-input-available",
        b"ApprovalRequestedEvent",
        b"ToolInputAvailableEvent",
    ),
}


def is_script(path: str) -> bool:
    """Whether `path` names a file whose TypeScript or JavaScript this codemod reads: a
    source file, or a Vue/Svelte component (its script blocks)."""
    if path.endswith(COMPONENT_SUFFIXES):
        return True
    return path.endswith(SUFFIXES) and not path.endswith(DECLARATION_SUFFIXES)


def is_component(path: str) -> bool:
    """Whether `path` names a Vue or Svelte single-file component."""
    return path.endswith(COMPONENT_SUFFIXES)


def triggers(rules: frozenset[Rule]) -> tuple[bytes, ...]:
    """The prefilter's byte strings for the selected rules."""
    return tuple(dict.fromkeys(t for rule in Rule if rule in rules for t in TRIGGERS[rule]))
