"""A fast, conservative "are all these parsed objects valid AG-UI events?" check.

`all_valid(datas)` answers exactly what `replay.wire.events.validate_batch(datas)` answers.
It groups the objects by event type and key set, and for each group runs a checker
compiled from ag_ui.core's own pydantic core schema (never from a hand-written rule):
a checker can only *prove* validity, over whole columns of values at once with C-level
builtins. Whatever no checker proves valid (an unknown shape, an unsupported schema
node, a value outside the proven subset) is handed to pydantic, whose answer stands.
Each event validates independently of the others, so the batch is valid exactly when
the proven groups are (they are) and pydantic accepts the rest.

Kept whole (about 500 lines): one mirror of the `Event` union's schema, each part proven
against the pydantic twin by the same property test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from itertools import chain
from operator import is_not, itemgetter
from typing import Any, Final, TypeVar

from replay.wire.event_schema_gen import NEUTRAL_MODEL_CONFIG, tag_value

_K = TypeVar("_K")
_V = TypeVar("_V")

Check = Callable[[Sequence[Any]], bool]
"""Whether every value of a column is certainly valid (False: not proven, not invalid)."""
GroupCheck = Callable[[list[dict[str, Any]]], bool]
"""Whether every dict of a group (all with the same keys) is certainly valid."""

_NONE_TYPE: Final = type(None)
_STR_ONLY: Final = frozenset({str})
_DICT_ONLY: Final = frozenset({dict})
_LIST_ONLY: Final = frozenset({list})
_BOOL_ONLY: Final = frozenset({bool})
_INT_ONLY: Final = frozenset({int})
_not_none: Final = partial(is_not, None)

_META_KEYS: Final = frozenset({"type", "metadata", "ref", "serialization"})
"""Keys any schema node may carry without changing what validates."""
_STR_KEYS: Final = _META_KEYS | {"min_length", "max_length"}
_INT_KEYS: Final = _META_KEYS | {"ge", "le", "gt", "lt"}
_LIST_KEYS: Final = _META_KEYS | {"items_schema", "min_length", "max_length", "fail_fast"}
_DICT_KEYS: Final = _META_KEYS | {"keys_schema", "values_schema", "min_length", "max_length"}
_WRAPPER_KEYS: Final = _META_KEYS | {"schema"}
_DEFAULT_KEYS: Final = _WRAPPER_KEYS | {"default"}
_LITERAL_KEYS: Final = _META_KEYS | {"expected"}
_UNION_KEYS: Final = _META_KEYS | {"choices", "mode", "custom_error_type"}
_UNION_KEYS_MORE: Final = _UNION_KEYS | {"custom_error_message", "custom_error_context"}
_TAGGED_KEYS: Final = _UNION_KEYS_MORE | {"discriminator", "from_attributes"}
_MODEL_KEYS: Final = _META_KEYS | {
    "cls",
    "schema",
    "config",
    "custom_init",
    "root_model",
    "post_init",
    "generic_origin",
    "frozen",
    "extra_behavior",
    "revalidate_instances",
    "strict",
}
_FIELDS_KEYS: Final = _META_KEYS | {
    "fields",
    "model_name",
    "computed_fields",
    "extras_schema",
    "extras_keys_schema",
    "extra_behavior",
    "from_attributes",
    "strict",
}
_FIELD_KEYS: Final = _META_KEYS | {
    "schema",
    "validation_alias",
    "serialization_alias",
    "serialization_exclude",
    "serialization_exclude_if",
    "frozen",
}

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
    """A compiled tagged union of models: a columns checker per (tag, keys), built lazily."""

    __slots__ = ("_cache", "_discriminator", "_models", "_tag_of")

    def __init__(self, discriminator: str, models: dict[str, dict[str, Any]]) -> None:
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
            model = self._models.get(tag)
            check = None if model is None else _compile_model(model, keys, self._discriminator, tag)
            self._cache.remember(key, check)
        return check is not None and check(group)

    def column(self, values: Sequence[Any]) -> bool:
        """A `Check`: each value is certainly one of the union's models."""
        if not _plain_dicts(values):
            return False
        return all(self.check_group(keys, group) for keys, group in _by_keys(values).items())


class _Model:
    """A compiled model validated from dicts: a columns checker per keys, built lazily."""

    __slots__ = ("_cache", "_schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._cache: _Cache[tuple[str, ...], GroupCheck | None] = _Cache()

    def column(self, values: Sequence[Any]) -> bool:
        """A `Check`: each value is certainly a valid input of the model."""
        if not _plain_dicts(values):
            return False
        for keys, group in _by_keys(values).items():
            try:
                check = self._cache[keys]
            except KeyError:
                check = _compile_model(self._schema, keys, None, None)
                self._cache.remember(keys, check)
            if check is None or not check(group):
                return False
        return True


_TOP: list[_TaggedUnion | None] = []


def _top_union() -> _TaggedUnion | None:
    """The compiled event union of `EVENTS_ADAPTER` (None: no fast path at all)."""
    if not _TOP:
        from replay.wire.event_models import EVENTS_ADAPTER

        schema = EVENTS_ADAPTER.core_schema
        union = None
        if (
            schema.get("type") == "list"
            and set(schema) <= {"type", "items_schema", "metadata", "ref"}
            and isinstance(schema.get("items_schema"), dict)
        ):
            union = _tagged_union(schema["items_schema"])
        _TOP.append(union)
    return _TOP[0]


def _tagged_union(schema: dict[str, Any]) -> _TaggedUnion | None:
    if (
        schema.get("type") != "tagged-union"
        or not set(schema) <= _TAGGED_KEYS | {"strict"}
        or schema.get("strict", False) is not False
        or type(schema.get("discriminator")) is not str
    ):
        return None
    models: dict[str, dict[str, Any]] = {}
    for key, choice in schema["choices"].items():
        tag = tag_value(key)
        if tag is None:
            continue  # values for it are never proven: pydantic decides them
        if tag in models:
            return None
        models[tag] = choice
    return _TaggedUnion(schema["discriminator"], models)


def _model_fields(model: dict[str, Any]) -> dict[str, Any] | None:
    """The `model-fields` schema of a plain model validated from a dict, if supported."""
    if (
        model.get("type") != "model"
        or not set(model) <= _MODEL_KEYS
        or model.get("custom_init")
        or model.get("root_model")
        or model.get("post_init")
        or model.get("strict")
    ):
        return None
    config = model.get("config") or {}
    if (
        not set(config) <= NEUTRAL_MODEL_CONFIG
        or config.get("validate_by_alias") is False
        or config.get("from_attributes")
    ):
        return None
    fields = model.get("schema")
    if (
        not isinstance(fields, dict)
        or fields.get("type") != "model-fields"
        or not set(fields) <= _FIELDS_KEYS
        or fields.get("strict")
        or fields.get("computed_fields")
    ):
        return None
    return fields


def _compile_model(
    model: dict[str, Any], keys: tuple[str, ...], discriminator: str | None, tag: str | None
) -> GroupCheck | None:
    """A checker of dicts with exactly `keys` against `model`, or None (unsupported).

    With a `discriminator`, the caller has checked its values: exact strs equal to `tag`.
    """
    fields = _model_fields(model)
    if fields is None:
        return None
    by_alias: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, field in fields["fields"].items():
        alias = field.get("validation_alias", name)
        if not set(field) <= _FIELD_KEYS or type(alias) is not str or alias in by_alias:
            return None
        by_alias[alias] = (name, field["schema"])
    if len(set(keys)) != len(keys):
        return None
    names = set(fields["fields"])
    checks: list[tuple[Callable[[dict[str, Any]], Any], Check]] = []
    for key in keys:
        entry = by_alias.get(key)
        if entry is None or (key in names and key != entry[0]):
            return None  # not an alias, or another field's python name as well
        check = _compile(_strip_default(entry[1]))
        if check is None:
            return None
        if key == discriminator:
            # Exact str values equal to the str `tag` are `tag`: one check decides all.
            if not check((tag,)):
                return None
        elif check is not _any:
            checks.append((itemgetter(key), check))
    for alias, (_name, schema) in by_alias.items():
        if alias not in keys and _strip_default(schema) is schema:
            return None  # a required field is missing
    return partial(_check_columns, tuple(checks))


def _check_columns(
    checks: tuple[tuple[Callable[[dict[str, Any]], Any], Check], ...], group: list[dict[str, Any]]
) -> bool:
    return all(check(list(map(getter, group))) for getter, check in checks)


def _strip_default(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema applied to a present value of a field; itself when the field is required.

    A `default` node with anything but a plain default value (a factory, validating the
    default) is returned as is, so the field counts as required and the node unsupported.
    """
    if schema.get("type") == "default" and set(schema) <= _DEFAULT_KEYS and "default" in schema:
        inner: dict[str, Any] = schema["schema"]
        return inner
    return schema


def _any(values: Sequence[Any]) -> bool:
    return True


def _compile(schema: dict[str, Any]) -> Check | None:
    """A column check proving a subset of what `schema` accepts, or None (unsupported)."""
    kind = schema.get("type")
    if schema.get("strict") is False:  # lax is the default: an explicit False changes nothing
        schema = {key: value for key, value in schema.items() if key != "strict"}
    if kind == "any" and set(schema) <= _META_KEYS:
        return _any
    if kind == "str" and set(schema) <= _STR_KEYS:
        return _compile_str(schema.get("min_length"), schema.get("max_length"))
    if kind == "int" and set(schema) <= _INT_KEYS:
        ge, le, gt, lt = (schema.get(name) for name in ("ge", "le", "gt", "lt"))
        if not _int_or_none(ge, le, gt, lt):
            return None
        return partial(_check_int, ge, le, gt, lt)
    if kind == "bool" and set(schema) <= _META_KEYS:
        return _check_bool
    if kind == "literal" and set(schema) <= _LITERAL_KEYS:
        tags = [tag_value(value) for value in schema["expected"]]
        expected = frozenset(tag for tag in tags if tag is not None)
        if len(expected) != len(tags):  # also refuses a literal of None, ints or bools
            return None
        return partial(_check_literal, expected)
    if kind == "nullable" and set(schema) <= _WRAPPER_KEYS:
        inner = _compile(schema["schema"])
        return None if inner is None else partial(_check_nullable, inner)
    if kind == "list" and set(schema) <= _LIST_KEYS:
        items = _compile(schema.get("items_schema", {"type": "any"}))
        low, high = schema.get("min_length"), schema.get("max_length")
        if items is None or not _int_or_none(low, high):
            return None
        return partial(_check_list, items, low, high)
    if kind == "dict" and set(schema) <= _DICT_KEYS:
        keys = _compile(schema.get("keys_schema", {"type": "any"}))
        values = _compile(schema.get("values_schema", {"type": "any"}))
        low, high = schema.get("min_length"), schema.get("max_length")
        if keys is None or values is None or not _int_or_none(low, high):
            return None
        return partial(_check_dict, keys, values, low, high)
    if kind == "union" and set(schema) <= _UNION_KEYS_MORE:
        choices: list[Check] = []
        for choice in schema["choices"]:
            compiled = _compile(choice[0] if isinstance(choice, tuple) else choice)
            if compiled is not None:
                choices.append(compiled)
        return partial(_check_union, tuple(choices)) if choices else None
    if kind == "tagged-union":
        union = _tagged_union(schema)
        return None if union is None else union.column
    if kind == "model" and _model_fields(schema) is not None:
        return _Model(schema).column
    return None


def _bad_length(values: Sequence[Any], low: int | None, high: int | None) -> bool:
    if low is None and high is None:
        return False
    lengths = list(map(len, values))
    return (low is not None and min(lengths) < low) or (high is not None and max(lengths) > high)


def _int_or_none(*bounds: Any) -> bool:
    """Whether each constraint is absent or a plain int (anything else: unsupported)."""
    return all(bound is None or type(bound) is int for bound in bounds)


def _compile_str(low: Any, high: Any) -> Check | None:
    if not _int_or_none(low, high):
        return None
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
