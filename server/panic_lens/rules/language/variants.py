"""The fields of the enum variant a method is called on, as a condition reads them
(`receiver.fields`, docs/rule-language.md): `Initializer::KaimingUniform { gain: 1.0,
fan_out_only: true }.init_with(..)` gives `{"gain": 1.0, "fan_out_only": true}`. The struct
literal is followed through `let` bindings the call still sees and the file's own consts;
each field's value comes from `evaluate`, and a field whose value is not known is absent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panic_lens import evaluate
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import Value
from panic_lens.rust.syntax import Node, child_by_field, node_text, strip_wrappers

if TYPE_CHECKING:
    from panic_lens.rust.facts import FileFacts

_MAX_DEPTH = 8  # let-to-let and const-to-const steps


def variant_fields(node: Node | None, facts: FileFacts, depth: int = 0) -> dict[str, Value]:
    """The known fields of the variant literal `node` is (or is bound to); {} when it is no
    struct-like variant literal the file shows."""
    node = strip_wrappers(node)
    if node is None or depth > _MAX_DEPTH:
        return {}
    if node.type == "identifier":
        return variant_fields(_bound_to(node, facts), facts, depth + 1)
    if node.type != "struct_expression":
        return {}
    body = child_by_field(node, "body")
    out: dict[str, Value] = {}
    for item in body.named_children if body is not None else ():
        name, written = child_by_field(item, "field"), child_by_field(item, "value")
        if item.type != "field_initializer" or name is None or written is None:
            continue  # `gain,` (a shorthand) reads a local; `..base` leaves the rest unknown
        found = evaluate.value_of(written, facts)
        if found is not None:
            out[node_text(name, facts.src)] = found
    return out


def _bound_to(ident: Node, facts: FileFacts) -> Node | None:
    """What a local was bound to (when nothing may have changed it since), or the value of
    the file's const or static of that name."""
    binding = facts.binding(ident)
    if binding is not None:
        return bound_value(ident, binding, facts.src, facts.tree.root_node)
    item = facts.imports.local_item(node_text(ident, facts.src), ident)
    if item is None or item.type not in ("const_item", "static_item"):
        return None
    return child_by_field(item, "value")
