"""Generate `replay.wire.event_schema_table` from the installed `ag_ui.core`.

The table is `ag_ui.core`'s own `Event` schema (pydantic's core schema of the union),
reduced to the node kinds `replay.wire.event_proof` can prove valid without pydantic,
and written out as data so that a run does not import `ag_ui` and pydantic to build
it (the large-file path compiles its shape check and delta templates from it too).
Whatever this reducer does not understand becomes "cannot decide" (`null`): the proof
then defers that value to pydantic, so an unsupported or changed schema costs speed,
never a wrong answer. tests/replay/wire/test_event_proof.py regenerates the
table and requires the committed one to be exactly this module's output.

    python -m replay.wire.event_schema_gen   # after upgrading ag-ui-protocol
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Any

TABLE_PATH = Path(__file__).with_name("event_schema_table.py")

_META = frozenset({"type", "metadata", "ref", "serialization"})
"""Keys any schema node may carry without changing what validates."""
_STR = _META | {"min_length", "max_length", "strict"}
_INT = _META | {"ge", "le", "gt", "lt", "strict"}
_LIST = _META | {"items_schema", "min_length", "max_length", "fail_fast", "strict"}
_DICT = _META | {"keys_schema", "values_schema", "min_length", "max_length", "strict"}
_WRAPPER = _META | {"schema"}
_UNION = _META | {"choices", "mode", "custom_error_type", "custom_error_message"}
_UNION = _UNION | {"custom_error_context", "strict"}
_TAGGED = _UNION | {"discriminator", "from_attributes"}
_MODEL = _META | {"cls", "schema", "config", "custom_init", "root_model", "post_init"}
_MODEL = _MODEL | {"generic_origin", "frozen", "extra_behavior", "revalidate_instances"}
_FIELDS = _META | {"fields", "model_name", "computed_fields", "extra_behavior"}
_FIELD = _META | {"schema", "validation_alias", "serialization_alias", "frozen"}
_FIELD = _FIELD | {"serialization_exclude", "serialization_exclude_if"}
NEUTRAL_MODEL_CONFIG = frozenset(
    {
        "title",
        "extra_fields_behavior",
        "validate_by_alias",
        "validate_by_name",
        "serialize_by_alias",
        "loc_by_alias",
        "from_attributes",
        "revalidate_instances",
        "hide_input_in_errors",
        "validation_error_cause",
        "ser_json_timedelta",
        "ser_json_temporal",
        "ser_json_bytes",
        "ser_json_inf_nan",
        "cache_strings",
    }
)
"""Model config keys known not to change which dicts validate; any other key (`strict`,
`str_max_length`, ...) leaves the model undecided (`null`: its events go to pydantic)."""


class _Reducer:
    """Walks a core schema once, collecting each model's table under its class name."""

    def __init__(self) -> None:
        self.models: dict[str, Any] = {}
        self._names: dict[int, str] = {}

    def node(self, schema: dict[str, Any]) -> Any:
        """The table node for `schema`, or None (cannot decide)."""
        kind = schema.get("type")
        keys = set(schema)
        if schema.get("strict", False) is not False:
            return None
        if kind == "any" and keys <= _META:
            return ["any"]
        if kind == "bool" and keys <= _META | {"strict"}:
            return ["bool"]
        if kind == "str" and keys <= _STR:
            return _bounded(["str"], schema, "min_length", "max_length")
        if kind == "int" and keys <= _INT:
            return _bounded(["int"], schema, "ge", "le", "gt", "lt")
        if kind == "literal" and keys <= _META | {"expected"}:
            tags = [tag_value(value) for value in schema["expected"]]
            return None if None in tags else ["literal", tags]
        if kind == "nullable" and keys <= _WRAPPER | {"strict"}:
            inner = self.node(schema["schema"])
            return None if inner is None else ["nullable", inner]
        if kind == "list" and keys <= _LIST:
            items = self.node(schema.get("items_schema", {"type": "any"}))
            return None if items is None else _bounded(["list", items], schema, *_LENGTHS)
        if kind == "dict" and keys <= _DICT:
            key_node = self.node(schema.get("keys_schema", {"type": "any"}))
            value_node = self.node(schema.get("values_schema", {"type": "any"}))
            if key_node is None or value_node is None:
                return None
            return _bounded(["dict", key_node, value_node], schema, *_LENGTHS)
        if kind == "union" and keys <= _UNION:
            found = [self.node(c[0] if isinstance(c, tuple) else c) for c in schema["choices"]]
            choices = [choice for choice in found if choice is not None]
            return ["union", choices] if choices else None
        if kind == "tagged-union" and keys <= _TAGGED:
            return self.tagged(schema)
        if kind == "model":
            return self.model(schema)
        return None

    def tagged(self, schema: dict[str, Any]) -> Any:
        discriminator = schema.get("discriminator")
        if type(discriminator) is not str:  # a callable picks the choice: undecided
            return None
        choices: dict[str, Any] = {}
        for key, choice in schema["choices"].items():
            tag = tag_value(key)
            if tag is None or tag in choices:
                return None
            node = self.node(choice)
            if node is not None:
                choices[tag] = node
        return ["tagged", discriminator, choices]

    def model(self, schema: dict[str, Any]) -> Any:
        known = self._names.get(id(schema))
        if known is not None:
            return ["model", known]
        fields = _plain_fields(schema)
        if fields is None:
            return None
        config = schema.get("config") or {}
        extra = fields.get("extra_behavior", config.get("extra_fields_behavior", "ignore"))
        if extra not in ("allow", "ignore", "forbid"):
            return None
        by_alias: dict[str, Any] = {}
        names: list[str] = []
        for name, field in fields["fields"].items():
            alias = field.get("validation_alias", name)
            if not set(field) <= _FIELD or type(alias) is not str or alias in by_alias:
                return None
            inner, required = _field_schema(field["schema"])
            by_alias[alias] = [self.node(inner), required]
            if config.get("validate_by_name") and name != alias:
                names.append(name)
        if set(names) & set(by_alias):
            return None  # a key that is one field's alias and another's name
        body = {"fields": by_alias, "names": sorted(names), "extra": extra}
        # The union repeats a model's schema wherever it is used: one entry per distinct
        # body, named after its class (`Name_2` for a different body of the same name).
        title = str(fields.get("model_name") or schema["cls"].__name__)
        name, serial = title, 1
        while name in self.models and self.models[name] != body:
            serial += 1
            name = f"{title}_{serial}"
        self._names[id(schema)] = name
        self.models[name] = body
        return ["model", name]


_LENGTHS = ("min_length", "max_length")


def _bounded(node: list[Any], schema: dict[str, Any], *bounds: str) -> Any:
    """`node` with its bounds appended (each an int or None), or None for an odd bound."""
    values = [schema.get(bound) for bound in bounds]
    if not all(value is None or type(value) is int for value in values):
        return None
    return [*node, *values]


def tag_value(value: Any) -> str | None:
    """The str a literal or a tagged-union key matches, when it is str-valued."""
    if type(value) is str:
        return value
    if isinstance(value, Enum) and isinstance(value, str) and type(value.value) is str:
        return value.value
    return None


def _plain_fields(model: dict[str, Any]) -> dict[str, Any] | None:
    """The `model-fields` schema of a model validated from a dict, if plainly so."""
    if not set(model) <= _MODEL or any(
        model.get(flag) for flag in ("custom_init", "root_model", "post_init", "strict")
    ):
        return None
    config = model.get("config") or {}
    if not set(config) <= NEUTRAL_MODEL_CONFIG or config.get("validate_by_alias") is False:
        return None
    fields = model.get("schema")
    if (
        not isinstance(fields, dict)
        or fields.get("type") != "model-fields"
        or not set(fields) <= _FIELDS
        or fields.get("computed_fields")
    ):
        return None
    return fields


def _field_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema a present value meets, and whether the field is required.

    Only a plain default (no factory, not validated) makes a field optional here.
    """
    if schema.get("type") == "default" and set(schema) <= _WRAPPER | {"default"}:
        inner: dict[str, Any] = schema["schema"]
        return inner, False
    return schema, True


def table() -> dict[str, Any]:
    """The table of the installed `ag_ui.core`: event types, the union, its models."""
    from replay.wire.event_models import EVENT_ADAPTER, EventType

    reducer = _Reducer()
    event = reducer.node(dict(EVENT_ADAPTER.core_schema))
    return {
        "types": [member.value for member in EventType],
        "event": event,
        "models": reducer.models,
    }


def render() -> str:
    """The text of `event_schema_table.py`."""
    from importlib.metadata import version

    data = json.dumps(table(), indent=1, sort_keys=False)
    return (
        '"""GENERATED by `python -m replay.wire.event_schema_gen` from ag-ui-protocol '
        f"{version('ag-ui-protocol')}: do not edit.\n\n"
        "`ag_ui.core`'s event types and the `Event` union's schema, reduced to what\n"
        "`replay.wire.event_proof` proves valid without importing pydantic (see the\n"
        'generator for why and how; `null` means "cannot decide": pydantic decides).\n"""\n\n'
        "from __future__ import annotations\n\n"
        "import json\n"
        "from typing import Any\n\n"
        f'TABLE: dict[str, Any] = json.loads(\n    r"""\n{data}\n"""\n)\n'
    )


def main(argv: list[str] | None = None) -> int:
    """Write the table (atomically: a half-written table would break every import of
    it), or with `--check` only say whether the committed one is up to date."""
    import argparse

    from replay.wire.output_file import write_output  # through a symlink, mode kept

    parser = argparse.ArgumentParser(
        prog="python -m replay.wire.event_schema_gen",
        description="Regenerate replay/wire/event_schema_table.py from the installed "
        "ag_ui.core (run it after upgrading ag-ui-protocol).",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when the committed table differs from what it would be",
    )
    arguments = parser.parse_args(argv)
    table = render()
    current = TABLE_PATH.read_text("utf-8") if TABLE_PATH.exists() else None
    if arguments.check:
        if current != table:
            print(f"{TABLE_PATH}: out of date; regenerate it", file=sys.stderr)
            return 1
        return 0
    if current == table:
        return 0
    write_output(TABLE_PATH, table.encode("utf-8"))
    print(f"{TABLE_PATH}: regenerated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
