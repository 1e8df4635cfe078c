"""agui finds a Vue component's top-level `<script>` blocks where the real
`@vue/compiler-sfc` 3.5.45 does, on random compositions of top-level pieces.

The pieces are what moves a block boundary: templates, custom blocks, comments, void
elements (`<br>`, `<img src=x>`: at the top level Vue reads what follows as their raw
text, up to a `</br>` or the end of the file), closing tags Vue does and does not
accept (`</br >`, `</br/>`), tag names in upper and mixed case (Vue reads a top-level
name as written and closes it only when written in lower case), and text. Files the
compiler reports errors for (other than "no block at all") are left out of the
comparison: there agui reads on leniently by design, or refuses the file (an unclosed or
upper-case `<SCRIPT>`), which it may do only where the compiler reports an error too.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.runner import Options, migrate_bytes
from codemods.typescript.components import UnclosedBlock, scan
from tests.interop.harness import InteropUnavailable, NodeTools, ensure_project

VUE_DIR = Path(__file__).resolve().parent / "vue"
ORACLE = VUE_DIR / "sfc_blocks.cjs"
# The one error the compiler reports for a file without blocks, which agui agrees with.
NO_BLOCK = "At least one <template> or <script> is required"

PIECES = (
    "<template>\n  <p>{{ a }}</p>\n</template>\n",
    "<template><br><img src=x></template>",
    "<script>a()</script>\n",
    '<script setup lang="ts">\nconst b = 1\n</script>\n',
    "<script>x = '</br>'</script>",
    "<style>p { color: red }</style>\n",
    "<docs>text</docs>\n",
    "<br>",
    "<br>\n",
    "<br/>",
    "<br />",
    "<BR>",
    "<img src=x>",
    '<img src="a.png" alt="</br>">',
    "<hr>",
    "<input type=text>",
    "<wbr>",
    "</br>",
    "</br >",
    "</br\n>",
    "</BR>",
    "</br/>",
    "</img>",
    "</hr >",
    "</input>",
    "</wbr>",
    "<!-- c -->",
    "<!-- </br> -->",
    # Case: a closing tag in any case closes a lower-case name; a name with an upper-case
    # letter never closes at the top level; below it only `sc…`/`st…` open raw text.
    "<script>a()</SCRIPT>\n",
    "<script setup>b()</Script\n>",
    "<SCRIPT>a()</SCRIPT>\n",
    "<Script setup>b()</script>",
    "<STYLE>p{}</STYLE>",
    "<style>p{}</Style >",
    "<Template><p>x</p></Template>",
    "<template><p>{{ a }}</p></TEMPLATE>",
    "<template><Script><!--</Script></template>",
    "<template><scRIPT><!--</SCRIPT></template>",
    '<template><Script>{{ "</Script><!--" }}</Script></template>\n',
    '<template><STYLE>{{ "</style><!--" }}</STYLE></template>\n',
    "<template><STYLE></template></STYLE></template>",
    "<Docs>t</Docs>",
    "<docs>t</DOCS>",
    "<my-docs>t</MY-DOCS >",
    "text ",
    "\n",
)


@pytest.fixture(scope="module")
def vue_project(interop_node: NodeTools) -> Path:
    """tests/interop/vue with @vue/compiler-sfc installed from its lockfile (cached)."""
    try:
        return ensure_project(VUE_DIR, interop_node)
    except InteropUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"interop: {exc} (CI=true, so this is a failure, not a skip)")
        pytest.skip(f"interop: {exc}")


def compiler_blocks(
    node: NodeTools, project: Path, sources: list[str]
) -> list[tuple[list[tuple[int, int]], list[str]]]:
    """Each source's script body ranges and error messages, as the compiler gives them."""
    done = subprocess.run(
        [node.node, str(ORACLE)],
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        check=True,
    )
    return [
        ([(start, end) for start, end in entry["blocks"]], entry["errors"])
        for entry in json.loads(done.stdout)
    ]


def agui_blocks(source: str) -> list[tuple[int, int]] | None:
    """The script body ranges agui finds; None when it refuses the file."""
    try:
        return [(block.start, block.end) for block in scan(source.encode()).blocks]
    except UnclosedBlock:
        return None


@pytest.mark.parametrize(
    ("source", "bodies"),
    [
        ("<br>\n<script>a()</script>\n", []),
        ("<img src=x>\n<script setup>a()</script>\n", []),
        ("<script>a()</script>\n<br>\n<script setup>b()</script>\n", ["a()"]),
        ("<br>\n<script>a()</script></br >\n<script setup>b()</script>\n", ["b()"]),
        ("<br/>\n<script>a()</script>\n", ["a()"]),
        ("<template><br></template>\n<script>a()</script>\n", ["a()"]),
        ("<template><p/></template>\n<br>\n<script>a()</script>\n", []),
        ("<br>x</br/><script>a()</script>", []),
        ("<script>a()</script/>b()</script>", ["a()</script/>b()"]),
    ],
)
def test_void_elements_at_the_top_level_as_the_compiler_reads_them(
    interop_node: NodeTools, vue_project: Path, source: str, bodies: list[str]
) -> None:
    [(blocks, _)] = compiler_blocks(interop_node, vue_project, [source])
    assert [source[start:end] for start, end in blocks] == bodies
    assert agui_blocks(source) == blocks


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=40))
def test_random_components_have_their_scripts_where_the_compiler_finds_them(
    interop_node: NodeTools, vue_project: Path, sources: list[str]
) -> None:
    compared = 0
    for source, (blocks, errors) in zip(
        sources, compiler_blocks(interop_node, vue_project, sources), strict=True
    ):
        found = agui_blocks(source)
        # Whatever the compiler says of the file, agui reads no block Vue would not
        # take for a script: each opens with `<script` in lower case.
        for start, _ in found or ():
            assert source.startswith("<script", source.rfind("<", 0, start)), source
        if any(not error.startswith(NO_BLOCK) for error in errors):
            continue  # Vue refuses the file; agui's reading of it is its own
        compared += 1
        assert found == blocks, source
    assert compared > len(sources) // 4  # most files are ones Vue accepts


COMPILER = VUE_DIR / "sfc_compile.cjs"
HELD_BACK_SCRIPT = """<script setup lang="ts">
import { useChat } from '@tanstack/ai-vue'
import { ChatClient } from '@tanstack/ai-client'
const client = new ChatClient({ tools: [] })
const n = client.getPendingInterrupts().length
const { messages, pendingInterrupts } = useChat({ tools })
</script>
"""
# Templates reading `pendingInterrupts`, which the script's rewrite would rename: each
# site where a marker goes differently (text line, attribute line, inside a tag that
# spans lines, an interpolation, nested elements, a `v-pre` element where none goes).
HELD_BACK_TEMPLATES = (
    '  <ul><li v-for="item in pendingInterrupts" :key="item.id">{{ item.id }}</li></ul>\n',
    "  <div>\n    <p>{{ pendingInterrupts.length }} waiting</p>\n  </div>\n",
    '  <button\n    :disabled="pendingInterrupts.length === 0"\n  >ok</button>\n',
    '  <p v-if="pendingInterrupts">a</p>\n  <p v-pre>{{ pendingInterrupts }}</p>\n',
)


def compiled(node: NodeTools, project: Path, sources: list[str]) -> list[tuple[list[str], str]]:
    """Each source's compile errors and production render function, from the compiler."""
    done = subprocess.run(
        [node.node, str(COMPILER)],
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        check=True,
    )
    return [(entry["errors"], entry["render"]) for entry in json.loads(done.stdout)]


@pytest.mark.parametrize("template", HELD_BACK_TEMPLATES)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_held_back_component_with_its_markers_still_compiles_to_the_same_render(
    interop_node: NodeTools, vue_project: Path, template: str, newline: str
) -> None:
    source = f"{HELD_BACK_SCRIPT}\n<template>\n{template}</template>\n".replace("\n", newline)
    result = migrate_bytes(source.encode(), "Desk.vue", Options())
    assert result.updated is not None
    marked = result.updated.decode()
    assert marked.count("TODO(agui)") > 2  # script markers and markup markers
    assert "interrupts }" not in marked  # the rewrite itself is held back
    before, after = compiled(interop_node, vue_project, [source, marked])
    assert before[0] == after[0] == []
    assert after[1] == before[1]  # HTML comments are not rendered in production
    assert migrate_bytes(result.updated, "Desk.vue", Options()).updated is None
