"""Machine fixes for async-policy-load-record, offered only where they are correct.

1. Pre-load: `let p = AsyncPolicy::new(n, base); .. p.load_record(r)` in one block, with a
   plain `base` -> `let base = base.load_record(r);` before the wrap (also for the chained form).
2. Through the state: `p.update(p.state().load_record(r))` (Policy::update / Policy::state /
   PolicyState::load_record, burn-rl policy/base.rs), adding `mut` or `use PolicyState` if needed.
"""

from __future__ import annotations

from itertools import pairwise

from panic_lens.model import Edit, Fix, Span
from panic_lens.rust import edits as ed
from panic_lens.rust.facts import CallSite, FileFacts
from panic_lens.rust.locals import LocalBinding
from panic_lens.rust.syntax import (
    Node,
    ancestors,
    child_by_field,
    has_error,
    parse,
    statement_of,
    strip_wrappers,
    walk,
)

ASYNC_NEW = "burn::rl::AsyncPolicy::new"
_ASYNC_NEW = frozenset({ASYNC_NEW})
POLICY_STATE = "burn::rl::PolicyState"
_IMPURE = frozenset({"call_expression", "macro_invocation", "try_expression", "await_expression",
                     "assignment_expression", "compound_assignment_expr", "block"})  # fmt: skip


def fixes_for(site: CallSite, receiver: Node | None, facts: FileFacts) -> tuple[Fix, ...]:
    """The correct fixes for one flagged call, preferred first; each re-parses cleanly."""
    if receiver is None or len(site.args) < (1 if site.kind == "method" else 2):
        return ()
    candidates = [_preload(site, receiver, facts), _through_state(site, receiver, facts)]
    fixes = [f for f in candidates if f is not None and _parses(facts, f)]
    return tuple(
        Fix(f.id, f.title, f.edits, preferred=(i == 0), behavior_change=False)
        for i, f in enumerate(fixes)
    )


# -- 1. load on the inner policy before wrapping ----------------------------------------------


def _preload(site: CallSite, receiver: Node, facts: FileFacts) -> Fix | None:
    if site.kind != "method":
        return None
    record = facts.text(site.args[0])
    wrap = _async_new(strip_wrappers(receiver), facts)
    if wrap is not None:  # AsyncPolicy::new(n, base).load_record(r)
        inner = wrap[1]
        edits = (
            ed.replace_node(inner, f"{facts.text(inner)}.load_record({record})"),
            Edit(ed.span_between(facts.src, receiver.end_byte, site.node.end_byte), ""),
        )
        return _preload_fix(facts.text(inner), edits)
    return _preload_let(site, receiver, facts, record)


def _preload_let(site: CallSite, receiver: Node, facts: FileFacts, record: str) -> Fix | None:
    binding = facts.binding(receiver) if receiver.type == "identifier" else None
    if binding is None or binding.kind != "let" or binding.decl.parent is None:
        return None
    wrap = _async_new(strip_wrappers(binding.value), facts)
    let_stmt, call_stmt = binding.decl.parent, statement_of(site.node, facts.tree.root_node)
    if wrap is None or call_stmt is None or let_stmt.parent != call_stmt.parent:
        return None
    inner = facts.text(wrap[1])
    if not _movable_before(site.args[0], let_stmt, facts):
        return None
    if _used_between(binding.name, let_stmt, call_stmt, facts):
        return None
    load = ed.insert_statement_before(
        facts.src, let_stmt, f"let {inner} = {inner}.load_record({record});"
    )
    return _preload_fix(inner, (load, _drop_load(site, call_stmt, binding.name, facts)))


def _preload_fix(inner: str, edits: tuple[Edit, ...]) -> Fix:
    return Fix("async-policy-preload", f"Load the record on the inner policy `{inner}` before "
               "AsyncPolicy::new", edits)  # fmt: skip


def _async_new(expr: Node | None, facts: FileFacts) -> tuple[Node, Node] | None:
    """(call, inner policy) of `AsyncPolicy::new(n, inner)` with a plain binding as inner."""
    if expr is None or expr.type != "call_expression":
        return None
    site = facts.call_site(expr)
    if site is None or site.resolves_to(_ASYNC_NEW) is None or len(site.args) != 2:
        return None
    inner = site.args[1]
    if inner.type != "identifier":
        return None
    inner_type = facts.type_of(inner)
    return None if inner_type and inner_type.path == "burn::rl::AsyncPolicy" else (expr, inner)


def _movable_before(record: Node, let_stmt: Node, facts: FileFacts) -> bool:
    """The record expression is side-effect free and its locals all exist before the wrap."""
    for node in walk(record):
        if node.type in _IMPURE:
            return False
        if node.type == "identifier" and _is_value_use(node):
            found = facts.binding(node)
            if found is not None and found.decl.end_byte > let_stmt.start_byte:
                return False
    return True


def _is_value_use(ident: Node) -> bool:
    parent = ident.parent
    return (
        parent is None
        or parent.type not in ("scoped_identifier", "field_expression")
        or (parent.type == "field_expression" and child_by_field(parent, "value") == ident)
    )


def _used_between(name: str, first: Node, last: Node, facts: FileFacts) -> bool:
    block = first.parent
    for stmt in block.named_children if block is not None else []:
        between = first.end_byte <= stmt.start_byte and stmt.end_byte <= last.start_byte
        if between and any(n.type == "identifier" and facts.text(n) == name for n in walk(stmt)):
            return True
    return False


def _drop_load(site: CallSite, stmt: Node, name: str, facts: FileFacts) -> Edit:
    """After pre-loading, the load call is `p` itself: drop a statement that only did that."""
    expr = stmt.named_children[0] if stmt.type == "expression_statement" else None
    if expr is not None and strip_wrappers(expr) == site.node:
        return ed.delete_statement(facts.src, stmt)
    if expr is not None and expr.type == "assignment_expression":
        left, right = child_by_field(expr, "left"), child_by_field(expr, "right")
        if left is not None and facts.text(left) == name and right == site.node:
            return ed.delete_statement(facts.src, stmt)
    if stmt.type == "let_declaration" and child_by_field(stmt, "value") == site.node:
        pattern = child_by_field(stmt, "pattern")
        plain = not any(c.type == "mutable_specifier" for c in stmt.children)
        if pattern is not None and facts.text(pattern) == name and plain:
            return ed.delete_statement(facts.src, stmt)
    return ed.replace_node(site.node, name)


# -- 2. refresh through the state ---------------------------------------------------------------


def _through_state(site: CallSite, receiver: Node, facts: FileFacts) -> Fix | None:
    if site.kind != "method" and facts.resolve("Policy", site.node) != "burn::rl::Policy":
        return None  # `p.update(..)` needs the Policy trait in scope
    record = facts.text(site.args[0] if site.kind == "method" else site.args[1])
    main = _state_rewrite(site, receiver, record, facts)
    if main is None:
        return None
    extra = (
        [] if facts.resolve("PolicyState", site.node) == POLICY_STATE else [_use_state(site, facts)]
    )
    who = facts.text(receiver) if receiver.type == "identifier" else "policy"
    title = f"Refresh through the state: {who}.update({who}.state().load_record(..))"
    return Fix("async-policy-update-state", title, (*main, *extra))


def _state_rewrite(
    site: CallSite, receiver: Node, record: str, facts: FileFacts
) -> tuple[Edit, ...] | None:
    """In place for `p.load_record(r);` and `p = p.load_record(r);`, else a block expression."""
    who = facts.text(receiver)
    update = f"{who}.update({who}.state().load_record({record}))"
    stmt = statement_of(site.node, facts.tree.root_node)
    expr = stmt.named_children[0] if stmt and stmt.type == "expression_statement" else None
    if receiver.type == "identifier" and expr is not None:
        binding = facts.binding(receiver)
        mut = _make_mutable(binding, facts) if binding is not None else None
        if strip_wrappers(expr) == site.node and mut is not None:
            return (ed.replace_node(site.node, update), *mut)
        if _is_self_assignment(expr, who, site.node, facts):
            return (ed.replace_node(expr, update),)
    name = next(n for n in ("policy", "async_policy", "policy_") if n not in record + who)
    load = f"{name}.update({name}.state().load_record({record}))"
    return (ed.replace_node(site.node, f"{{ let mut {name} = {who}; {load}; {name} }}"),)


def _is_self_assignment(expr: Node, who: str, call: Node, facts: FileFacts) -> bool:
    """`p = p.load_record(r)`: p is assignable, so it is already `mut`."""
    if expr.type != "assignment_expression":
        return False
    left = child_by_field(expr, "left")
    return left is not None and facts.text(left) == who and child_by_field(expr, "right") == call


def _make_mutable(binding: LocalBinding, facts: FileFacts) -> tuple[Edit, ...] | None:
    """Edits that make the binding `mut` (none if it already is); None when that is not enough."""
    owner = binding.decl.parent
    if owner is None or binding.kind not in ("let", "param", "assign"):
        return None
    if binding.kind == "assign":
        return ()
    if binding.type_node is not None and binding.type_node.type == "reference_type":
        return None
    if any(
        c.type == "mutable_specifier"
        for c in owner.children
        if c.end_byte <= binding.decl.start_byte
    ):
        return ()
    return (ed.insert_at(facts.src, binding.decl.start_byte, "mut "),)


def _use_state(site: CallSite, facts: FileFacts) -> Edit:
    crate_path = "burn_rl" if b"burn_rl" in facts.src else "burn::rl"
    root = facts.tree.root_node
    chain = ancestors(site.node, root)
    body = next((a for a, owner in pairwise(chain) if owner.type == "mod_item"), root)
    return ed.insert_use(facts.src, body, f"{crate_path}::PolicyState")


def _parses(facts: FileFacts, fix: Fix) -> bool:
    """The fix adds no syntax error, judged where it edits: each function it changes, parsed
    on its own with its edits applied, and each `use` it inserts between items.

    Nothing else of the file counts, so a half-typed line in another function does not hide
    this fix, and re-analysing that other function alone keeps this finding as it was.
    """
    root = facts.tree.root_node
    functions: dict[int, tuple[Node, list[Edit]]] = {}
    for edit in fix.edits:
        start, end = edit.span.start_byte, edit.span.end_byte
        function = _function_around(root, start, end)
        if function is not None:
            functions.setdefault(function.id, (function, []))[1].append(edit)
        elif start != end or not _between_items(root, start):
            return False  # an edit we cannot judge on its own: not offered
        elif has_error(parse(edit.new_text.encode())):
            return False
    for function, group in functions.values():
        text = facts.src[function.start_byte : function.end_byte]
        moved = [_moved_back(e, function.start_byte) for e in group]
        if has_error(parse(ed.apply_edits(text, moved))):
            return False
    return True


def _function_around(root: Node, start: int, end: int) -> Node | None:
    """The innermost `fn` item containing bytes [start, end)."""
    node = root.descendant_for_byte_range(start, end)
    if node is not None and node.type == "function_item":
        return node
    return next((a for a in ancestors(node, root) if a.type == "function_item"), None) if (
        node is not None) else None  # fmt: skip


def _between_items(root: Node, at: int) -> bool:
    """`at` lies between the items of the file or of a `mod` / impl body."""
    node: Node | None = root.descendant_for_byte_range(at, at)
    while node is not None and not (node.start_byte < at < node.end_byte):
        node = node.parent
    return node is None or node.type in ("source_file", "declaration_list")


def _moved_back(edit: Edit, offset: int) -> Edit:
    """`edit` on the text of a node that starts at byte `offset` (only bytes are read)."""
    span = edit.span
    return Edit(Span(span.start_byte - offset, span.end_byte - offset, span.start, span.end),
                edit.new_text)  # fmt: skip
