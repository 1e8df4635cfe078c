"""What a legacy `addToolApprovalResponse(...)` call says: its id and decision, and
whether the id may be read again; shared by AG001 (one call) and AG005 (a loop of them).
"""

from __future__ import annotations

import tree_sitter

from codemods.typescript.document import Document, unwrapped

OLD = "addToolApprovalResponse"
# An id expression the callback may evaluate once per item: no calls, no side effects.
PLAIN = frozenset(
    {
        "identifier",
        "member_expression",
        "subscript_expression",
        "non_null_expression",
        "string",
        "number",
        "this",
        "property_identifier",
        "string_fragment",
        "optional_chain",
        "private_property_identifier",
        "shorthand_property_identifier",
    }
)


def quote_of(source: bytes) -> str:
    """The file's usual string quote, so the rewrite looks like the code around it."""
    return '"' if source.count(b'"') > source.count(b"'") else "'"


def is_plain(node: tree_sitter.Node) -> bool:
    """Whether evaluating `node` again per item is harmless (names and member reads only)."""
    if node.type not in PLAIN:
        return False
    return all(is_plain(child) for child in node.named_children)


def arguments_of(
    document: Document, call: tree_sitter.Node
) -> tuple[tree_sitter.Node | str, tree_sitter.Node | str] | str:
    """`(id, approved)` as nodes or texts, or the reason the argument cannot be read."""
    arguments = call.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    if len(values) != 1:
        return "it is not called with one { id, approved } object"
    argument = unwrapped(values[0])
    if argument.type == "identifier":
        name = document.text(argument)
        return f"{name}.id", f"{name}.approved"
    if argument.type != "object":
        return "its argument is not an { id, approved } object"
    found: dict[str, tree_sitter.Node] = {}
    for entry in argument.named_children:
        if entry.type == "shorthand_property_identifier":
            found[document.text(entry)] = entry
        elif entry.type == "pair":
            key, value = entry.child_by_field_name("key"), entry.child_by_field_name("value")
            if key is None or value is None:
                return "its argument is not an { id, approved } object"
            found[document.text(key).strip("'\"")] = value
        elif entry.type != "comment":
            return "its argument is not a plain { id, approved } object"
    if set(found) != {"id", "approved"}:
        return "its argument is not exactly { id, approved }"
    return found["id"], found["approved"]


# Expressions that do something when evaluated: calls, awaits, assignments.
EFFECTS = frozenset(
    {
        "call_expression",
        "new_expression",
        "await_expression",
        "assignment_expression",
        "augmented_assignment_expression",
        "update_expression",
        "yield_expression",
    }
)


def has_effects(node: tree_sitter.Node) -> bool:
    """Whether evaluating `node` may do something, so skipping it (an optional call
    short-circuits its arguments when no item matches) would change behaviour. The walk
    keeps its own stack: a long `a && b && …` chain nests deeper than Python recurses."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in EFFECTS:
            return True
        stack.extend(current.named_children)
    return False
