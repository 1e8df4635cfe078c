"""A void element at a Vue file's top level hides what follows, as @vue/compiler-sfc reads it.

At the top level Vue reads every tag but an HTML `<template>` as a block of raw text up
to its closing tag, a void one too: after `<br>` or `<img src=x>` the text up to a
`</br>` (or the end of the file) is that element's, so a `<script>` in it is no block.
Each expectation here was checked against @vue/compiler-sfc 3.5.45; the randomised
comparison with the compiler itself is tests/interop/test_vue_sfc_interop.py.
"""

from __future__ import annotations

import pytest

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.site import Action
from codemods.typescript.components import scan


@pytest.mark.parametrize(
    ("source", "bodies"),
    [
        (b"<br>\n<script>a()</script>\n", []),
        (b"<img src=x>\n<script setup>a()</script>\n", []),
        (b"<script>a()</script>\n<br>\n<script setup>b()</script>\n", [b"a()"]),
        (b"<br>\n<script>a()</script></br >\n<script setup>b()</script>\n", [b"b()"]),
        (b"<wbr>x</WBR\n><script>a()</script>", [b"a()"]),
        (b"<br>\n<!-- </br> -->\n<script>a()</script>\n", [b"a()"]),
        (b"<br/>\n<script>a()</script>\n", [b"a()"]),
        (b"<template><br></template>\n<script>a()</script>\n", [b"a()"]),
        (b"<template><p/></template>\n<br>\n<script>a()</script>\n", []),
        # Only `>` or whitespace after the name ends raw text, never `/`.
        (b"<br>x</br/><script>a()</script>", []),
        (b"<script>a()</script/>b()</script>", [b"a()</script/>b()"]),
    ],
)
def test_top_level_void_elements_hide_what_follows_up_to_their_closing(
    source: bytes, bodies: list[bytes]
) -> None:
    assert [source[b.start : b.end] for b in scan(source).blocks] == bodies


def test_a_script_after_a_top_level_br_is_not_migrated() -> None:
    source = b"<br>\n<script setup>\nconst n = client.getPendingInterrupts().length\n</script>\n"
    result = migrate_bytes(source, "Desk.vue", Options())
    assert result.status is not FileStatus.CHANGED
    assert result.updated is None
    # The name is text of the `<br>` block, reported like any other outside the script.
    assert [(s.line, s.action) for s in result.sites] == [(3, Action.TODO)]
    assert "in the markup" in result.sites[0].message
