"""Vue and Svelte single-file components: their script blocks go through the TypeScript
rules, everything outside the blocks stays byte for byte but for TODO marker lines, and
the markup is reported and marked, never rewritten."""

from __future__ import annotations

import codecs
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods import Rule
from codemods.discovery import discover
from codemods.runner import FileStatus, Options, migrate_bytes, run
from codemods.site import Action
from codemods.typescript import triggers
from codemods.typescript.components import Nesting, ScriptBlock, scan, splice
from codemods.typescript.document import Document
from codemods.typescript.engine import _dropped_names
from codemods.typescript.markup import comment as markup_comment

VUE_SETUP = b"""<template>
  <button @click="approve(id)">ok</button>
</template>

<script setup lang="ts">
import { ChatClient } from '@tanstack/ai-client'
const client = new ChatClient({ tools: [t.client()] })
async function approve(id: string) {
  await client.addToolApprovalResponse({ id, approved: true })
}
const n = client.getPendingInterrupts().length
</script>

<style scoped>
button { color: red }
</style>
"""
LOOKUP = (
    b"client.getInterrupts().filter((item) => item.kind === 'tool-approval')"
    b".find((item) => item.id === id)?.resolveInterrupt(true)"
)


# A markup TODO marker line, as the engine inserts it.
MARKER_LINE = re.compile(rb"[ \t]*<!-- TODO\(agui\): [^\r\n]*? -->(?:\r\n|\r|\n)")


def unmarked(source: bytes) -> bytes:
    """`source` without the markup TODO marker lines."""
    return MARKER_LINE.sub(b"", source)


def where(result_sites: object) -> list[tuple[str, int, int, str]]:
    """Rule, line, column and action of each site, the way a report shows them."""
    assert isinstance(result_sites, tuple)
    return [(s.rule.value, s.line, s.column, s.action.value) for s in result_sites]


def outside(source: bytes, *, svelte: bool = False) -> list[bytes]:
    """The bytes between the script bodies (tags, template, styles, comments)."""
    pieces = []
    position = 0
    for block in scan(source, svelte=svelte).blocks:
        pieces.append(source[position : block.start])
        position = block.end
    pieces.append(source[position:])
    return pieces


def test_a_vue_setup_script_with_chat_client_calls_is_rewritten() -> None:
    result = migrate_bytes(VUE_SETUP, "Approve.vue", Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated is not None
    expected = VUE_SETUP.replace(
        b"await client.addToolApprovalResponse({ id, approved: true })", LOOKUP
    ).replace(b"client.getPendingInterrupts()", b"client.getInterrupts()")
    assert result.updated == expected
    assert where(result.sites) == [("AG001", 9, 9, "rewritten"), ("AG003", 11, 18, "rewritten")]
    assert migrate_bytes(result.updated, "Approve.vue", Options()).updated is None


def test_two_script_blocks_in_one_vue_file_are_both_migrated() -> None:
    source = b"""<script lang="ts">
export function count(client: Client) {
  return client.getPendingInterrupts().length
}
</script>

<script setup>
const all = client.getPendingInterrupts()
</script>

<template><p>{{ all.length }}</p></template>
"""
    result = migrate_bytes(source, "Two.vue", Options())
    assert result.updated == source.replace(b"getPendingInterrupts", b"getInterrupts")
    assert where(result.sites) == [("AG003", 3, 17, "rewritten"), ("AG003", 8, 20, "rewritten")]


def test_a_svelte_component_with_module_and_instance_scripts() -> None:
    source = b"""<script context="module" lang="ts">
  export const pending = (client: Client) => client.getPendingInterrupts()
</script>

<script lang="ts">
  import { ChatClient } from '@tanstack/ai-client'
  const client = new ChatClient({ tools: [t.client()] })
  async function approve(id: string) {
    await client.addToolApprovalResponse({ id, approved: true })
  }
</script>

{#each items as item}
  <button on:click={() => approve(item.id)}>ok</button>
{/each}
"""
    result = migrate_bytes(source, "Approve.svelte", Options())
    assert result.status is FileStatus.CHANGED
    assert result.updated is not None
    assert b"client.getInterrupts()\n</script>" in result.updated
    assert b"    " + LOOKUP + b"\n  }" in result.updated
    assert outside(result.updated) == outside(source)
    assert where(result.sites) == [("AG003", 2, 53, "rewritten"), ("AG001", 9, 11, "rewritten")]


def test_svelte_5_module_script_and_plain_javascript() -> None:
    source = b"<script module>\nexport const n = client.getPendingInterrupts()\n</script>\n"
    result = migrate_bytes(source, "A.svelte", Options())
    assert result.updated == source.replace(b"getPendingInterrupts", b"getInterrupts")


@pytest.mark.parametrize(
    ("attributes", "grammar"),
    [
        ("", "javascript"),
        (' lang="js"', "javascript"),
        (" lang='javascript'", "javascript"),
        (" lang=jsx", "javascript"),
        (' lang="ts"', "typescript"),
        (' setup lang="TS"', "typescript"),
        (' lang="tsx"', "tsx"),
        (' lang="coffee"', None),
        (' src="./legacy.ts"', None),
        (' lang="ts" src="./legacy.ts"', None),
    ],
)
def test_the_grammar_comes_from_lang_and_src_means_no_body(
    attributes: str, grammar: str | None
) -> None:
    source = f"<template/>\n<script{attributes}>\nx\n</script>\n".encode()
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"\nx\n"
    assert block.grammar == grammar


def test_typescript_blocks_parse_casts_and_tsx_blocks_parse_jsx() -> None:
    cast = b"const n = <number>client.getPendingInterrupts().length\n"
    ts = migrate_bytes(b'<script lang="ts">\n' + cast + b"</script>\n", "a.vue", Options())
    assert ts.status is FileStatus.CHANGED
    tsx = migrate_bytes(b'<script lang="tsx">\n' + cast + b"</script>\n", "a.vue", Options())
    assert tsx.status is FileStatus.FAILED


def test_src_blocks_and_self_closing_blocks_are_not_migrated() -> None:
    source = (
        b'<script src="./a.js">client.getPendingInterrupts()</script>\n'
        b'<script lang="ts" src="./b.ts" />\n'
        b'<script lang="ts">\nconst n = client.getPendingInterrupts()\n</script>\n'
    )
    result = migrate_bytes(source, "A.vue", Options())
    assert result.updated == source.replace(
        b"const n = client.getPendingInterrupts()", b"const n = client.getInterrupts()"
    )
    assert where(result.sites) == [("AG003", 4, 18, "rewritten")]


def test_a_block_inside_an_html_comment_is_ignored() -> None:
    source = b"""<!--
<script lang="ts">
const n = client.getPendingInterrupts()
</script>
-->
<template><p>hi</p></template>
"""
    assert scan(source).blocks == ()
    result = migrate_bytes(source, "A.vue", Options())
    assert result.status is FileStatus.UNCHANGED
    assert result.sites == ()


def test_script_text_in_a_vue_template_is_markup_and_stays() -> None:
    source = b"""<template>
  <p title="<script>">{{ "<script>" }}</p>
  <div><script>client.getPendingInterrupts()</script></div>
</template>

<script setup lang="ts">
const n = client.getPendingInterrupts()
</script>
"""
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"\nconst n = client.getPendingInterrupts()\n"
    result = migrate_bytes(source, "A.vue", Options())
    assert result.updated == source.replace(b"const n = client.getPending", b"const n = client.get")
    # The template's own script is the page's: reported, never rewritten.
    assert where(result.sites) == [("AG003", 3, 23, "todo"), ("AG003", 7, 18, "rewritten")]


def test_a_svelte_head_script_and_expressions_are_markup() -> None:
    source = b"""<svelte:head>
  <script>window.pending = client.getPendingInterrupts()</script>
</svelte:head>
{'<script>'}
<p title="<script>" on:click={() => n > 0}>{`${'}'}<script>`}</p>
{#if ok}<script>client.getPendingInterrupts()</script>{/if}

<script lang="ts">
  const n = client.getPendingInterrupts()
</script>
"""
    [block] = scan(source, svelte=True).blocks
    assert source[block.start : block.end] == b"\n  const n = client.getPendingInterrupts()\n"
    result = migrate_bytes(source, "A.svelte", Options())
    assert result.updated == source.replace(b"const n = client.getPending", b"const n = client.get")
    assert where(result.sites) == [
        ("AG003", 2, 35, "todo"),
        ("AG003", 6, 24, "todo"),
        ("AG003", 9, 20, "rewritten"),
    ]


@pytest.mark.parametrize(
    "before",
    [
        "{a.replace(/}/g, '')}",
        "{a /* } <script> */}",
        "{a // }\n}",
        "{`}${'}'}`}",
        '{"}\\"}"}',
        "{a / b}}",
        "<p>a<div>b</div>",
        "<ul><li>a<li>b</ul>",
        "{#each xs as x}<li>{x}</li>{/each}",
        "<Approve {...rest} {name} />",
    ],
)
def test_svelte_markup_before_the_component_script(before: str) -> None:
    source = f"{before}\n<script>b()</script>".encode()
    [block] = scan(source, svelte=True).blocks
    assert source[block.start : block.end] == b"b()"


@pytest.mark.parametrize(
    ("before", "svelte"),
    [("{ never closed\n", True), ("{{ never closed\n", False), ("<docs>\n<p>\n", False)],
)
def test_what_never_closes_is_read_past_leniently(before: str, svelte: bool) -> None:
    # Vue and Svelte refuse such a file; the scripts after it are still found, and a
    # file of thousands of them is read once, not once per opening.
    source = f"{before}<script>b()</script>".encode()
    [block] = scan(source, svelte=svelte).blocks
    assert source[block.start : block.end] == b"b()"
    many = (before * 20_000 + "<script>b()</script>").encode()
    assert len(scan(many, svelte=svelte).blocks) == 1


@pytest.mark.parametrize(
    ("opening", "nested", "closing", "svelte"),
    [
        ("<template>", "</b>", "</template>", False),  # stray closings
        ("<template>", "<b><c></b>", "</template>", False),  # closings just under the top
        ("<div>", "</b>", "</div>", True),
        ("{#if x}", "<b><c></b>", "{/if}", True),
    ],
)
def test_closing_tags_under_thousands_of_open_ones_cost_one_step_each(
    opening: str, nested: str, closing: str, svelte: bool
) -> None:
    # Each stray or near closing tag once looked through every open element: a file of
    # 60,000 unclosed tags and as many closings took most of a minute.
    count = 60_000
    source = f"{opening}{'<a>' * count}{nested * count}{closing}<script>b()</script>".encode()
    started = time.process_time()
    [block] = scan(source, svelte=svelte).blocks  # the closing still ends them all
    assert time.process_time() - started < 3
    assert source[block.start : block.end] == b"b()"


def test_a_top_level_svelte_script_reads_its_attributes_as_text() -> None:
    source = b'<script lang="ts" generics="T extends { a: 1 }">b()</script>'
    [block] = scan(source, svelte=True).blocks
    assert (source[block.start : block.end], block.grammar) == (b"b()", "typescript")


def test_closing_tags_are_found_case_insensitively_and_strings_do_not_hide_them() -> None:
    source = b"<script lang=\"ts\">const s = '<!--'</SCRIPT >\n<p>x</p>\n"
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"const s = '<!--'"
    assert splice(source, [(block, b"y")]) == b'<script lang="ts">y</SCRIPT >\n<p>x</p>\n'


def test_crlf_and_bom_survive_byte_exact() -> None:
    source = codecs.BOM_UTF8 + VUE_SETUP.replace(b"\n", b"\r\n")
    result = migrate_bytes(source, "Approve.vue", Options())
    assert result.updated is not None
    assert result.updated.startswith(codecs.BOM_UTF8 + b"<template>\r\n")
    assert b"\n" not in result.updated.replace(b"\r\n", b"")
    assert b"\r\n  " + LOOKUP + b"\r\n}\r\n" in result.updated
    assert outside(result.updated) == outside(source)
    # The BOM is no column; CRLF is one line end.
    assert where(result.sites) == [("AG001", 9, 9, "rewritten"), ("AG003", 11, 18, "rewritten")]


def test_a_site_on_the_tag_line_counts_the_tag_and_what_precedes_it() -> None:
    line = (
        b'<div>\xc3\xa9</div><script lang="ts">const n = client.getPendingInterrupts()</script>\n'
    )
    result = migrate_bytes(b"<p/>\n" + line, "A.vue", Options())
    # `<div>é</div>` is 12 characters, `<script lang="ts">` 18, `const n = client.` 17.
    assert where(result.sites) == [("AG003", 2, 48, "rewritten")]
    bom = migrate_bytes(codecs.BOM_UTF8 + line, "A.vue", Options())
    assert where(bom.sites) == [("AG003", 1, 48, "rewritten")]


def test_a_syntax_error_in_a_block_is_reported_at_the_file_position(tmp_path: Path) -> None:
    path = tmp_path / "Broken.vue"
    source = b"""<template>
  <p>{{ x }}</p>
</template>
<script setup lang="ts">
const n = client.getPendingInterrupts()
const { addToolApprovalResponse } = useChat(
</script>
"""
    path.write_bytes(source)
    [result] = run([str(path)], Options())
    assert result.status is FileStatus.FAILED
    assert result.error == "syntax error: unexpected 'const { addToolApprovalRespons'"
    assert (result.error_line, result.error_column) == (6, 1)
    assert result.updated is None
    assert path.read_bytes() == source


def test_an_error_on_the_tag_line_is_shifted_by_the_tag() -> None:
    result = migrate_bytes(
        b'<script lang="ts">client.getPendingInterrupts(</script>\n', "A.vue", Options()
    )
    assert result.status is FileStatus.FAILED
    assert (result.error_line, result.error_column) == (1, 19)


def test_an_unclosed_script_block_is_a_syntax_error_at_its_tag() -> None:
    source = b"<template/>\n  <script>\nclient.getPendingInterrupts()\n"
    result = migrate_bytes(source, "A.vue", Options())
    assert result.status is FileStatus.FAILED
    assert result.error == "syntax error: <script> is never closed"
    assert (result.error_line, result.error_column) == (2, 3)


TEMPLATE_USES_PENDING = b"""<script setup lang="ts">
import { useChat } from '@tanstack/ai-vue'
const { messages, pendingInterrupts } = useChat({ tools })
</script>

<template>
  <ul><li v-for="item in pendingInterrupts" :key="item.id">{{ item.id }}</li></ul>
</template>
"""


def test_a_name_the_template_uses_is_never_dropped_from_the_script() -> None:
    # Alone, the script's rewrite renames the unused `pendingInterrupts` binding.
    alone = migrate_bytes(TEMPLATE_USES_PENDING.split(b"\n\n")[0] + b"\n", "Alone.vue", Options())
    assert alone.updated is not None
    assert b"pendingInterrupts" not in alone.updated

    result = migrate_bytes(TEMPLATE_USES_PENDING, "Pending.vue", Options())
    assert result.updated is not None
    # The template still reads `pendingInterrupts`: only TODO markers go in (see
    # test_held_back_markers.py), the destructuring stays as it was.
    assert b"const { messages, pendingInterrupts } = useChat({ tools })" in result.updated
    assert where(result.sites) == [("AG002", 3, 19, "todo"), ("AG002", 7, 26, "todo")]
    script_site, markup_site = result.sites
    assert script_site.message.endswith(
        "not applied: the markup uses pendingInterrupts, migrate markup and script together"
    )
    assert markup_site.message == (
        "pendingInterrupts in the markup: agui rewrites only the script, change this by hand"
    )
    assert not any(site.marked for site in result.sites)


def test_markup_calls_are_reported_and_the_script_still_migrates() -> None:
    source = b"""<script lang="ts">
  import { ChatClient } from '@tanstack/ai-client'
  const client = new ChatClient({ tools: [t.client()] })
  const n = client.getPendingInterrupts().length
</script>

<button on:click={() => client.addToolApprovalResponse({ id, approved: true })}>ok</button>
<!-- addToolApprovalResponse in a comment is nobody's call -->
<p class="approval-requested">{n}</p>
"""
    result = migrate_bytes(source, "A.svelte", Options())
    call = markup_comment(
        Rule.AG001,
        "addToolApprovalResponse in the markup: agui rewrites only the script, change this by hand",
    )
    event = markup_comment(
        Rule.AG006,
        "approval-requested in the markup: agui rewrites only the script, change this by hand",
    )
    expected = (
        source.replace(b"getPendingInterrupts", b"getInterrupts")
        .replace(b"<button", call.encode() + b"\n<button")
        .replace(b"<p class", event.encode() + b"\n<p class")
    )
    assert result.updated == expected
    assert where(result.sites) == [
        ("AG003", 4, 20, "rewritten"),
        ("AG001", 7, 32, "todo"),
        ("AG006", 9, 11, "todo"),
    ]
    again = migrate_bytes(expected, "A.svelte", Options())
    assert again.updated is None
    assert [s.marked for s in again.sites] == [True, True]
    # Only the selected rules' names are reported.
    only = migrate_bytes(source, "A.svelte", Options(rules=frozenset({Rule.AG003})))
    assert where(only.sites) == [("AG003", 4, 20, "rewritten")]


def test_use_chat_from_the_vue_binding_keeps_its_todo() -> None:
    source = b"""<script setup lang="ts">
import { useChat } from '@tanstack/ai-vue'
const { addToolApprovalResponse } = useChat({ tools })
async function approve(id: string) {
  await addToolApprovalResponse({ id, approved: true })
}
</script>
"""
    result = migrate_bytes(source, "A.vue", Options())
    assert result.updated is not None
    assert [s.action for s in result.sites] == [Action.TODO]
    assert b"// TODO(agui): AG001" in result.updated
    assert outside(result.updated) == outside(source)
    again = migrate_bytes(result.updated, "A.vue", Options())
    assert again.status is FileStatus.UNCHANGED
    assert [s.marked for s in again.sites] == [True]


def test_discovery_and_the_prefilter_take_components(tmp_path: Path) -> None:
    for name in ("a/App.vue", "a/B.svelte", "a/c.ts", "a/notes.html"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"<p>hi</p>\n")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], ()))
    assert found == ["a/App.vue", "a/B.svelte", "a/c.ts"]
    results = run([str(tmp_path / "a/App.vue")], Options())
    assert [r.status for r in results] == [FileStatus.SKIPPED]


# -- random components --------------------------------------------------------------------

BODIES = st.sampled_from(
    (
        "",
        "\n",
        "\nconst n = 1\n",
        "\r\nlet x = 'é'\r\n",
        "\nconst n = client.getPendingInterrupts()\n",
        "client.getPendingInterrupts()",
        "\nconst { pendingInterrupts } = chat\nconsole.log(pendingInterrupts)\n",
        "\nconst { pendingInterrupts } = useChat()\n",
        "\nawait client.addToolApprovalResponse({ id, approved: true })\n",
        "\nclient.resumeInterrupts([])\n",
        "\nif (e.type === 'approval-requested') f(e)\n",
        "\nconst broken = (\n",
    )
)
MARKUP_PIECES = (
    "<template><p>{{ x }}</p></template>",
    "</template>",
    "\n",
    "\r\n",
    " ",
    "<p>x</p>",
    "<br>",
    "<Approve />",
    "{{ x }}",
    "{x}",
    '@click="approve(id)"',
    "pendingInterrupts",
    "addToolApprovalResponse",
    "-->",
    "<!-- <script>client.getPendingInterrupts()</script> -->",
    "<style>p { color: red }</style>",
    "é",
    # What spells `<script>` without being the component's script block.
    '<p title="<script>">x</p>',
    "<input title='</script>'>",
    '{{ "<script>" }}',
    "<template><div><script>client.getPendingInterrupts()</script></div></template>",
    "<svelte:head><script>client.getPendingInterrupts()</script></svelte:head>",
)
# Svelte's own syntax; at a Vue file's top level `{'<script>'}` is a `<script>` tag.
SVELTE_PIECES = (
    "{'<script>'}",
    "{#if ok}<script>client.getPendingInterrupts()</script>{/if}",
    '<div on:click={() => a > b} title="{`<script>${x}`}">{s.match(/<script>/)}</div>',
    "<p>x<div>y</div>",
)
MARKUP = st.lists(st.sampled_from(MARKUP_PIECES + SVELTE_PIECES), max_size=6)
TAGS = st.sampled_from(
    (
        "<script>",
        '<script lang="ts">',
        "<script setup lang='ts'>",
        "<script lang=tsx>",
        "<script module>",
    )
)


# At a Vue file's top level a void element's text runs to its closing tag (or the end
# of the file), as for any custom block: there the pieces close it.
VUE_TOP_LEVEL_CLOSINGS = {"<br>": "</br>", "<input title='</script>'>": "</input>"}


def markup(pieces: list[str], svelte: bool) -> str:
    """The pieces of one stretch of markup, Svelte's own left out of a Vue file."""
    if svelte:
        return "".join(pieces)
    return "".join(
        piece + VUE_TOP_LEVEL_CLOSINGS.get(piece, "")
        for piece in pieces
        if piece not in SVELTE_PIECES
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(MARKUP, TAGS, BODIES), min_size=1, max_size=3),
    MARKUP,
    st.booleans(),
    st.booleans(),
)
def test_random_components_change_only_bodies_with_a_trigger(
    parts: list[tuple[list[str], str, str]], tail: list[str], bom: bool, svelte: bool
) -> None:
    source = (
        (codecs.BOM_UTF8 if bom else b"")
        + "".join(
            markup(pieces, svelte) + tag + body + "</script>" for pieces, tag, body in parts
        ).encode()
        + markup(tail, svelte).encode()
    )
    name = "Random.svelte" if svelte else "Random.vue"
    bodies = [body.encode() for _, _, body in parts]
    layout = scan(source, svelte=svelte)
    assert [source[b.start : b.end] for b in layout.blocks] == bodies

    result = migrate_bytes(source, name, Options())
    if result.updated is None:
        return
    after = scan(result.updated, svelte=svelte)
    # Outside the bodies only whole marker lines are new.
    assert outside(unmarked(result.updated), svelte=svelte) == outside(source, svelte=svelte)
    keys = triggers(Options().rules)
    for body, block in zip(bodies, after.blocks, strict=True):
        if not any(key in body for key in keys):
            assert result.updated[block.start : block.end] == body
    again = migrate_bytes(result.updated, name, Options())
    assert again.updated is None


def test_splice_replaces_only_the_given_bodies() -> None:
    source = b"<a><script>1</script><b><script>2</script><c>"
    _, second = scan(source).blocks
    assert second == ScriptBlock(32, 33, "javascript")
    assert splice(source, [(second, b"two")]) == b"<a><script>1</script><b><script>two</script><c>"
    assert splice(source, []) == source


def plain_dropped_names(source: bytes, parses: list[tuple[Document, Document]]) -> set[str]:
    """The plain twin of `engine._dropped_names`: every markup word, against every body."""
    words = {
        word.decode()
        for start, end in scan(source).markup(len(source))
        for word in re.findall(rb"[A-Za-z_$][\w$]*", source[start:end])
    }
    return {
        name
        for before, after in parses
        for name in words
        if binds(before, name) and not binds(after, name)
    }


def binds(document: Document, name: str) -> bool:
    kinds = {"identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"}
    return any(node.type in kinds for node in document.occurrences(name))


FRAGMENTS = st.sampled_from(
    (
        "const { chat, pendingInterrupts } = useChat()\n",
        "const n = pendingInterrupts.length\n",
        "x.chat = 'chat'\n",
        "const o = { chat }\n",
        "let a1 = 1a\n",
        "f(a1, chat)\n",
        "// chat\n",
    )
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(("chat", "pendingInterrupts", "a1", "x", "1a", "{{", "}}", " "))),
    st.lists(st.tuples(st.lists(FRAGMENTS), st.lists(FRAGMENTS)), max_size=3),
)
def test_dropped_names_equal_a_check_of_every_markup_word(
    markup: list[str], bodies: list[tuple[list[str], list[str]]]
) -> None:
    source = ("<template>" + " ".join(markup) + "</template>").encode()
    parses = [
        (Document("".join(b).encode(), "typescript"), Document("".join(a).encode(), "typescript"))
        for b, a in bodies
    ]
    found = _dropped_names(source, scan(source), parses)
    assert found == plain_dropped_names(source, parses)


def _plain_close(open_: list[bytes], name: bytes) -> None:
    """The plain twin of `Nesting.close`: search the stack from the innermost end."""
    for index in range(len(open_) - 1, -1, -1):
        if open_[index] == name:
            del open_[index:]
            return


@settings(max_examples=500, deadline=None)
@given(steps=st.lists(st.tuples(st.booleans(), st.sampled_from([b"a", b"b", b"c", b"{"]))))
def test_nesting_closes_as_a_plain_stack_search_does(steps: list[tuple[bool, bytes]]) -> None:
    nesting, plain = Nesting(), []
    for opens, name in steps:
        if opens:
            nesting.push(name)
            plain.append(name)
        else:
            nesting.close(name)
            _plain_close(plain, name)
        assert nesting.names() == tuple(plain)
        assert bool(nesting) == bool(plain)


def test_stray_closings_inside_deep_nesting_are_read_once() -> None:
    # Each stray `</span>` used to search the whole stack of open `<div>`s (and
    # 200,000 of them took minutes); the script after them is still the only block.
    depth = 50_000
    source = b"<div>" * depth + b"</span>" * depth + b"</div>" * depth
    source += b"<script>b()</script>"
    [block] = scan(source, svelte=True).blocks
    assert source[block.start : block.end] == b"b()"


@pytest.mark.parametrize(
    ("source", "bodies"),
    [
        # Svelte's parser ends the component's script only at `</script` + spaces + `>`.
        (b"<script>// </script x\nb()\n</script>", [b"// </script x\nb()\n"]),
        (b"<script>a()</script\n>", [b"a()"]),
        # Its tag names keep their case: `<SCRIPT>` is a component, not the script.
        (b"<SCRIPT>b()</SCRIPT><script>c()</script>", [b"c()"]),
        # The component's style ends at the first `</style`.
        (b"<style>a{}</stylex><script>b()</script>", [b"b()"]),
    ],
)
def test_svelte_script_and_style_end_where_svelte_ends_them(
    source: bytes, bodies: list[bytes]
) -> None:
    # (each expectation checked against svelte 5's `parse`)
    blocks = scan(source, svelte=True).blocks
    assert [source[b.start : b.end] for b in blocks] == bodies


def test_a_vue_closing_script_tag_ignores_case_as_vue_does() -> None:
    # The opening tag does not: see test_vue_tag_case.py.
    source = b"<script>b()</SCRIPT >"
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"b()"


@pytest.mark.parametrize(
    ("source", "bodies"),
    [
        (b"<textarea><script></textarea><script>b()</script>", [b"b()"]),
        (b'<textarea>{"</textarea>"}</textarea><script>b()</script>', [b"b()"]),
        (b"<div><textarea><script></TEXTAREA ></div><script>b()</script>", [b"b()"]),
    ],
)
def test_a_svelte_textarea_holds_text_and_expressions_never_tags(
    source: bytes, bodies: list[bytes]
) -> None:
    # (each expectation checked against svelte 5's `parse`: the script after it is found)
    blocks = scan(source, svelte=True).blocks
    assert [source[b.start : b.end] for b in blocks] == bodies


@pytest.mark.parametrize("comment", [b"<!-->", b"<!--->"])
def test_an_abrupt_empty_comment_ends_at_once_in_vue(comment: bytes) -> None:
    # HTML and Vue read `<!-->` and `<!--->` as whole comments (checked against
    # @vue/compiler-sfc): the script after one is the component's.
    source = comment + b"<script>a --> b</script>"
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"a --> b"
    assert scan(source).comments == ((0, len(comment)),)


@pytest.mark.parametrize(
    "template",
    [
        b"<template><div v-pre>{{</div></template>",
        b"<template><div v-pre><p>{{</p></div><p>{{ a }}</p></template>",
        b"<template><div v-pre><div></div>{{</div></template>",
    ],
)
def test_in_a_vue_v_pre_element_braces_are_text(template: bytes) -> None:
    # Vue does not read `{{` inside `v-pre` (checked against @vue/compiler-sfc); agui
    # read it as an interpolation running to a `}}` after the script, and missed it.
    source = template + b"<script>b()</script>{{ a }}"
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"b()"
