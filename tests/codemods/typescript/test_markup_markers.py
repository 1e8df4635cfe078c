"""TODO markers for legacy names in Vue and Svelte markup: an HTML comment on its own line
above the line (or the tag) holding the site, recognised on the next run, and never where
a comment would not be markup (raw text, `v-pre`, outside a Vue `<template>`)."""

from __future__ import annotations

import codecs

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods import Rule
from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.typescript.markup import _containing, comment

TODO = "{} in the markup: agui rewrites only the script, change this by hand"
CALL = comment(Rule.AG001, TODO.format("addToolApprovalResponse")).encode()
PENDING = comment(Rule.AG002, TODO.format("pendingInterrupts")).encode()

VUE = b"""<script setup lang="ts">
const x = 1
</script>

<template>
  <div>
    <button
      class="a"
      @click="addToolApprovalResponse({ id, approved: true })">ok</button>
    <p>{{ pendingInterrupts.length }}</p>
    <pre v-pre>addToolApprovalResponse</pre>
    <textarea>addToolApprovalResponse</textarea>
  </div>
</template>
<docs>addToolApprovalResponse</docs>
<style>.addToolApprovalResponse {}</style>
"""
VUE_MARKED = VUE.replace(b"    <button\n", b"    " + CALL + b"\n    <button\n").replace(
    b"    <p>", b"    " + PENDING + b"\n    <p>"
)

SVELTE = b"""<script lang="ts">
  const x = 1
</script>

<svelte:head><script>addToolApprovalResponse()</script></svelte:head>
<div>
	<button class="a"
		on:click={() => addToolApprovalResponse({ id, approved: true })}>ok</button>
	{#if
		pendingInterrupts.length}
		<textarea>addToolApprovalResponse</textarea>
	{/if}
</div>
<style>.addToolApprovalResponse {}</style>
"""
SVELTE_MARKED = SVELTE.replace(b"\t<button", b"\t" + CALL + b"\n\t<button").replace(
    b"\t{#if\n", b"\t" + PENDING + b"\n\t{#if\n"
)


def marks(source: bytes, name: str) -> list[tuple[int, bool]]:
    return [(site.line, site.marked) for site in migrate_bytes(source, name, Options()).sites]


def test_a_vue_template_gets_markers_above_the_tag_and_the_line() -> None:
    result = migrate_bytes(VUE, "A.vue", Options())
    assert result.updated == VUE_MARKED
    assert [(s.line, s.marked) for s in result.sites] == [
        (9, False),
        (10, False),
        (11, False),
        (12, False),
        (15, False),
        (16, False),
    ]
    again = migrate_bytes(VUE_MARKED, "A.vue", Options())
    assert again.status is FileStatus.UNCHANGED
    # v-pre, <textarea>, a custom block and <style> stay unmarked.
    assert [(s.line, s.marked) for s in again.sites] == [
        (10, True),
        (12, True),
        (13, False),
        (14, False),
        (17, False),
        (18, False),
    ]


def test_svelte_markup_gets_markers_above_multi_line_tags_and_blocks() -> None:
    result = migrate_bytes(SVELTE, "A.svelte", Options())
    assert result.updated == SVELTE_MARKED
    again = migrate_bytes(SVELTE_MARKED, "A.svelte", Options())
    assert again.status is FileStatus.UNCHANGED
    # The head's script, <textarea> and <style> stay unmarked.
    assert [(s.line, s.marked) for s in again.sites] == [
        (5, False),
        (9, True),
        (12, True),
        (13, False),
        (16, False),
    ]


def test_two_sites_on_one_line_share_a_marker_and_two_names_get_two() -> None:
    source = (
        b"<div>\n  <b on:click={addToolApprovalResponse}>{addToolApprovalResponse}</b>\n</div>\n"
    )
    once = migrate_bytes(source, "A.svelte", Options())
    assert once.updated == source.replace(b"  <b", b"  " + CALL + b"\n  <b")
    both = source.replace(b"{addToolApprovalResponse}<", b"{pendingInterrupts}<")
    twice = migrate_bytes(both, "A.svelte", Options())
    assert twice.updated is not None
    assert twice.updated.count(b"<!-- TODO(agui)") == 2
    assert migrate_bytes(twice.updated, "A.svelte", Options()).updated is None


def test_crlf_and_bom_keep_their_bytes_and_the_marker_follows_them() -> None:
    source = codecs.BOM_UTF8 + b"<p on:click={addToolApprovalResponse}>x</p>\r\n<br>\r\n"
    result = migrate_bytes(source, "A.svelte", Options())
    assert result.updated == codecs.BOM_UTF8 + CALL + b"\r\n" + source[3:]
    assert migrate_bytes(result.updated, "A.svelte", Options()).updated is None


def test_a_line_starting_inside_another_tag_goes_above_that_tag() -> None:
    source = (
        b'<template>\n  <div\n    id="a"><p @click="addToolApprovalResponse()">x</p></div>\n'
        b"</template>\n"
    )
    result = migrate_bytes(source, "A.vue", Options())
    assert result.updated == source.replace(b"  <div", b"  " + CALL + b"\n  <div")


def test_after_a_brace_that_never_closes_nothing_is_marked() -> None:
    source = b"<p>{\n</p>\n<b on:click={addToolApprovalResponse}>x</b>\n"
    assert migrate_bytes(source, "A.svelte", Options()).updated is None
    vue = b'<template>\n<p>{{ a\n<b @click="addToolApprovalResponse">x</b>\n</template>\n'
    assert migrate_bytes(vue, "A.vue", Options()).updated is None


def test_a_different_comment_above_does_not_count_as_the_marker() -> None:
    source = b"<!-- note -->\n<b on:click={addToolApprovalResponse}>x</b>\n"
    result = migrate_bytes(source, "A.svelte", Options())
    assert result.updated == source.replace(b"<b", CALL + b"\n<b")
    assert marks(result.updated, "A.svelte") == [(3, True)]


RANGES = st.lists(st.integers(0, 5), max_size=12).map(
    lambda steps: tuple(zip(*[iter(_cumulative(steps))] * 2, strict=False))
)


def _cumulative(steps: list[int]) -> list[int]:
    total, out = 0, []
    for step in steps:
        total += step + 1
        out.append(total)
    return out


@settings(max_examples=300, deadline=None)
@given(RANGES, st.integers(0, 80), st.booleans())
def test_the_bisected_lookup_equals_a_plain_scan(
    ranges: tuple[tuple[int, int], ...], offset: int, closed: bool
) -> None:
    plain = next(
        (r for r in ranges if (r[0] <= offset <= r[1] if closed else r[0] <= offset < r[1])),
        None,
    )
    assert _containing(ranges, offset, closed) == plain
