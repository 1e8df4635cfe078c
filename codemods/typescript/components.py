"""Where the scripts of a Vue or Svelte single-file component are, and how edited ones go back.

A `.vue`/`.svelte` file is markup around `<script>` blocks; the rules read only the
component's own blocks, so this module finds each body's byte range and grammar and
splices edited bodies back, leaving every byte outside them as it was. It reads the file
the way both compilers do: comments (`<!-- … -->`) hide tags, `<script>`/`<style>` bodies
are raw text that ends at the first closing tag, and only a `<script>` at the top level
is the component's. One nested deeper (in `<svelte:head>`, a Vue `<template>`, a Svelte
`{#if}`) is a script of the page, part of the markup. So the scanner follows the element
nesting, and steps over what may spell a tag without being one: attribute values, Vue
`{{ … }}` interpolations and Svelte `{…}` expressions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# `lang` values whose bodies one of our grammars parses; a block with any other `lang`
# (CoffeeScript, say) is not read. JSX parses with the JavaScript grammar, as in `.jsx`.
GRAMMARS: dict[str, str] = {
    "": "javascript",
    "js": "javascript",
    "javascript": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
}
# Elements whose body is text up to their closing tag, whatever it holds. Vue's template
# parser also reads `<textarea>` and `<title>` so; Svelte parses their `{…}` expressions.
RAW_TEXT = frozenset({b"script", b"style"})
VUE_RAW_TEXT = RAW_TEXT | {b"textarea", b"title"}
# Elements that never have a body or closing tag.
VOID = frozenset(
    {
        b"area",
        b"base",
        b"br",
        b"col",
        b"embed",
        b"hr",
        b"img",
        b"input",
        b"link",
        b"meta",
        b"param",
        b"source",
        b"track",
        b"wbr",
    }
)
# HTML's optional end tags (WHATWG "Optional tags"), which Svelte applies: an open element
# of the key ends where one of these elements opens (`<p>a<div>` closes the `<p>`).
_P_ENDERS = (
    b"address article aside blockquote div dl fieldset footer form h1 h2 h3 h4 h5 h6 header"
    b" hgroup hr main menu nav ol p pre section table ul"
)
ENDED_BY: dict[bytes, frozenset[bytes]] = {
    b"li": frozenset({b"li"}),
    b"dt": frozenset({b"dt", b"dd"}),
    b"dd": frozenset({b"dt", b"dd"}),
    b"p": frozenset(_P_ENDERS.split()),
    b"rt": frozenset({b"rt", b"rp"}),
    b"rp": frozenset({b"rt", b"rp"}),
    b"optgroup": frozenset({b"optgroup"}),
    b"option": frozenset({b"option", b"optgroup"}),
    b"thead": frozenset({b"tbody", b"tfoot"}),
    b"tbody": frozenset({b"tbody", b"tfoot"}),
    b"tfoot": frozenset({b"tbody"}),
    b"tr": frozenset({b"tr", b"tbody"}),
    b"td": frozenset({b"td", b"th", b"tr"}),
    b"th": frozenset({b"td", b"th", b"tr"}),
}
# A Svelte block (`{#if}` … `{/if}`) on the nesting stack, beside element names.
_BLOCK = b"{"
# What the scanner stops at: a comment, an opening or closing tag, an interpolation
# (Vue) or an expression (Svelte).
_VUE_TOKEN = re.compile(rb"<!--|<(/?)([A-Za-z][^\s/>]*)|\{\{")
_SVELTE_TOKEN = re.compile(rb"<!--|<(/?)([A-Za-z][^\s/>]*)|\{")
_TAG_TOKEN = re.compile(rb"<!--|<(/?)([A-Za-z][^\s/>]*)")
_NAME = re.compile(rb"""[^\s=/>"'{]+""")
_EQUALS = re.compile(rb"\s*=\s*")
_TAG_END = re.compile(rb"(/?)>")
# Whitespace between attributes, skipped once per step so no byte is rescanned.
_SPACE = re.compile(rb"\s*")
# Inside a Svelte expression: what opens or closes a brace, a string, a template literal,
# a comment or a regular expression; inside a template literal, what ends a stretch of it.
_CODE_STOP = re.compile(rb"""[{}'"`]|//|/\*|/""")
_TEMPLATE_STOP = re.compile(rb"\\.|`|\$\{", re.DOTALL)
_STRING = {
    b"'": re.compile(rb"(?:[^'\\\r\n]|\\.)*'?", re.DOTALL),
    b'"': re.compile(rb'(?:[^"\\\r\n]|\\.)*"?', re.DOTALL),
}
_REGEX = re.compile(rb"(?:[^/\\\[\r\n]|\\.|\[(?:[^\]\\\r\n]|\\.)*\]?)*/?[\w$]*", re.DOTALL)
_LINE_END = re.compile(rb"[\r\n]")
# After one of these (or at the start), a `/` starts a regular expression, not a division.
_BEFORE_REGEX = b"(,=:[!&|?{};+-*%<>~^"


@dataclass(frozen=True, slots=True)
class ScriptBlock:
    """The body of one `<script>` block: bytes `start:end` of the file, and the grammar
    to parse it with (None: nothing to migrate, a `src=` block or an unknown `lang`)."""

    start: int
    end: int
    grammar: str | None


@dataclass(frozen=True, slots=True)
class Layout:
    """A component's script blocks and HTML comments (byte ranges), in file order.

    `text` and `tags` say where an HTML comment (a TODO marker) may go: `text` holds the
    stretches of markup text (ends included) in which a comment is a comment, and `tags`
    the tags and `{…}`/`{{ … }}` expressions between them, from their `<` or brace to
    their end. Neither covers what a comment there would not be one in, or would change:
    `<script>`/`<style>` and other raw-text bodies, a Vue `v-pre` element, a Vue file
    outside its `<template>`, or anything after a brace that never closes.
    """

    blocks: tuple[ScriptBlock, ...]
    comments: tuple[tuple[int, int], ...]
    text: tuple[tuple[int, int], ...] = ()
    tags: tuple[tuple[int, int], ...] = ()

    def markup(self, length: int) -> Iterator[tuple[int, int]]:
        """Byte ranges of what is neither a script body nor a comment: the template, the
        styles and the tags themselves."""
        hidden = sorted([(b.start, b.end) for b in self.blocks] + list(self.comments))
        position = 0
        for start, end in hidden:
            if start > position:
                yield position, start
            position = max(position, end)
        if position < length:
            yield position, length


class UnclosedBlock(ValueError):
    """A `<script>` or `<style>` without its closing tag; `offset` is where it opens.

    A Vue file's top-level `<SCRIPT>` (any name not in lower case) is one too: Vue's
    tokenizer compares the closing tag to the name as written, in lower case only, so
    such a block never closes and @vue/compiler-sfc refuses the file. With `cased`,
    the message says how to write it.
    """

    def __init__(self, tag: str, offset: int, *, cased: bool = False) -> None:
        hint = f" (Vue closes only a lower-case <{tag.lower()}>)" if cased else ""
        super().__init__(f"<{tag}> is never closed{hint}")
        self.offset = offset


def scan(source: bytes, *, svelte: bool = False) -> Layout:
    """Find the component's own script bodies, and the comments, of a Vue file (or of a
    Svelte file when `svelte`).

    Raises `UnclosedBlock` when a `<script>` or `<style>` has no closing tag: where its
    body ends is then anyone's guess, and Vue and Svelte refuse such a file too.
    """
    token = _SVELTE_TOKEN if svelte else _VUE_TOKEN
    raw_text = RAW_TEXT if svelte else VUE_RAW_TEXT
    blocks: list[ScriptBlock] = []
    comments: list[tuple[int, int]] = []
    open_ = Nesting()  # the elements (and Svelte blocks) the scanner is inside
    # Closings a search found nowhere after some point: none comes later either, so no
    # unclosed tag or `{{` is searched for twice (which made hostile files quadratic).
    never: set[bytes] = set()
    # Inside a Vue element with `v-pre` (this many elements deep), `{{` is text.
    verbatim: int | None = None
    text: list[tuple[int, int]] = []
    tags: list[tuple[int, int]] = []
    broken = False  # a brace never closed: where markup text is, is a guess from here on
    text_from = 0  # where the text after the last tag starts (past a closing tag's `>`)
    position = 0
    while (match := token.search(source, position)) is not None:
        # Whether a comment is one here, and would stay markup: in Svelte's markup, or
        # inside a Vue file's `<template>` outside a `v-pre` element.
        markable = not broken and (
            svelte or (verbatim is None and bool(open_) and open_.outermost() == b"template")
        )
        if markable and text_from <= match.start():
            text.append((text_from, match.start()))
        if match.group(0) == b"<!--":  # a comment runs to `-->`, or to the end of the file
            end = _comment_end(source, match.end(), svelte)
            comments.append((match.start(), end))
            position = text_from = end
        elif match.group(2) is None:
            resume = _after_braces(source, match.end(), open_, svelte, never)
            if resume is None:  # unclosed: read on after it, braces as plain text
                token, resume = _TAG_TOKEN, match.end()
            broken = broken or resume == match.end()  # Vue: `}}` never comes
            if markable and not broken:
                tags.append((match.start(), resume))
            position = text_from = resume
        elif match.group(1):  # `</name …>` closes the innermost open `name`, if any
            open_.close(_name(match.group(2), svelte))
            position = match.end()
            text_from = _past_tag(source, position)
            if markable:
                tags.append((match.start(), text_from))
            if verbatim is not None and len(open_) < verbatim:
                verbatim, token = None, _VUE_TOKEN
        else:
            exact = match.group(2)  # as written: Vue's top level and raw-text tags see case
            name = _name(exact, svelte)
            top = not open_
            # Svelte reads the attributes of a top-level script or style as plain text.
            braces = svelte and not (top and name in RAW_TEXT)
            attributes, body_start, closed = _open_tag(source, match.end(), braces)
            position = text_from = body_start
            if markable:
                tags.append((match.start(), body_start))
            # At a Vue file's top level every block but an HTML `<template>` is raw text,
            # a void element's too: `<br>` hides what follows up to a `</br>`, or to the
            # end of the file (a custom block to @vue/compiler-sfc, which says nothing).
            vue_top = top and not svelte
            if closed or (name in VOID and not vue_top):
                continue
            raw = name in raw_text if svelte else _is_vue_raw_text(exact)
            if raw or (vue_top and not _is_template(exact, attributes)):
                # Vue's closing is the name as written at the top level, the lower-case
                # name of the raw-text element below it.
                closing = (
                    _svelte_closing(name, top) if svelte else _vue_closing(exact if top else name)
                )
                search = closing is not None and exact not in never
                close = closing.search(source, body_start) if search and closing else None
                if close is None and name in RAW_TEXT:
                    cased = vue_top and exact != name
                    tag = exact.decode("utf-8", "replace")
                    raise UnclosedBlock(tag, match.start(), cased=cased)
                if close is None and exact in VOID:
                    break
                if close is None:  # an unclosed custom block (`<docs>`): read on, leniently
                    never.add(exact)
                    continue
                if top and exact == b"script":
                    blocks.append(ScriptBlock(body_start, close.start(), _grammar(attributes)))
                position = close.end()
                text_from = _past_tag(source, position)
                continue
            if svelte and name == b"textarea":  # text and `{…}` up to its closing tag
                position = text_from = _svelte_textarea_end(source, body_start)
                continue
            if svelte and open_ and name in ENDED_BY.get(open_.innermost(), ()):
                open_.close(open_.innermost())
            open_.push(name)
            if not svelte and verbatim is None and "v-pre" in attributes:
                verbatim, token = len(open_), _TAG_TOKEN
    if not broken and svelte and text_from <= len(source):  # Svelte markup after the last tag
        text.append((text_from, len(source)))
    return Layout(tuple(blocks), tuple(comments), tuple(text), tuple(tags))


def _past_tag(source: bytes, position: int) -> int:
    """Past the `>` of a closing tag whose name ends at or before `position` (the
    scanner reads on from the name; the rest of the tag is no place for a comment)."""
    if source[position - 1 : position] == b">":  # the pattern took it already
        return position
    end = source.find(b">", position)
    return len(source) if end < 0 else end + 1


def _comment_end(source: bytes, position: int, svelte: bool) -> int:
    """Where a comment whose `<!--` ends at `position` ends: past its `-->`, or at the
    end of the file. Vue, as HTML does, also reads `<!-->` and `<!--->` as whole (empty)
    comments; Svelte refuses them, so there they run on to a `-->` like any other."""
    if not svelte:
        for abrupt in (b">", b"->"):
            if source.startswith(abrupt, position):
                return position + len(abrupt)
    end = source.find(b"-->", position)
    return len(source) if end < 0 else end + 3


def _name(name: bytes, svelte: bool) -> bytes:
    """A tag's name as the compiler compares it: Vue's HTML names ignore case; Svelte's
    do not (`<SCRIPT>` is a component there, not the component's script)."""
    return name if svelte else name.lower()


def _is_vue_raw_text(name: bytes) -> bool:
    """Whether a Vue tag below the top level, named `name` as written, opens raw text.

    Vue's tokenizer takes the first two letters as written (`sc`, `st`, `ti`, `te`) and
    the rest in any case: `<scRIPT>` is raw text, `<Script>` and `<SCRIPT>` are elements
    (a component) whose body is markup like any other.
    """
    return name[:2] in (b"sc", b"st", b"ti", b"te") and name.lower() in VUE_RAW_TEXT


def _vue_closing(name: bytes) -> re.Pattern[bytes] | None:
    """What ends a Vue raw-text block whose opening tag is named `name` as written: `</`
    and the name, then `>` or HTML whitespace (Vue's tokenizer reads on past
    `</script/>` or a vertical tab). None when nothing can end it.

    The tokenizer matches a character `c` of the closing tag to the name's `n` when
    `c | 0x20 == n` (UTF-16 units): lower-case letters match in either case, but an
    upper-case letter (or `@[\\]^_`) in the opening tag's name matches nothing, so
    `<SCRIPT>` or `<my_block>` never closes. (The tokenizer also takes a U+001C for
    the `<` right after a near miss; no source has one, and agui does not.)
    """
    try:
        text = name.decode("utf-8")
    except UnicodeDecodeError:
        return None  # not text the compiler would be given
    parts = [rb"<[/\x0f]"]
    for character in text:
        spellings = _closing_spellings(character)
        if not spellings:
            return None
        parts.append(b"(?:" + b"|".join(re.escape(s) for s in sorted(spellings)) + b")")
    return re.compile(b"".join(parts) + rb"(?=[\t\n\f\r >])")


def _closing_spellings(character: str) -> set[bytes]:
    """The UTF-8 spellings of what Vue's tokenizer takes for `character` in a closing
    tag: each UTF-16 unit `u` of it matches `u` and, when it has the 0x20 bit, `u` less
    that bit. Empty when some unit has no match."""
    units = character.encode("utf-16-be")
    choices: list[list[int]] = []
    for index in range(0, len(units), 2):
        unit = int.from_bytes(units[index : index + 2], "big")
        if not unit & 0x20:
            return set()
        choices.append([unit, unit & ~0x20])
    if len(choices) == 1:
        return {chr(unit).encode("utf-8") for unit in choices[0]}
    high, low = choices  # a surrogate pair: either half in either form is still a pair
    return {
        (high_unit.to_bytes(2, "big") + low_unit.to_bytes(2, "big"))
        .decode("utf-16-be")
        .encode("utf-8")
        for high_unit in high
        for low_unit in low
    }


def _svelte_closing(name: bytes, top: bool) -> re.Pattern[bytes]:
    """What ends a Svelte `<script>` or `<style>` body, as Svelte's parser reads it: the
    component's script at `</script` and spaces then `>`, its style at the first
    `</style`, and a nested one only at exactly `</script>` or `</style>`. So a
    `// </script x` in the component's script is still script."""
    if top and name == b"script":
        return re.compile(rb"</script\s*>")
    if top:
        return re.compile(rb"</" + re.escape(name))
    return re.compile(rb"</" + re.escape(name) + rb">")


_SVELTE_TEXTAREA_END = re.compile(rb"</textarea(?:\s[^>]*)?>", re.IGNORECASE)
_SVELTE_TEXTAREA_STOP = re.compile(rb"\{|" + _SVELTE_TEXTAREA_END.pattern, re.IGNORECASE)


def _svelte_textarea_end(source: bytes, position: int) -> int:
    """Where a Svelte `<textarea>` whose body starts at `position` ends (past its closing
    tag; the end of the file when it has none). Svelte reads its body as text and `{…}`
    expressions, never as tags: a `<script>` in it is text."""
    while (stop := _SVELTE_TEXTAREA_STOP.search(source, position)) is not None:
        if stop.group(0) != b"{":
            return stop.end()
        end = _expression_end(source, stop.end())
        if end is None:  # unclosed: braces after it are text (one search, not one each)
            close = _SVELTE_TEXTAREA_END.search(source, stop.end())
            return len(source) if close is None else close.end()
        position = end
    return len(source)


class Nesting:
    """The elements (and Svelte blocks) open at a point, innermost last, with a count of
    each name, so a closing tag for a name not open (or open far down) costs no search
    of the whole stack: a file of many stray closings inside deep nesting stays linear."""

    __slots__ = ("_counts", "_names")

    def __init__(self) -> None:
        self._names: list[bytes] = []
        self._counts: dict[bytes, int] = {}

    def __bool__(self) -> bool:
        return bool(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def names(self) -> tuple[bytes, ...]:
        """What is open, outermost first."""
        return tuple(self._names)

    def innermost(self) -> bytes:
        return self._names[-1]

    def outermost(self) -> bytes:
        return self._names[0]

    def push(self, name: bytes) -> None:
        self._names.append(name)
        self._counts[name] = self._counts.get(name, 0) + 1

    def close(self, name: bytes) -> None:
        """Close the innermost open `name` and what is open inside it; nothing when
        `name` is not open (a stray closing tag)."""
        if not self._counts.get(name):
            return
        while True:  # pops only what the closing ends
            popped = self._names.pop()
            self._counts[popped] -= 1
            if popped == name:
                return


def _is_template(name: bytes, attributes: dict[str, str]) -> bool:
    """A Vue `<template>` whose body is HTML (not Pug or another `lang`)."""
    return name == b"template" and attributes.get("lang", "").strip().lower() in ("", "html")


def _after_braces(
    source: bytes, position: int, open_: Nesting, svelte: bool, never: set[bytes]
) -> int | None:
    """Where scanning resumes after a Vue `{{` or Svelte `{` that ends before `position`
    (past its close; None when it never closes). A Svelte `{#…}` opens a block and
    `{/…}` closes the innermost one, as elements do."""
    if not svelte:
        end = -1 if b"}}" in never else source.find(b"}}", position)
        if end < 0:
            never.add(b"}}")
            return position
        return end + 2
    # `{#if …}`, `{:else}`, `{/if}`, `{@html …}`: the sigil is Svelte's, not a regex.
    sigil = source[position : position + 1] in (b"#", b":", b"/", b"@")
    close = _expression_end(source, position + 1 if sigil else position)
    if close is None:
        return None
    if source.startswith(b"#", position):
        open_.push(_BLOCK)
    elif source.startswith(b"/", position):
        open_.close(_BLOCK)
    return close


def _expression_end(source: bytes, position: int) -> int | None:
    """Where the Svelte expression whose `{` ends before `position` ends (past its `}`),
    None when it never does. Braces inside strings, template literals, comments and
    regular expressions do not count, as they do not for the JavaScript parser Svelte
    hands the expression to."""
    start = position
    contexts = [b"{"]  # open braces and template literals, innermost last
    while contexts:
        if contexts[-1] == b"`":
            stop = _TEMPLATE_STOP.search(source, position)
            if stop is None:
                return None
            position = stop.end()
            if stop.group(0) == b"`":
                contexts.pop()
            elif stop.group(0) == b"${":
                contexts.append(b"{")
            continue
        code = _CODE_STOP.search(source, position)
        if code is None:
            return None
        text = code.group(0)
        position = code.end()
        if text == b"{":
            contexts.append(text)
        elif text == b"}":
            contexts.pop()
        elif text == b"`":
            contexts.append(text)
        elif text in _STRING:
            string = _STRING[text].match(source, position)
            assert string is not None  # the pattern matches the empty string
            position = string.end()
        elif text == b"//":
            newline = _LINE_END.search(source, position)
            position = len(source) if newline is None else newline.start()
        elif text == b"/*":
            end = source.find(b"*/", position)
            position = len(source) if end < 0 else end + 2
        elif _starts_regex(source, start, code.start()):
            regex = _REGEX.match(source, position)
            assert regex is not None  # the pattern matches the empty string
            position = regex.end()
    return position


def _starts_regex(source: bytes, start: int, slash: int) -> bool:
    """Whether the `/` at `slash`, in an expression from `start`, opens a regular
    expression: what precedes it (spaces aside) is nothing or an operator, as opposed
    to a value it would divide."""
    before = slash
    while before > start and source[before - 1 : before].isspace():
        before -= 1
    return before == start or source[before - 1] in _BEFORE_REGEX


def _open_tag(source: bytes, position: int, braces: bool) -> tuple[dict[str, str], int, bool]:
    """The attributes of a tag whose name ends at `position`, where its body starts,
    and whether it closed itself (`/>`). With `braces`, a Svelte `{…}` (an attribute,
    or inside a value) is stepped over whole."""
    attributes: dict[str, str] = {}
    length = len(source)
    while True:
        space = _SPACE.match(source, position)
        assert space is not None  # `\s*` matches everywhere
        position = space.end()
        end = _TAG_END.match(source, position)
        if end is not None:
            return attributes, end.end(), bool(end.group(1))
        if position >= length:
            return attributes, length, False
        if braces and source.startswith(b"{", position):  # `{...rest}`, `{name}`
            position = _expression_end(source, position + 1) or length
            continue
        name = _NAME.match(source, position)
        if name is None:
            # A stray character (`<script / lang="ts">`): step over it, as HTML does.
            position += 1
            continue
        value = b""
        position = name.end()
        equals = _EQUALS.match(source, position)
        if equals is not None and equals.end() > position:
            value, position = _value(source, equals.end(), braces)
        key = name.group(0).decode("utf-8", "replace").lower()
        attributes.setdefault(key, value.decode("utf-8", "replace"))


def _value(source: bytes, position: int, braces: bool) -> tuple[bytes, int]:
    """An attribute value starting at `position` (quoted or not), and where it ends."""
    length = len(source)
    quote = source[position : position + 1]
    quoted = quote in (b'"', b"'")
    index = position + 1 if quoted else position
    while index < length:
        character = source[index : index + 1]
        if (character == quote) if quoted else (character.isspace() or character in b">\"'"):
            break
        if braces and character == b"{":
            index = _expression_end(source, index + 1) or length
        else:
            index += 1
    if quoted:
        return source[position + 1 : index], min(index + 1, length)
    return source[position:index], index


def _grammar(attributes: dict[str, str]) -> str | None:
    if "src" in attributes:
        return None
    return GRAMMARS.get(attributes.get("lang", "").strip().lower())


def splice(source: bytes, bodies: Sequence[tuple[ScriptBlock, bytes]]) -> bytes:
    """`source` with each block's body replaced (blocks in file order, as `scan` gives)."""
    out: list[bytes] = []
    position = 0
    for block, body in bodies:
        out.append(source[position : block.start])
        out.append(body)
        position = block.end
    out.append(source[position:])
    return b"".join(out)
