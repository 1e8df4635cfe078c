"""A fast, conservative "are all these parsed objects valid AG-UI events?" check.

`all_valid(datas)` answers exactly what `replay.wire.events.validate_batch(datas)` answers.
It groups the objects by event type and key set, and for each group runs a checker
compiled from `replay.wire.event_schema_table`, ag_ui.core's own core schema reduced by
`replay.wire.event_schema_gen` (never a hand-written rule), so starting it imports
neither ag_ui nor pydantic: a checker can only *prove* validity, over whole columns of
values at once with C-level builtins. Whatever no checker proves valid (an unknown shape,
a node the table cannot decide, a value outside the proven subset) is handed to pydantic,
whose answer stands.
Each event validates independently of the others, so the batch is valid exactly when
the proven groups are (they are) and pydantic accepts the rest.

Kept whole (about 350 lines): one columnar reading of the `Event` union's table, each part
proven against the pydantic twin by the same property test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from itertools import chain
from operator import is_not, itemgetter
from typing import Any, Final, TypeVar

from replay.wire.event_json import has_utf8_form
from replay.wire.event_schema_table import TABLE

_K = TypeVar("_K")
_V = TypeVar("_V")

Check = Callable[[Sequence[Any]], bool]
"""Whether every value of a column is certainly valid (False: not proven, not invalid)."""
GroupCheck = Callable[[list[dict[str, Any]]], bool]
"""Whether every dict of a group (all with the same keys) is certainly valid."""
Models = dict[str, dict[str, Any]]
"""A table's models by name (`TABLE["models"]`): fields by alias, `[node, required]`."""

_NONE_TYPE: Final = type(None)
_STR_ONLY: Final = frozenset({str})
_DICT_ONLY: Final = frozenset({dict})
_LIST_ONLY: Final = frozenset({list})
_BOOL_ONLY: Final = frozenset({bool})
_INT_ONLY: Final = frozenset({int})
_not_none: Final = partial(is_not, None)
_EXTRA_ACCEPTED: Final = ("allow", "ignore")

_CACHE_LIMIT: Final = 4096
"""Distinct (type, keys) shapes remembered; hostile input cannot grow the cache past it."""


def all_valid(datas: list[dict[str, Any]]) -> bool:
    """Exactly `replay.wire.events.validate_batch(datas)`: whether every object is a valid Event."""
    union = _top_union()
    if union is None or type(datas) is not list or not _plain_dicts(datas):
        return _fallback(datas)
    rest: list[dict[str, Any]] = []
    for keys, group in _by_keys(datas).items():
        if not union.check_group(keys, group):
            rest.extend(group)
    return _fallback(rest) if rest else True


def _fallback(datas: list[dict[str, Any]]) -> bool:
    """pydantic's answer: what the fast path could not prove valid."""
    from replay.wire.events import validate_batch

    return validate_batch(datas)


def _plain_dicts(values: Sequence[Any]) -> bool:
    """Whether every value is exactly a dict whose keys are all exactly str.

    Grouping and field lookup rely on key equality; for exact str keys that is equality
    of content, which is what pydantic matches aliases by.
    """
    return (
        set(map(type, values)) <= _DICT_ONLY
        and set(map(type, chain.from_iterable(values))) <= _STR_ONLY
    )


def _by_keys(values: Sequence[dict[str, Any]]) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """The dicts grouped by their keys in order (first-seen order)."""
    groups: defaultdict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for keys, value in zip(map(tuple, values), values, strict=True):
        groups[keys].append(value)
    return groups


class _Cache(dict[_K, _V]):
    """A dict that forgets everything past `_CACHE_LIMIT` entries (hostile shapes)."""

    def remember(self, key: _K, value: _V) -> None:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[key] = value


class _TaggedUnion:
    """A compiled tagged union: a columns checker per (tag, keys), built lazily."""

    __slots__ = ("_cache", "_choices", "_discriminator", "_models", "_tag_of")

    def __init__(self, discriminator: str, choices: dict[str, Any], models: Models) -> None:
        self._choices = choices
        self._models = models
        self._tag_of = itemgetter(discriminator)
        self._cache: _Cache[tuple[str, tuple[str, ...]], GroupCheck | None] = _Cache()
        self._discriminator = discriminator

    def check_group(self, keys: tuple[str, ...], group: list[dict[str, Any]]) -> bool:
        """Whether every dict of the group (all with exactly `keys`) is certainly valid."""
        tags = list(map(self._tag_of, group)) if self._discriminator in keys else None
        if not tags or not set(map(type, tags)) <= _STR_ONLY:
            return False
        distinct = set(tags)
        if len(distinct) == 1:
            return self._check_tag(next(iter(distinct)), keys, group)
        by_tag: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
        for tag, value in zip(tags, group, strict=True):
            by_tag[tag].append(value)
        return all(self._check_tag(tag, keys, part) for tag, part in by_tag.items())

    def _check_tag(self, tag: str, keys: tuple[str, ...], group: list[dict[str, Any]]) -> bool:
        """Check dicts whose discriminator values are exact strs equal to `tag`."""
        key = (tag, keys)
        try:
            check = self._cache[key]
        except KeyError:
            choice = self._choices.get(tag)
            check = None
            if choice is not None and choice[0] == "model":
                body = self._models[choice[1]]
                check = _compile_model(body, keys, self._discriminator, tag, self._models)
            self._cache.remember(key, check)
        return check is not None and check(group)

    def column(self, values: Sequence[Any]) -> bool:
        """A `Check`: each value is certainly one of the union's models."""
        if not _plain_dicts(values):
            return False
        return all(self.check_group(keys, group) for keys, group in _by_keys(values).items())


class _Model:
    """A compiled model validated from dicts: a columns checker per keys, built lazily."""

    __slots__ = ("_body", "_cache", "_models")

    def __init__(self, body: dict[str, Any], models: Models) -> None:
        self._body = body
        self._models = models
        self._cache: _Cache[tuple[str, ...], GroupCheck | None] = _Cache()

    def column(self, values: Sequence[Any]) -> bool:
        """A `Check`: each value is certainly a valid input of the model."""
        if not _plain_dicts(values):
            return False
        for keys, group in _by_keys(values).items():
            try:
                check = self._cache[keys]
            except KeyError:
                check = _compile_model(self._body, keys, None, None, self._models)
                self._cache.remember(keys, check)
            if check is None or not check(group):
                return False
        return True


_TOP: list[_TaggedUnion | None] = []


def _top_union() -> _TaggedUnion | None:
    """The compiled event union of the table (None: no fast path at all)."""
    if not _TOP:
        event = TABLE["event"]
        union = None
        if event is not None and event[0] == "tagged":
            union = _TaggedUnion(event[1], event[2], TABLE["models"])
        _TOP.append(union)
    return _TOP[0]


def _compile_model(
    body: dict[str, Any],
    keys: tuple[str, ...],
    discriminator: str | None,
    tag: str | None,
    models: Models,
) -> GroupCheck | None:
    """A checker of dicts with exactly `keys` against a model's table `body`, or None
    (not provable: an extra key the model may refuse, a missing required field, a field
    the table cannot decide). The generator has already refused models whose config,
    validators or aliases could change which dicts validate.

    With a `discriminator`, the caller has checked its values: exact strs equal to `tag`.
    """
    fields: dict[str, Any] = body["fields"]
    if len(set(keys)) != len(keys):
        return None
    extra_accepted = body["extra"] in _EXTRA_ACCEPTED
    checks: list[tuple[Callable[[dict[str, Any]], Any], Check]] = []
    for key in keys:
        entry = fields.get(key)
        if entry is None:
            # An extra key, as `replay.wire.event_proof` reads it: any value, when the
            # model takes extras, unless it is a field's Python name (which of the two
            # wins is pydantic's to say) or has no UTF-8 form (pydantic copies the key).
            if not extra_accepted or key in body["names"] or not has_utf8_form(key):
                return None
            continue
        check = _compile(entry[0], models)
        if check is None:
            return None
        if key == discriminator:
            # Exact str values equal to the str `tag` are `tag`: one check decides all.
            if not check((tag,)):
                return None
        elif check is not _any:
            checks.append((itemgetter(key), check))
    for alias, (_node, required) in fields.items():
        if required and alias not in keys:
            return None  # a required field is missing
    return partial(_check_columns, tuple(checks))


def _check_columns(
    checks: tuple[tuple[Callable[[dict[str, Any]], Any], Check], ...], group: list[dict[str, Any]]
) -> bool:
    return all(check(list(map(getter, group))) for getter, check in checks)


def _any(values: Sequence[Any]) -> bool:
    return True


def _compile(node: Any, models: Models) -> Check | None:
    """A column check proving what the table `node` proves, or None (cannot decide).

    The generator has kept only what it understood (exact bounds, str literals, plain
    models), so each kind maps to one columnar check.
    """
    if node is None:
        return None
    kind = node[0]
    if kind == "any":
        return _any
    if kind == "str":
        return _compile_str(node[1], node[2])
    if kind == "int":
        return partial(_check_int, *node[1:5])
    if kind == "bool":
        return _check_bool
    if kind == "literal":
        return partial(_check_literal, frozenset(node[1]))
    if kind == "nullable":
        inner = _compile(node[1], models)
        return None if inner is None else partial(_check_nullable, inner)
    if kind == "list":
        items = _compile(node[1], models)
        return None if items is None else partial(_check_list, items, node[2], node[3])
    if kind == "dict":
        keys = _compile(node[1], models)
        values = _compile(node[2], models)
        if keys is None or values is None:
            return None
        return partial(_check_dict, keys, values, node[3], node[4])
    if kind == "union":
        compiled = (_compile(choice, models) for choice in node[1])
        choices = tuple(choice for choice in compiled if choice is not None)
        return partial(_check_union, choices) if choices else None
    if kind == "tagged":
        return _TaggedUnion(node[1], node[2], models).column
    if kind == "model":
        return _Model(models[node[1]], models).column
    return None


def _bad_length(values: Sequence[Any], low: int | None, high: int | None) -> bool:
    if low is None and high is None:
        return False
    lengths = list(map(len, values))
    return (low is not None and min(lengths) < low) or (high is not None and max(lengths) > high)


def _compile_str(low: int | None, high: int | None) -> Check:
    if low is None and high is None:
        return _check_str
    return partial(_check_str_length, low, high)


def _check_str(values: Sequence[Any]) -> bool:
    return set(map(type, values)) <= _STR_ONLY


def _check_str_length(low: int | None, high: int | None, values: Sequence[Any]) -> bool:
    return set(map(type, values)) <= _STR_ONLY and not (values and _bad_length(values, low, high))


def _check_int(
    ge: int | None, le: int | None, gt: int | None, lt: int | None, values: Sequence[Any]
) -> bool:
    if not values:
        return True
    if set(map(type, values)) != _INT_ONLY:
        return False
    low, high = min(values), max(values)
    return (
        (ge is None or low >= ge)
        and (gt is None or low > gt)
        and (le is None or high <= le)
        and (lt is None or high < lt)
    )


def _check_bool(values: Sequence[Any]) -> bool:
    return set(map(type, values)) <= _BOOL_ONLY


def _check_literal(expected: frozenset[str], values: Sequence[Any]) -> bool:
    return set(map(type, values)) <= _STR_ONLY and expected.issuperset(values)


def _check_nullable(inner: Check, values: Sequence[Any]) -> bool:
    if _NONE_TYPE in set(map(type, values)):
        values = list(filter(_not_none, values))
    return inner(values)


def _check_list(items: Check, low: int | None, high: int | None, values: Sequence[Any]) -> bool:
    if not set(map(type, values)) <= _LIST_ONLY:
        return False
    if values and _bad_length(values, low, high):
        return False
    return items is _any or items(list(chain.from_iterable(values)))


def _check_dict(
    keys: Check, values: Check, low: int | None, high: int | None, column: Sequence[Any]
) -> bool:
    if not set(map(type, column)) <= _DICT_ONLY:
        return False
    if column and _bad_length(column, low, high):
        return False
    if keys is not _any and not keys(list(chain.from_iterable(column))):
        return False
    return values is _any or values(list(chain.from_iterable(map(dict.values, column))))


def _check_union(choices: tuple[Check, ...], values: Sequence[Any]) -> bool:
    """Each value proven by some choice: what pydantic's unions (smart or left-to-right) need."""
    if any(choice(values) for choice in choices):
        return True
    return all(any(choice((value,)) for choice in choices) for value in values)
