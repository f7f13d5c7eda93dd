"""The burn modules a tensor goes through: which module an expression holds and the config it
was built with (a local, a field every literal of its struct sets alike, a field of the struct
value a method is followed on), and from that config the shape of its `forward` and of its
parameters (`module.weight.val()`), through burn's table (`evaluate.ops`)."""

from __future__ import annotations

from typing import Any

from panic_lens.evaluate import fields, flow, ops
from panic_lens.evaluate.literals import at, strip
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.shapes import Shape
from panic_lens.evaluate.state import MAX_DEPTH, Fields, Frame, State
from panic_lens.rust.syntax import Node, child_by_field


def param_shape(field: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """`module.weight.val()`: the shape of a burn module's parameter, from the config the
    module was built from (the module read as `module_at` reads it)."""
    base, name = child_by_field(field, "value"), child_by_field(field, "field")
    if field.type != "field_expression" or base is None or name is None:
        return None
    found = module_at(base, st, depth, frame)
    if found is None:
        return None
    shape = ops.module_param_shape(found[0], found[1], st.unit.text(name))
    return shape.then(f".val() at {at(field)}") if shape is not None else None


def forward_shape(module: Node, args: list[Node], st: State, frame: Frame, depth: int,
             element: int | None = None, method: str = "forward") -> Shape | None:  # fmt: skip
    """`module.forward(x, ..)` of a burn module (or a loss's `forward_no_reduction(..)`): its
    type and config from where it was built (a local, or a field every literal of the struct
    sets alike), through burn's table; the `element` of a forward that returns a tuple
    (`let (out, state) = lstm.forward(x, None)`)."""
    found = module_at(module, st, depth, frame)
    inner = st.shape(args[0], frame, depth + 1) if found is not None else None
    if found is None or inner is None:
        return None
    return ops.module_forward_shape(found[0], found[1], inner, len(args), element, method)


def module_at(
    module: Node, st: State, depth: int, frame: Frame | None = None
) -> tuple[str, dict[str, Any]] | None:
    node = strip(module)
    if node is None:
        return None
    if node.type == "field_expression" and frame is not None:
        built = _built_module(node, st, frame, depth)  # `self.linear`, `model.linear`
        if built is not None:
            return built
    if node.type == "field_expression" and (sites := fields.field_sites(node, st)) is not None:
        return fields.agreed([st.module_of(v) for v, _ in sites], key=repr)
    if node.type == "identifier":
        found = st.binding(node)
        bound = bound_value(node, found, st.unit.src, st.unit.root) if found else None
        if bound is not None and depth < MAX_DEPTH:
            return module_at(bound, st, depth + 1, frame)
    # in the frame of the call being followed: a helper's `EmbeddingConfig::new(n, d_model)
    # .init(d)` reads the helper's parameters as the call gives them
    built = st.module_of(node, frame if frame is not None and frame.args else None)
    return built if built is not None else _declared_module(node, st)


_TYPE_NAMES = ("type_identifier", "scoped_type_identifier")


def _declared_module(node: Node, st: State) -> tuple[str, dict[str, Any]] | None:
    """A burn module the evaluator knows only by the type the code declares for it where the
    layer above does not read one (a loop's variable over a `Vec<LayerNorm>`: `fields`): its
    path, no config field known (a norm's or an activation's output needs none)."""
    found = fields.declared_type(node, st)
    kind = found[0] if found is not None else None
    while kind is not None and kind.type in ("reference_type", "generic_type"):
        kind = child_by_field(kind, "type")
    if kind is None or found is None or kind.type not in _TYPE_NAMES:
        return None
    path = found[1].imports.resolve(kind)
    known = path is not None and path in ops.table().module
    return (path, {}) if known and path is not None else None


def _built_module(
    node: Node, st: State, frame: Frame, depth: int
) -> tuple[str, dict[str, Any]] | None:
    """`self.f` in a method followed from a call on a struct value (or `v.f` of a local value,
    `let stem = StemConfig::new().init(d)`) whose literal built `f` as a burn module
    (`Fields.built`): the module's config, read in the frame of that literal
    (`ModelConfig::new(10, 512).init(d)` then `model.forward(x)`: `self.linear2` is
    `LinearConfig::new(self.hidden_size, self.num_classes)` with that config's values)."""
    base, field = child_by_field(node, "value"), child_by_field(node, "field")
    if base is None or field is None:
        return None
    if base.type == "self":
        me = flow.self_value(node, st, frame)
    else:  # `stem.pool` of `let stem = StemConfig::new().init(d)`
        me = st.value(base, frame, depth + 1)
    if me is None or not isinstance(me.value, Fields):
        return None
    found = me.value.built.get(st.unit.text(field))
    return st.module_of(found[0], found[1]) if found is not None else None
