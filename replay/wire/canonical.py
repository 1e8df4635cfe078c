"""Canonical JSON and schema digests exactly as `@tanstack/ai` 0.58.0 computes them.

Every hash agui writes or checks goes through `canonical_json` and `digest`, never
through pydantic or `json.dumps`: TanStack prints numbers the ECMAScript way and sorts
keys by UTF-16 code units, and a single differing byte changes the SHA-256. The same
number and string rules give the wire's own text (`wire_json`, and `compact_json`, its
fast twin for events translate, serve and the bridge write).
"""

from __future__ import annotations

import json
import math
from typing import Any

_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}

UNDEFINED_TEXT = "undefined"
"""What `hashSchemaInput(undefined)` hashes: the nine bytes of the word, not JSON."""


class CanonicalJsonError(TypeError):
    """The value has no canonical JSON form (non-finite number, non-JSON type)."""


def js_number(value: float) -> str:
    """Format a double as ECMAScript `Number.prototype.toString()` does."""
    if math.isnan(value) or math.isinf(value):
        raise CanonicalJsonError("Interrupt values must be JSON-compatible (non-finite number).")
    if value == 0:
        return "0"
    if value < 0:
        return "-" + js_number(-value)
    mantissa, _, exponent = repr(value).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    if frac_part == "0":
        frac_part = ""
    digits = (int_part + frac_part).lstrip("0")
    # The value is 0.<digits> * 10**point.
    point = len(int_part) + (int(exponent) if exponent else 0)
    if int_part == "0":
        point -= len(frac_part) - len(frac_part.lstrip("0")) + 1
    digits = digits.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        return digits + "0" * (point - count)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    power = point - 1
    fraction = "." + digits[1:] if count > 1 else ""
    sign = "+" if power >= 0 else "-"
    return f"{digits[0]}{fraction}e{sign}{abs(power)}"


def js_string(text: str) -> str:
    """Quote a string as `JSON.stringify` does (raw non-ASCII, escaped lone surrogates)."""
    out = ['"']
    for char in text:
        code = ord(char)
        escaped = _SHORT_ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


_MAX_INDEX = 2**32 - 2
"""The largest array index: a JavaScript object lists such keys first."""


def _array_index(key: str) -> int | None:
    """The key's value when it is an array index (`"0"`, `"9"`, `"10"`; not `"01"`)."""
    if not key.isascii() or not key.isdigit() or (len(key) > 1 and key[0] == "0"):
        return None
    number = int(key)
    return number if number <= _MAX_INDEX else None


def js_key_order(keys: list[str]) -> list[str]:
    """Keys in the order a JavaScript object holds them (`OrdinaryOwnPropertyKeys`):
    array indexes ascending, then the other keys as inserted. `JSON.stringify` writes
    them so, whatever order the object was built in."""
    indexes = [(number, key) for key in keys if (number := _array_index(key)) is not None]
    if not indexes:
        return keys
    return [key for _, key in sorted(indexes)] + [k for k in keys if _array_index(k) is None]


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _encode(value: Any, *, sort_keys: bool) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, int | float):
        try:
            return js_number(float(value))
        except OverflowError:
            raise CanonicalJsonError("Interrupt values must be JSON-compatible.") from None
    if isinstance(value, list | tuple):
        return "[" + ",".join(_encode(item, sort_keys=sort_keys) for item in value) + "]"
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise CanonicalJsonError("Interrupt values must use plain JSON objects.")
        keys = sorted(value, key=_utf16_key) if sort_keys else js_key_order(list(value))
        members = (js_string(k) + ":" + _encode(value[k], sort_keys=sort_keys) for k in keys)
        return "{" + ",".join(members) + "}"
    raise CanonicalJsonError(
        f"Interrupt values must be JSON-compatible (got {type(value).__name__})."
    )


def unencodable_at(value: Any) -> str | None:
    """Where the first value `wire_json` cannot write sits in `value` (`resume[0].payload.n`,
    `""` for `value` itself), or None when it has none.

    Python's JSON reader takes `NaN`, `Infinity` and `1e400` (which becomes infinite);
    JSON cannot carry them, so a body holding one cannot be sent, and the user needs to
    know which value to fix. Walked without recursion, in document order.
    """
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if item is None or isinstance(item, str | bool):
            continue
        if isinstance(item, int | float):
            try:
                finite = math.isfinite(float(item))
            except OverflowError:
                finite = False
            if not finite:
                return path
        elif isinstance(item, list | tuple):
            stack.extend((item[i], f"{path}[{i}]") for i in reversed(range(len(item))))
        elif isinstance(item, dict) and all(isinstance(key, str) for key in item):
            keys = list(item)
            stack.extend((item[key], f"{path}.{key}" if path else key) for key in reversed(keys))
        else:
            return path
    return None


def finite_or_null(value: Any) -> Any:
    """`value` with each NaN or infinite float replaced by None, as `JSON.stringify`
    writes them (`null`): what a JavaScript server relaying the value would send.
    Integers are left to encoders that write their digits."""
    return _nulled(value, huge_ints=False)


def as_javascript_reads(value: Any) -> Any:
    """`value` as JavaScript holds it after `JSON.parse`, for `wire_json` to write as
    `JSON.stringify` would: `finite_or_null`, and each integer past a double's range
    (`1` and 400 zeros, which `JSON.parse` reads as `Infinity`) becomes None too."""
    return _nulled(value, huge_ints=True)


def _nulled(value: Any, *, huge_ints: bool) -> Any:
    """The walk of `finite_or_null` and `as_javascript_reads`. Recursive: values here
    come through `bounded_json`, nested at most 256 deep."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if huge_ints and type(value) is int:
        try:
            float(value)
        except OverflowError:
            return None
        return value
    if isinstance(value, list):
        return [_nulled(item, huge_ints=huge_ints) for item in value]
    if isinstance(value, dict):
        return {key: _nulled(item, huge_ints=huge_ints) for key, item in value.items()}
    return value


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value: sorted keys, no whitespace, JS numbers."""
    return _encode(value, sort_keys=True)


def wire_json(value: Any) -> str:
    """`JSON.stringify` of a JSON value: JavaScript key order, no spaces, JS numbers.

    What TanStack writes on the wire; unlike `canonical_json` it keeps key order, so a
    re-encoded event or request body reads exactly as the JavaScript side would write it.
    """
    return _encode(value, sort_keys=False)


def digest_text(text: str) -> str:
    """`sha256:` + the hex SHA-256 of the text's UTF-8 bytes."""
    # Imported here: hashlib loads OpenSSL (about 5 ms), and a recording without
    # interrupts, or `agui --help`'s modules, never hash anything.
    from hashlib import sha256

    return "sha256:" + sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest(value: Any) -> str:
    """The digest of a JSON value's canonical text (TanStack's schema and payload hashes)."""
    return digest_text(canonical_json(value))


def hash_schema_input(schema: Any | None) -> str:
    """`hashSchemaInput`: a missing schema hashes the text `undefined`, not JSON null."""
    if schema is None:
        return digest_text(UNDEFINED_TEXT)
    return digest(schema)


# ICU's root collation (what node's `localeCompare` uses under en-US) orders
# punctuation before symbols, symbols before digits, digits before letters, and
# compares letters case-blind first, lowercase before uppercase on ties.
_PUNCTUATION_ORDER = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _collation_weight(char: str) -> tuple[int, int]:
    if char.isspace():
        return (0, ord(char))
    position = _PUNCTUATION_ORDER.find(char)
    if position >= 0:
        return (1, position)
    if char.isdigit():
        return (3, int(char) if char.isascii() else ord(char))
    if char.isalpha():
        return (4, ord(char.lower()))
    return (2, ord(char))


def locale_sort_key(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """Approximate `String.prototype.localeCompare` (en-US ICU) for interrupt ids.

    TanStack's client posts `resume` entries in this order; exact ICU collation only
    matters for byte-identical bodies, never for acceptance.
    """
    primary = tuple(_collation_weight(char) for char in text)
    tertiary = tuple(1 if char.isupper() else 0 for char in text)
    return (primary, tertiary)


def canonical_resolutions(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Resume entries as the client posts them: sorted by id, every object key-sorted."""
    ordered = sorted(entries, key=lambda entry: locale_sort_key(str(entry.get("interruptId", ""))))
    return [_sorted_deep(entry) for entry in ordered]


def _sorted_deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted_deep(value[key]) for key in sorted(value, key=_utf16_key)}
    if isinstance(value, list):
        return [_sorted_deep(item) for item in value]
    return value


def resolution_fingerprint(entries: list[dict[str, Any]]) -> str:
    """The digest TanStack computes over a canonicalised resume batch."""
    return digest(canonical_resolutions(entries))


def compact_json(value: Any) -> str:
    """JSON as TanStack writes it on the wire: `JSON.stringify`, key order kept.

    Numbers in ECMAScript form (`1e-7`, `1`, `0`, not Python's `1e-07`, `1.0`, `-0.0`):
    a value read from a legacy stream is written back as the native server would
    write it. A lone surrogate (a `\\ud800` escape in the recording) has no UTF-8 form
    and stays escaped, as `JSON.stringify` escapes it. A number no double holds is
    `null`, as `JSON.stringify` writes it.

    Fast path: a value without floats or integers beyond 2**53 (most events) is written
    by the C encoder, whose output is then the same text; `js_compact_json` is the plain
    twin, and a randomised test holds them equal.
    """
    if _exact_in_c(value):
        # (no cycle check: a JSON value read or built here is a tree)
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: JSON.stringify escapes it
            return js_compact_json(value)
        return text
    return js_compact_json(value)


def js_compact_json(value: Any) -> str:
    """`compact_json` written by the JavaScript-faithful encoder alone."""
    return wire_json(as_javascript_reads(value))


_SAFE_INTEGER = 2**53


def _exact_in_c(value: Any) -> bool:
    """Whether Python's JSON encoder writes `value` as `JSON.stringify` does: it holds no
    float (Python writes `1.0`, `1e-07`), no integer a double would round and no object
    whose keys a JavaScript object would reorder (`{"b":0,"1":0}`). (Exact type tests and
    strings passed over where they are met: a parsed JSON value holds no subclasses, and
    this runs for every event a translation writes.)"""
    kind = type(value)
    if kind is dict:
        # An array index starts with a digit, and a digit sorts below ":": most objects
        # are cleared by one comparison of their smallest key.
        if value and min(value) < ":":
            keys = list(value)
            if js_key_order(keys) != keys:  # JSON.stringify writes array indexes first
                return False
        items: Any = value.values()
    elif kind is list:
        items = value
    else:
        return kind is str or value is None or kind is bool or _safe_integer(value)
    for item in items:
        kind = type(item)
        if kind is str or item is None or kind is bool:
            continue
        if kind is dict or kind is list:
            if not _exact_in_c(item):
                return False
        elif not _safe_integer(item):
            return False
    return True


def _safe_integer(value: Any) -> bool:
    return type(value) is int and -_SAFE_INTEGER <= value <= _SAFE_INTEGER
