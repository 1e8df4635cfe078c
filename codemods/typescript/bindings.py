"""What a name in a TypeScript/JavaScript file is bound to: a `useChat()` result or a `ChatClient`.

The rewrites depend on it: a `useChat` result exposes `interrupts` (a property, or a
name to destructure) and a `ChatClient` exposes `getInterrupts()`. And whether the
rewrite type-checks depends on the client's tools: only a tool registered with
`needsApproval: true` gives `tool-approval` items (0.33.2 `ApprovalInterrupts`), so a
client the file shows without tools, or typed as a bare `ChatClient` (its tools
`any`, whose items are only `generic | unbound`), gets a TODO instead.

A name can also be the app's own (a function, an object literal, a member its types
declare) or a React hook's dependency (`[respond]`), which must follow the rewrite;
those lookups live here too, since they answer the same question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from codemods.typescript.document import Document, unwrapped

# Node type → the fields that hold the declared name.
DECLARING: dict[str, tuple[str, ...]] = {
    "variable_declarator": ("name",),
    "required_parameter": ("pattern",),
    "optional_parameter": ("pattern",),
    "public_field_definition": ("name", "property"),
    "field_definition": ("property",),
}
# `useChat` and the hooks `createChatHook` returns (`useAppChat`, `useSupportChat`...).
HOOK = re.compile(r"use\w*Chat")
# Svelte's `createChat` (`@tanstack/ai-svelte`): a hook result too, but only when the
# file imports it from a TanStack binding (an app's own `createChat` may return a client).
FACTORY = re.compile(r"create\w*Chat")


@dataclass(frozen=True, slots=True)
class Destructured:
    """`const { <prop>: <local> } = useChat(...)` (or the shorthand `{ <prop> }`)."""

    entry: tree_sitter.Node  # the shorthand or `key: value` entry
    pattern: tree_sitter.Node  # the object pattern holding it
    hook_call: tree_sitter.Node  # the `useChat(...)` call
    local: str


def hook_call(node: tree_sitter.Node | None, document: Document) -> tree_sitter.Node | None:
    """`node` if it is a call of `useChat` (or a `use…Chat` hook), else None."""
    if node is None or node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type != "identifier":
        return None
    name = document.text(function)
    if HOOK.fullmatch(name) or (FACTORY.fullmatch(name) and name in foreign_hooks(document)):
        return node
    return None


# The React bindings, whose `useChat` returns plain arrays and functions. The other
# TanStack AI bindings wrap them (Vue refs, Solid accessors), so `interrupts.filter`
# would be wrong there.
REACT_PACKAGES = frozenset({"@tanstack/ai-react", "@tanstack/ai-preact"})
TANSTACK_IMPORT = re.compile(
    rb"import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['\"](@tanstack/ai-[\w-]+)['\"]"
)


def foreign_hooks(document: Document) -> frozenset[str]:
    """Local names of the `useChat` hooks (and Svelte's `createChat`) the file imports
    from a TanStack AI binding other than React's (`import { useChat } from
    '@tanstack/ai-vue'`)."""
    found = set()
    for match in TANSTACK_IMPORT.finditer(document.source):
        package = match.group(2).decode()
        if package in REACT_PACKAGES or package == "@tanstack/ai-client":
            continue
        for specifier in match.group(1).decode("utf-8", "replace").split(","):
            parts = specifier.split()
            if parts[:1] in (["useChat"], ["createChat"]):
                found.add(parts[-1])  # `useChat` or `useChat as useVueChat`
    return frozenset(found)


def destructured(document: Document, prop: str) -> list[Destructured]:
    """Every `useChat()` destructuring entry that binds property `prop`."""
    found = []
    for node in document.occurrences(prop):
        parent = node.parent
        if node.type == "shorthand_property_identifier_pattern" and parent is not None:
            entry, pattern, local = node, parent, prop
        elif (
            node.type == "property_identifier"
            and parent is not None
            and parent.type == "pair_pattern"
            and parent.child_by_field_name("key") == node
        ):
            value = parent.child_by_field_name("value")
            if value is None or value.type != "identifier" or parent.parent is None:
                continue
            entry, pattern, local = parent, parent.parent, document.text(value)
        else:
            continue
        declarator = pattern.parent
        if pattern.type != "object_pattern" or declarator is None:
            continue
        if declarator.type != "variable_declarator":
            continue
        call = hook_result(document, declarator.child_by_field_name("value"))
        if call is not None:
            found.append(Destructured(entry, pattern, call, local))
    return found


def hook_result(document: Document, value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The `useChat(...)` call behind `value`: the call itself, or a name bound to one
    (`const chat = useChat(...); const { … } = chat`)."""
    call = hook_call(value, document)
    if call is not None or value is None or value.type != "identifier":
        return call
    for declaration in declarations(document, document.text(value)):
        if declaration.type == "variable_declarator":
            call = hook_call(declaration.child_by_field_name("value"), document)
            if call is not None:
                return call
    return None


def pattern_binding(document: Document, pattern: tree_sitter.Node, prop: str) -> str | None:
    """The local name the object pattern binds property `prop` to, if it binds it."""
    for entry in pattern.named_children:
        if entry.type == "shorthand_property_identifier_pattern" and document.text(entry) == prop:
            return prop
        if entry.type == "pair_pattern":
            key = entry.child_by_field_name("key")
            value = entry.child_by_field_name("value")
            if key is not None and value is not None and document.text(key) == prop:
                return document.text(value) if value.type == "identifier" else None
    return None


def declarations(document: Document, name: str) -> list[tree_sitter.Node]:
    """Nodes that declare `name`: variable declarators, parameters, class fields."""
    found = []
    for node in document.occurrences(name):
        parent = node.parent
        if parent is None:
            continue
        field = DECLARING.get(parent.type)
        if field is not None and any(parent.child_by_field_name(f) == node for f in field):
            found.append(parent)
    return found


def receiver_name(document: Document, receiver: tree_sitter.Node) -> str | None:
    """`client` for `client` and for `this.client`; None for anything else."""
    if receiver.type == "identifier":
        return document.text(receiver)
    if receiver.type == "member_expression":
        obj = receiver.child_by_field_name("object")
        prop = receiver.child_by_field_name("property")
        if obj is not None and obj.type == "this" and prop is not None:
            return document.text(prop)
    return None


def is_hook_result(document: Document, receiver: tree_sitter.Node) -> bool:
    """Whether `receiver` holds a `useChat` result: a name bound to a `useChat(...)` call
    (bare, or behind `?:`, `as`, `!`), or a name or prop typed as one
    (`chat: UseChatReturn<…>`, `props.chat` of such a type). A result handed down whole
    has `interrupts`, not a `ChatClient`'s `getInterrupts()`. So does a `useContext(…)`
    of a context created for one (`createContext<UseChatReturn<…> | null>(null)`)."""
    receiver = unwrapped(receiver)
    if receiver.type == "member_expression":
        prop = receiver.child_by_field_name("property")
        obj = receiver.child_by_field_name("object")
        if prop is None or obj is None or obj.type == "this":
            return False
        return any(hook_typed(document, t) for t in property_types(document, document.text(prop)))
    if receiver.type != "identifier":
        return False
    name = document.text(receiver)
    # The declaration this read sees, when the file shows it (two components may each
    # bind `chat`, one to useChat and one to a ChatClient); else any of that name.
    visible = visible_declaration(document, name, receiver)
    for declaration in [visible] if visible is not None else declarations(document, name):
        annotation = declaration.child_by_field_name("type")
        if annotation is not None and hook_typed(document, annotation):
            return True
        if declaration.type == "variable_declarator" and any(
            hook_call(value, document) is not None or hook_context(document, value)
            for value in values_of(declaration.child_by_field_name("value"))
        ):
            return True
    # `function Panel({ chat }: { chat: UseChatReturn<…> })`: the prop's declared type.
    shorthand = any(
        node.type == "shorthand_property_identifier_pattern" for node in document.occurrences(name)
    )
    return shorthand and any(hook_typed(document, t) for t in property_types(document, name))


def hook_context(document: Document, value: tree_sitter.Node) -> bool:
    """Whether `value` is `useContext(Ctx)` (or `React.useContext`, React 19's `use`) of
    a context the file creates for a `useChat` result: `createContext<Chat | null>(…)`."""
    function = value.child_by_field_name("function") if value.type == "call_expression" else None
    if function is not None and function.type == "member_expression":
        function = function.child_by_field_name("property")
    arguments = value.child_by_field_name("arguments")
    if function is None or document.text(function) not in ("useContext", "use"):
        return False
    if arguments is None or len(arguments.named_children) != 1:
        return False
    context = arguments.named_children[0]
    if context.type != "identifier":
        return False
    for declaration in declarations(document, document.text(context)):
        created = declaration.child_by_field_name("value")
        types = created.child_by_field_name("type_arguments") if created is not None else None
        if types is not None and hook_typed(document, types):
            return True
    return False


# How a type names a `useChat` result: `UseChatReturn<…>`, `ReturnType<typeof useChat>`.
HOOK_TYPE = re.compile(r"\bUseChatReturn\b|\btypeof\s+use\w*Chat\b")


def values_of(value: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """What a declared value may evaluate to: `a ? b : c` gives both branches, and
    type-only wrappers (`x as T`, `x!`, `(x)`) are looked through. The walk keeps its
    own stack: generated code nests ternaries deeper than Python's recursion limit."""
    values: list[tree_sitter.Node] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        node = unwrapped(node)
        if node.type == "ternary_expression":  # consequence first, as the code reads
            stack.extend(node.child_by_field_name(f) for f in ("alternative", "consequence"))
        else:
            values.append(node)
    return values


def property_types(document: Document, prop: str) -> list[tree_sitter.Node]:
    """The declared types of every property named `prop` in the file's interfaces and
    object types (`{ chat: Chat }`, `interface Props { chat: Chat }`)."""
    return list(_declared(document, prop, "property_identifier", "property_signature", "type"))


def _declared(
    document: Document, name: str, kind: str, declaration: str, field: str
) -> Iterator[tree_sitter.Node]:
    """The `field` of every `declaration` node that `name` (a `kind` node) names."""
    for node in document.occurrences(name):
        parent = node.parent
        if (
            node.type == kind
            and parent is not None
            and parent.type == declaration
            and parent.child_by_field_name("name") == node
        ):
            found = parent.child_by_field_name(field)
            if found is not None:
                yield found


def hook_typed(document: Document, annotation: tree_sitter.Node, depth: int = 0) -> bool:
    """Whether a type names a `useChat` result, directly or through the file's own
    `type X = …` aliases."""
    text = document.text(annotation)
    if HOOK_TYPE.search(text):
        return True
    if depth > 3:
        return False
    return any(
        hook_typed(document, value, depth + 1)
        for alias in re.findall(r"[A-Za-z_$][\w$]*", text)
        for value in _declared(
            document, alias, "type_identifier", "type_alias_declaration", "value"
        )
    )


def own_object(document: Document, receiver: tree_sitter.Node) -> bool:
    """Whether `receiver` is a name that, where it is read, is bound to an object literal
    the file builds (`const client = { addToolApprovalResponse: … }`): the app's own."""
    if receiver.type != "identifier":
        return False
    declaration = visible_declaration(document, document.text(receiver), receiver)
    value = declaration.child_by_field_name("value") if declaration is not None else None
    return value is not None and unwrapped(value).type == "object"


# Where a file declares a member of its own: `{ name: T }` / `interface { name: T }`,
# a class field, an object literal's key.
MEMBER_DECLARATIONS = frozenset({"property_signature", "public_field_definition", "pair"})


def declares_member(document: Document, name: str) -> bool:
    """Whether the file declares a property `name` of its own (a type, a class, an
    object literal): then `x.name` may read the app's object rather than the client's."""
    for node in document.occurrences(name):
        parent = node.parent
        if node.type == "shorthand_property_identifier":
            return True  # `{ name }` in an object literal
        if node.type != "property_identifier" or parent is None:
            continue
        if parent.type in MEMBER_DECLARATIONS and node in (
            parent.child_by_field_name("name"),
            parent.child_by_field_name("key"),
        ):
            return True
    return False


# The package types whose `pendingInterrupts` is the deprecated alias.
CLIENT_TYPE = re.compile(r"\b(?:ChatClient|ChatInterruptState|UseChatReturn)\b")


def is_client(document: Document, receiver: tree_sitter.Node) -> bool:
    """Whether `receiver` is provably a `useChat` result, a `ChatClient` or its interrupt
    state: bound to `useChat(...)`/`new ChatClient(...)`, typed as one, or
    `….getInterruptState()`."""
    if is_hook_result(document, receiver):
        return True
    if receiver.type == "call_expression":  # `client.getInterruptState()`
        function = receiver.child_by_field_name("function")
        method = function.child_by_field_name("property") if function is not None else None
        return method is not None and document.text(method) == "getInterruptState"
    name = receiver_name(document, receiver)
    if name is None:
        return False
    for declaration in declarations(document, name):
        annotation = declaration.child_by_field_name("type")
        if annotation is not None and CLIENT_TYPE.search(document.text(annotation)):
            return True
        for value in values_of(declaration.child_by_field_name("value")):
            constructor = value.child_by_field_name("constructor")
            if constructor is not None and document.text(constructor) == "ChatClient":
                return True
    return False


def own_function(document: Document, name: str) -> bool:
    """Whether the file defines a function called `name` (`function name() {}`, or
    `const name = () => …`): the app's own, not a legacy method handed down."""
    for node in document.occurrences(name):
        parent = node.parent
        if parent is None or parent.child_by_field_name("name") != node:
            continue
        if parent.type in ("function_declaration", "generator_function_declaration"):
            return True
        if parent.type == "variable_declarator":
            value = parent.child_by_field_name("value")
            if value is not None and value.type in ("arrow_function", "function_expression"):
                return True
    return False


def bare_calls(document: Document, name: str, seen: set[int]) -> list[tree_sitter.Node]:
    """The calls `name(...)` of the bare name (not `x.name(...)`) that start at no offset
    in `seen` (the rule's findings so far): a legacy method handed down as a prop, say,
    which is not the file's to rewrite. None at all when the file defines its own function of
    that name (`own_function`): those calls are the app's own."""
    if own_function(document, name):
        return []
    calls = []
    for node in document.occurrences(name):
        outer = node.parent
        if (
            node.type == "identifier"
            and outer is not None
            and outer.type == "call_expression"
            and outer.child_by_field_name("function") == node
            and outer.start_byte not in seen
        ):
            calls.append(outer)
    return calls


def visible_declaration(
    document: Document, name: str, at: tree_sitter.Node
) -> tree_sitter.Node | None:
    """The declaration of `name` that a read at `at` sees: of those whose block (or
    function, for a parameter) holds `at`, the innermost; None when the file shows none."""
    best: tuple[int, tree_sitter.Node] | None = None
    for declaration in declarations(document, name):
        scope = declaration.parent
        while scope is not None and scope.type not in BLOCKS:
            scope = scope.parent
        if scope is None or not (scope.start_byte <= at.start_byte < scope.end_byte):
            continue
        if best is None or scope.start_byte >= best[0]:
            best = (scope.start_byte, declaration)
    return best[1] if best is not None else None


# What a `let`/`const` (a block) or a parameter (its function) is visible in.
BLOCKS = frozenset(
    {
        "statement_block",
        "program",
        "class_body",
        "function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "method_definition",
        "for_statement",
        "for_in_statement",
        "switch_body",
    }
)


def tools_problem(document: Document, call: tree_sitter.Node) -> str | None:
    """Why a `useChat({...})`/`new ChatClient({...})` call visibly registers no approval
    tool, or None when it does or the file cannot tell."""
    arguments = call.child_by_field_name("arguments")
    options = arguments.named_children if arguments is not None else []
    if not options:
        return NO_TOOLS
    first = unwrapped(options[0])
    if first.type == "identifier":  # `useChat(options)`, `const options = {…}` in the file
        declared = declarations(document, document.text(first))
        value = declared[0].child_by_field_name("value") if len(declared) == 1 else None
        first = unwrapped(value) if value is not None else first
    if first.type != "object":
        return None  # options built elsewhere: cannot tell
    for entry in first.named_children:
        if entry.type in ("spread_element", "method_definition"):
            return None
        key = entry.child_by_field_name("key") if entry.type == "pair" else entry
        if key is not None and document.text(key) == "tools":
            value = entry.child_by_field_name("value") if entry.type == "pair" else entry
            return (
                NO_APPROVAL_TOOL
                if value is not None and no_approval_tool(document, value)
                else None
            )
    return NO_TOOLS


def no_approval_tool(document: Document, tools: tree_sitter.Node) -> bool:
    """Whether the file shows every tool in `tools` (an array, or a name bound to one)
    defined by `toolDefinition({...})` without `needsApproval: true`."""
    if tools.type in ("identifier", "shorthand_property_identifier"):
        values = [
            d.child_by_field_name("value") for d in declarations(document, document.text(tools))
        ]
        arrays = [v for v in values if v is not None and v.type == "array"]
        if len(arrays) != 1:
            return False
        tools = arrays[0]
    if tools.type != "array" or not tools.named_children:
        return False
    return all(definition_lacks_approval(document, element) for element in tools.named_children)


def definition_lacks_approval(document: Document, element: tree_sitter.Node) -> bool:
    """`x.client(...)`/`x.server(...)`/`x` where `x = toolDefinition({...})` in this file
    has no `needsApproval: true`; False whenever the file cannot tell."""
    if element.type == "call_expression":
        function = element.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            return False
        element = function.child_by_field_name("object") or element
    if element.type != "identifier":
        return False
    for declaration in declarations(document, document.text(element)):
        value = declaration.child_by_field_name("value")
        function = value.child_by_field_name("function") if value is not None else None
        if value is None or function is None or document.text(function) != "toolDefinition":
            continue
        arguments = value.child_by_field_name("arguments")
        config = (
            arguments.named_children[0]
            if arguments is not None and arguments.named_children
            else None
        )
        if config is None or config.type != "object":
            return False
        for pair in config.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            if key is not None and document.text(key) == "needsApproval":
                value = pair.child_by_field_name("value")
                return value is not None and document.text(value) == "false"
            if pair.type in ("spread_element", "shorthand_property_identifier"):
                return False
        return True
    return False


NO_TOOLS = (
    "this client registers no tools: register the approved tool with needsApproval: true "
    "(otherwise its interrupt is a generic item with no tool-approval kind), then resolve "
    "the bound item with resolveInterrupt(approved)"
)
NO_APPROVAL_TOOL = (
    "no tool this client registers has needsApproval: true, so its interrupts are generic "
    "items with no tool-approval kind: register the approved tool with needsApproval: true, "
    "then resolve the bound item with resolveInterrupt(approved)"
)
BARE_CLIENT = (
    "this client is typed as a bare ChatClient, whose items never have the tool-approval "
    "kind: type it with its tools (e.g. ChatClient<typeof tools>) and run agui migrate again"
)


def client_problem(document: Document, receiver: tree_sitter.Node) -> str | None:
    """Why resolving a bound tool-approval item on this `ChatClient` would not work, if
    the file shows it: constructed without tools, or declared as a bare `ChatClient`."""
    name = receiver_name(document, receiver)
    if name is None:
        return None
    visible = None
    if receiver.type == "identifier":  # `this.client` is a field: any declaration
        visible = visible_declaration(document, name, receiver)
    for declaration in [visible] if visible is not None else declarations(document, name):
        annotation = declaration.child_by_field_name("type")
        named = annotation.named_children if annotation is not None else []
        if [(n.type, document.text(n)) for n in named] == [("type_identifier", "ChatClient")]:
            return BARE_CLIENT
        value = declaration.child_by_field_name("value")
        if value is None:
            continue
        constructor = value.child_by_field_name("constructor")
        constructs = constructor is not None and document.text(constructor) == "ChatClient"
        hook = hook_call(value, document) is not None
        problem = tools_problem(document, value) if constructs or hook else None
        if problem is not None:
            return problem
    return None


def entry_edit(
    document: Document,
    binding: Destructured,
    needed: str | None,
    keep_old: bool,
) -> tuple[int, int, str] | None:
    """One edit of a destructuring entry: add `needed` beside it, replace it by `needed`
    (the old name is no longer used), or drop it with its separator."""
    text = document.text(binding.entry)
    entry = binding.entry
    if keep_old:
        if needed is None:
            return None
        return entry.start_byte, entry.end_byte, f"{text}, {needed}"
    if needed is not None:
        return entry.start_byte, entry.end_byte, needed
    following = entry.next_named_sibling
    previous = entry.prev_named_sibling
    if following is not None and following.type != "comment":
        return entry.start_byte, following.start_byte, ""
    if previous is not None:
        return previous.end_byte, entry.end_byte, ""
    return entry.start_byte, entry.end_byte, ""


def rename_destructured(
    document: Document, binding: Destructured, new: str
) -> list[tuple[int, int, str]]:
    """Edits that make a `useChat` destructuring read property `new` instead.

    `{ old: local }` only changes its key. The shorthand `{ old }` also renames the local
    and its reads in the enclosing function, unless `new` is bound there already: then
    the reads move to that binding and the entry goes, or (the name is something else)
    the entry becomes `new: old` and nothing else changes.
    """
    entry = binding.entry
    if entry.type == "pair_pattern":
        key = entry.child_by_field_name("key")
        assert key is not None
        return [(key.start_byte, key.end_byte, new)]
    old = binding.local
    scope = document.scope_of(binding.pattern)
    existing = pattern_binding(document, binding.pattern, new)
    if existing is None and document.references(new, scope):
        return [(entry.start_byte, entry.end_byte, f"{new}: {old}")]
    edits: list[tuple[int, int, str]] = []
    if existing is None:
        edits.append((entry.start_byte, entry.end_byte, new))
    else:
        dropped = entry_edit(document, binding, None, keep_old=False)
        assert dropped is not None
        edits.append(dropped)
    local = existing or new
    for read in document.references(old, scope):
        if read.type == "shorthand_property_identifier":  # `{ old }` in an object literal
            edits.append((read.start_byte, read.end_byte, f"{old}: {local}"))
        else:
            edits.append((read.start_byte, read.end_byte, local))
    return edits


# React hooks whose last argument lists what the callback reads: a callback that now
# reads `interrupts` must list it, or it keeps the first render's items (useChat's
# addToolApprovalResponse never changes, so listing only it never refreshed them).
DEPENDENCY_HOOKS = frozenset(
    {
        "useCallback",
        "useMemo",
        "useEffect",
        "useLayoutEffect",
        "useInsertionEffect",
        "useImperativeHandle",
    }
)


def react_dependency(document: Document, use: tree_sitter.Node) -> bool:
    """Whether `use` is an entry of a React hook's dependency array (`[id, respond]`)."""
    array = use.parent
    arguments = array.parent if array is not None and array.type == "array" else None
    call = arguments.parent if arguments is not None else None
    if arguments is None or call is None or call.type != "call_expression":
        return False
    if arguments.named_children[-1] != array or len(arguments.named_children) < 2:
        return False
    function = call.child_by_field_name("function")
    if function is not None and function.type == "member_expression":
        function = function.child_by_field_name("property")  # React.useCallback
    return function is not None and document.text(function) in DEPENDENCY_HOOKS


def dependency_edit(
    document: Document, use: tree_sitter.Node, new: str | None, keep: bool
) -> tuple[int, int, str]:
    """The dependency array's edit: `new` replaces the old name (or joins it, `keep`,
    while a call of it is left); the old name just goes when `new` is listed already or
    is None (nothing reads either any more)."""
    array = use.parent
    assert array is not None
    listed = new is None or any(
        entry.type == "identifier" and document.text(entry) == new for entry in array.named_children
    )
    name = document.text(use)
    if not listed:
        return use.start_byte, use.end_byte, f"{name}, {new}" if keep else str(new)
    if keep:
        return use.start_byte, use.end_byte, name
    following = use.next_named_sibling
    previous = use.prev_named_sibling
    if following is not None:
        return use.start_byte, following.start_byte, ""
    if previous is not None:
        return previous.end_byte, use.end_byte, ""
    return use.start_byte, use.end_byte, ""
