"""Upper and mixed case in a Vue file's tag names, read as @vue/compiler-sfc reads them.

At the top level Vue takes a block's name as written: only `template`, `script` and
`style` in lower case are those blocks, and a closing tag matches only a name written in
lower case (in any case of its own), so `<SCRIPT>…</SCRIPT>` never closes and the
compiler refuses the file. Below the top level the tokenizer reads `<script>`, `<style>`,
`<title>` and `<textarea>` as raw text only when their first two letters are in lower
case. Each expectation here was checked against @vue/compiler-sfc 3.5.45; the randomised
comparison with the compiler itself is tests/interop/test_vue_sfc_interop.py.
"""

from __future__ import annotations

import pytest

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.typescript.components import UnclosedBlock, scan


@pytest.mark.parametrize(
    ("source", "bodies"),
    [
        ("<script>a()</SCRIPT>\n", ["a()"]),
        ("<script setup>a()</Script\n>\n", ["a()"]),
        ("<template><p>{{ a }}</p></TEMPLATE>\n<script>b()</script>", ["b()"]),
        ("<docs>x</DOCS>\n<script>a()</script>", ["a()"]),
        ("<my-docs>x</MY-DOCS>\n<script>a()</script>", ["a()"]),
        ("<a\u00e9>x</a\u00c9>\n<script>b()</script>", ["b()"]),
        # U+000F is `/` less its 0x20 bit, which is all the tokenizer compares.
        ("<docs>x<\x0fdocs>\n<script>a()</script>", ["a()"]),
        # Below the top level: raw text (a comment in it is text) only for `sc…`, `st…`.
        ("<template><scRIPT><!--</SCRIPT></template>\n<script>a()</script>", ["a()"]),
        ("<template><Script><!--</Script></template>\n<script>a()</script>", []),
        ("<template><sCRIPT><!--</SCRIPT></template>\n<script>a()</script>", []),
        ("<template><STYLE><!--</STYLE></template>\n<script>a()</script>", []),
        ("<template><tITLE><!--</title></template>\n<script>a()</script>", []),
    ],
)
def test_blocks_are_where_the_compiler_finds_them(source: str, bodies: list[str]) -> None:
    data = source.encode()
    assert [data[b.start : b.end].decode() for b in scan(data).blocks] == bodies


@pytest.mark.parametrize(
    ("source", "offset", "written"),
    [
        ("<SCRIPT>a()</SCRIPT>\n", 0, "<SCRIPT>"),
        ("<Script setup>a()</Script>\n", 0, "<Script>"),
        ("<SCRIPT>a()</script>\n", 0, "<SCRIPT>"),
        ("<script>a()</script>\n<scripT setup>b()</script>", 21, "<scripT>"),
    ],
)
def test_a_top_level_script_not_in_lower_case_never_closes(
    source: str, offset: int, written: str
) -> None:
    with pytest.raises(UnclosedBlock) as raised:
        scan(source.encode())
    hint = "(Vue closes only a lower-case <script>)"
    assert (str(raised.value), raised.value.offset) == (f"{written} is never closed {hint}", offset)


def test_a_top_level_style_not_in_lower_case_never_closes() -> None:
    with pytest.raises(
        UnclosedBlock, match=r"^<STYLE> is never closed \(Vue closes only a lower-case <style>\)$"
    ):
        scan(b"<STYLE>p{}</STYLE>\n<script>a()</script>")


def test_a_file_with_an_upper_case_script_is_a_syntax_error_and_left_alone() -> None:
    source = b"<template/>\n<SCRIPT setup>\nclient.getPendingInterrupts()\n</SCRIPT>\n"
    result = migrate_bytes(source, "Desk.vue", Options())
    assert result.status is FileStatus.FAILED
    assert result.updated is None
    assert result.error == (
        "syntax error: <SCRIPT> is never closed (Vue closes only a lower-case <script>)"
    )
    assert (result.error_line, result.error_column) == (2, 1)


@pytest.mark.parametrize("opening", ["<Template>", "<Docs>", "<BR>", "<my_docs>"])
def test_other_top_level_names_that_never_close_are_read_past_leniently(opening: str) -> None:
    # Vue refuses these files too ("Element is missing end tag"); as for an unclosed
    # `<docs>`, the scripts after them are still found.
    name = opening[1:-1]
    source = f"{opening}<p>x</p></{name}>\n<script>b()</script>".encode()
    [block] = scan(source).blocks
    assert source[block.start : block.end] == b"b()"
