"""A function's (or a closure's) parameters as its callers in the same file give them: a call
inside a helper (`fn norm(groups: usize, ..) { GroupNormConfig::new(groups, 40).init(..) }`)
is asked about once per call of the helper whose arguments are known (`norm(3, ..)`), each in
the frame `calls.frame_for` makes for that call ("when called as norm(3, ..) at line 12"); a
call inside a closure bound by `let crop = |x, n| ..` once per later call `crop(t, 9)`.

Only for an expression that names a parameter of its function, itself or through the `let`s
it reads (`let head_dim = self.d_model / self.n_heads;`, then `f(head_dim)`), also from inside
a closure that captures it. Two levels: a call whose arguments are its own function's
parameters, or a literal loop's element, is read in that function's callers' frames or per
element ("when called as block.init(d) at line 40, when called as ModelConfig::new(16).init(d)
at line 60"); the callers' callers' parameters stay unknown. A function whose name the file
writes nowhere else has no caller, found by its bytes before anything is evaluated. Bounded:
at most `MAX_CALLERS` calls of one function give frames, found among the first
`MAX_CALLS_READ` calls of its name; a call inside the function itself (recursion) is not one
of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from panic_lens.evaluate import fields, loops, scope
from panic_lens.evaluate.calls import _method, callee_fn, const_generics, frame_for
from panic_lens.evaluate.literals import at
from panic_lens.evaluate.state import Frame, State, Value
from panic_lens.rust.lexical import word_starts
from panic_lens.rust.search import calls_named
from panic_lens.rust.syntax import (
    Node,
    ancestors,
    call_parts,
    child_by_field,
    method_call,
    span_of,
)
from panic_lens.rust.testcode import in_test_code

MAX_CALLERS = 8  # frames from the callers of one function
MAX_CALLS_READ = 64  # calls of its name read to find them (a file may call it thousands of times)
MAX_LEVELS = 2  # callers, then their callers
MAX_LETS = 16  # `let`s followed back from one expression


def frames_at(
    node: Node, st: State, top: Frame, about: Sequence[Node] | None = None, level: int = 1
) -> list[Frame]:
    """The frames of the calls in the file of the function around `node` that give the
    parameters `node` names known values; [] when there is none, or when none of the `about`
    nodes (the parts of `node` whose values decide, when given) names a parameter."""
    kinds = ("function_item", "closure_expression")
    fn = next((a for a in ancestors(node, st.unit.root) if a.type in kinds), None)
    while fn is not None and fn.type == "closure_expression":
        if set(_closure_params(fn, st)) & set(_WORD.findall(st.unit.text(node))):
            return _closure_frames(fn, node, st, top, about)
        # names the closure captures (`.map(|_| BlockConfig::new(self.d_model, ..))`): the
        # parameters of the function around it
        fn = next((a for a in ancestors(fn, st.unit.root) if a.type in kinds), None)
    if fn is None:
        return []
    params, name = child_by_field(fn, "parameters"), child_by_field(fn, "name")
    if params is None or name is None:
        return []
    params_named = _param_names(params, st)
    params_named |= {n for n in const_generics(fn, st.unit) if n is not None}  # `::<5>`
    if not _named_elsewhere(fn, name, st):  # no caller (most functions asked about: tests)
        _mark_uncalled(fn, node, params_named, about, st)
        return []
    words = _reached_words(node, fn, st)
    # a method of a config: `self` is its receiver's value
    config = _config_owner(fn, st) if "self" in words else None
    if config is not None:
        params_named.add("self")
    if about is not None and not any(params_named & _reached_words(n, fn, st) for n in about):
        return []  # the parts asked about name no parameter: the callers change nothing
    named = frozenset(params_named & words)
    if not named:
        return []  # the expression names no parameter: its callers change nothing in it
    key = ("evaluate", "caller-frames", fn.id, named, level)
    if key in st.memo:
        return st.memo[key]
    body = child_by_field(fn, "body")
    if body is not None:  # what a re-analysis of another function must re-run with it
        framed(st).add((body.start_byte, body.end_byte))
    found: list[Frame] = []
    item = scope.Item(st.unit, fn)
    method = any(p.type == "self_parameter" for p in params.named_children)
    holder = fn.parent.parent if fn.parent is not None else None  # impl > declaration_list > fn
    associated = holder is not None and holder.type in ("impl_item", "trait_item")
    owner = None
    if associated:  # `impl Model { fn new(..) }`: called as `Self::new` or `Model::new`
        owner = scope._base_name(child_by_field(holder, "type"), st.unit) or "Self"
    for call in _calls_named(st, st.unit.text(name))[:MAX_CALLS_READ]:
        if fn.start_byte <= call.start_byte < fn.end_byte:
            continue  # recursion
        if not _may_call(call, method, owner, st, True):
            continue
        on_value = _on_value(call)
        if on_value and config is None and not _on_local(call):
            continue  # `self.linear.forward(x)`: a field's method, burn's module most often
        # `cfg.init(d)` of a config: the receiver's value says which method (a method of
        # another struct called on a local, `model.keep_best(x)`: its type, as any call's)
        by_value = config if on_value else None
        if by_value is not None and not _named_method(call, by_value, fn, st):
            continue
        if by_value is not None and not _may_be_of(call, by_value, st):
            continue  # `LinearConfig::new(..).init(d)`: another type's method
        if _test_caller(call, fn, st):
            continue  # a test's values flag no code outside tests (it expects the panic)
        callee = None if by_value is not None else callee_fn(call, st)
        if by_value is None and (callee is None or callee.node.id != fn.id):
            continue
        label = f"when called as {_shown(call, st)} at {at(call)}"
        # the call's values in its own function's callers' frames, when they read its
        # parameters (`ConvBlockConfig::new(3 * b, b).init(d)` with `let b = self.base`);
        # else as written
        outers = _outer_frames(call, st, top, level) if level < MAX_LEVELS else []
        for outer, shown in [(o, f"{label}, {o.label}") for o in outers] or [(top, label)]:
            inner = frame_for(call, item, st, outer, 0, named)
            if inner is None or not inner.args:
                continue
            if by_value is not None and "self" not in inner.args:
                continue
            found.append(Frame(inner.fn, inner.args, inner.calls, shown, call=call))
            if len(found) >= MAX_CALLERS:
                break
        if len(found) >= MAX_CALLERS:
            break
    st.memo[key] = found
    return found


def _named_elsewhere(fn: Node, name: Node, st: State) -> bool:
    """Whether the file writes the function's name as a word outside the function (a superset
    of its calls there, found by the bytes)."""
    word = st.unit.src[name.start_byte : name.end_byte]
    return any(not fn.start_byte <= at < fn.end_byte for at in word_starts(st.unit.src, word))


def _mark_uncalled(
    fn: Node, node: Node, params: set[str], about: Sequence[Node] | None, st: State
) -> None:
    """A function no call of the file reaches gives no frame; its body is `framed` all the same
    when `node` (or a part asked `about`) may read a parameter, by its name or a `let`'s: a
    call of it typed later in another function makes its findings depend on that call."""
    body = child_by_field(fn, "body")
    if body is None:
        return
    words = [set(_WORD.findall(st.unit.text(n))) for n in [node, *(about or ())]]
    reads = params | _let_names(fn, st)
    if any("self" in w for w in words) and _config_owner(fn, st) is not None:
        reads = reads | {"self"}  # a method of a config: `self` is its receiver's value
    if all(reads.isdisjoint(w) for w in words):
        return
    framed(st).add((body.start_byte, body.end_byte))


def _config_owner(fn: Node, st: State) -> scope.Item | None:
    """The `#[derive(Config)]` struct (or hand-written config, `fields.plain_data`) whose
    method `fn` is: its callers' receivers give `self` (a method of another struct is
    followed from the calls the evaluator is asked about, not from its callers:
    `calls.frame_for`)."""
    owner = fields.method_owner(fn, st)
    if owner is None:
        return None
    known = fields.is_config(owner.node, owner.unit) or fields.plain_data(owner.node, owner.unit)
    return owner if known else None


def _outer_frames(call: Node, st: State, top: Frame, level: int) -> list[Frame]:
    """The frames in which `call`'s arguments and receiver may be known: the elements of the
    literal loops around it (`for heads in [2, 4, 6] { split(x, heads) }`), the callers of
    the function it is written in (those of test code only for a call in test code)."""
    outer = loops.frames_at(call, st, top) + frames_at(call, st, top, None, level + 1)
    facts = st.facts()
    if not outer or facts is None or in_test_code(call, facts):
        return outer
    return [f for f in outer if f.call is None or not in_test_code(f.call, facts)]


def _reached_words(node: Node, fn: Node, st: State) -> frozenset[str]:
    """The names `node` writes, and those of the values of the `let`s of `fn` it reads (and
    theirs): a superset of the parameters its value can depend on. Once per node: each rule
    at a call asks about the same parts."""
    key = ("evaluate", "reached-words", node.id, fn.id)
    found: frozenset[str] | None = st.memo.get(key)
    if found is None:
        found = st.memo[key] = frozenset(_words_through_lets(node, fn, st))
    return found


def _words_through_lets(node: Node, fn: Node, st: State) -> set[str]:
    words = set(_WORD.findall(st.unit.text(node)))
    if words.isdisjoint(_let_names(fn, st)):
        return words  # (most expressions: no `let` of the function is read, no walk)
    lets = _lets_of(fn, st)
    todo = [w for w in words if w in lets]
    followed = 0
    while todo and followed < MAX_LETS:
        word = todo.pop()
        followed += 1
        for value in lets.get(word, ()):
            new = set(_WORD.findall(value)) - words
            words |= new
            todo.extend(w for w in new if w in lets)
    return words


def _lets_of(fn: Node, st: State) -> dict[str, list[str]]:
    """The text of the value of each `let name = value;` in `fn`, by name (every one of a
    shadowed name), read from its bytes up to the statement's first `;`: a value holding a
    `;` of its own (a block) is cut there, and names after it are not followed."""
    key = ("evaluate", "lets-of", fn.id)
    found: dict[str, list[str]] | None = st.memo.get(key)
    if found is None:
        found = {}
        text = st.unit.src[fn.start_byte : fn.end_byte]
        for pattern, value in _LET_VALUE.findall(text):
            for name in _WORD.findall(pattern.decode("utf-8", "replace")):
                found.setdefault(name, []).append(value.decode("utf-8", "replace"))
        st.memo[key] = found
    return found


# `let x = ..`, and a pattern's names each bound to the whole value (`let [b, c, h, w] =
# x.dims();`, `let (u, v) = ..`, `let Dims { d_model, .. } = Dims::from(size);`: every word
# of the pattern, a superset of the names it binds)
_PATTERN = rb"[A-Za-z_][\w:]*\s*\{[^=;{}]*\}|[\[(][^=;]*?[\])]|[A-Za-z_]\w*"
_LET_VALUE = re.compile(rb"\blet\s+(?:mut\s+)?(" + _PATTERN + rb")\s*(?::[^=;]*)?=(?!=)([^;]*)")


def _let_names(fn: Node, st: State) -> frozenset[str]:
    """The names the `let`s of `fn` bind (`_lets_of`: a superset), once per fn."""
    key = ("evaluate", "let-names", fn.id)
    found: frozenset[str] | None = st.memo.get(key)
    if found is None:
        found = st.memo[key] = frozenset(_lets_of(fn, st))
    return found


def framed(st: State) -> set[tuple[int, int]]:
    """The byte ranges of the function bodies whose calls asked for their callers' frames in
    this analysis: their findings depend on the other functions' calls of them."""
    found: set[tuple[int, int]] = st.memo.setdefault(("evaluate", "framed"), set())
    return found


def _closure_frames(
    closure: Node, node: Node, st: State, top: Frame, about: Sequence[Node] | None
) -> list[Frame]:
    """A closure bound by `let name = |..| ..`: one frame per call `name(..)` in the rest of
    the block whose arguments give a parameter `node` names a known value."""
    params = _closure_params(closure, st)
    words = set(_WORD.findall(st.unit.text(node)))
    if about is not None and not any(
        set(params) & set(_WORD.findall(st.unit.text(n))) for n in about
    ):
        return []
    named = frozenset(set(params) & words)
    let = closure.parent
    pattern = child_by_field(let, "pattern") if let is not None else None
    block = let.parent if let is not None else None
    if not named or let is None or let.type != "let_declaration" or pattern is None:
        return []
    if pattern.type != "identifier" or block is None:
        return []
    key = ("evaluate", "closure-frames", closure.id, named)
    if key in st.memo:
        return st.memo[key]
    found: list[Frame] = []
    name = st.unit.text(pattern)
    for call in _calls_named(st, name)[:MAX_CALLS_READ]:
        function = child_by_field(call, "function")
        after_let = let.end_byte <= call.start_byte < block.end_byte
        if function is None or function.type != "identifier" or not after_let:
            continue
        binding = st.binding(function)
        if binding is None or binding.decl.id != pattern.id:
            continue  # another `name`: shadowed, or not this closure
        args = call_parts(call)[1]
        given = {}
        for param, arg in zip(params, args, strict=False):
            if param not in named:
                continue
            value = st.value(arg, top, 1)
            if value is None:
                shape = st.shape(arg, top, 1)
                if shape is not None and shape.dims is not None:
                    value = Value(None, span_of(arg), arg, shape=shape)
            if value is not None:
                given[param] = value
        if given:
            label = f"when called as {_shown(call, st)} at {at(call)}"
            found.append(Frame(closure, given, top.calls, label, call=call))
        if len(found) >= MAX_CALLERS:
            break
    st.memo[key] = found
    return found


def _closure_params(closure: Node, st: State) -> list[str]:
    """The names of a closure's parameters in order (`|x: T, n|`); "" for a pattern."""
    params = child_by_field(closure, "parameters")
    out = []
    for param in params.named_children if params is not None else ():
        pattern = child_by_field(param, "pattern") if param.type == "parameter" else param
        out.append(st.unit.text(pattern) if pattern is not None and pattern.type == "identifier"
                   else "")  # fmt: skip
    return out


_WORD = re.compile(r"[A-Za-z_]\w*")


def _param_names(params: Node, st: State) -> set[str]:
    out = set()
    for param in params.named_children:
        pattern = child_by_field(param, "pattern") if param.type == "parameter" else None
        if pattern is not None and pattern.type == "identifier":
            out.add(st.unit.text(pattern))
    return out


def _may_call(
    call: Node, method: bool, owner: str | None, st: State, on_values: bool = False
) -> bool:
    """Whether `call` is written as a call of the function may be: a method (one with `self`)
    as `self.f(..)` (or, with `on_values`, on any receiver: which type's method it calls is
    then told by the receiver's value or type), an associated function by a path through
    `Self` or its type (`owner`), a free function by its name or a path. A method call on
    another receiver, or `Vec::new(..)` for `Model::new`, is another type's."""
    function = child_by_field(call, "function")
    if function is not None and function.type == "generic_function":
        function = child_by_field(function, "function")
    if function is None:
        return False
    if function.type == "field_expression":
        receiver = child_by_field(function, "value")
        return method and receiver is not None and (receiver.type == "self" or on_values)
    if owner is None:
        return True
    path = child_by_field(function, "path") if function.type == "scoped_identifier" else None
    if path is None:
        return False  # an associated function is never called by its bare name
    last = st.unit.text(path).replace(" ", "").split("::")[-1].split("<")[0]
    return last in ("Self", owner)


def _on_value(call: Node) -> bool:
    """A method call on a receiver other than `self` (`cfg.init(d)`)."""
    parts = method_call(call)
    return parts is not None and parts[0].type != "self"


def _on_local(call: Node) -> bool:
    """A method call on a local or a parameter (`model.keep_best(x)`), not on a field."""
    parts = method_call(call)
    return parts is not None and parts[0].type == "identifier"


def _may_be_of(call: Node, owner: scope.Item, st: State) -> bool:
    """Whether the receiver of a method call may be a value of the struct `owner`, by what
    builds it: False when, under its method calls (`.with_x(..)`, `.clone()`), it is a call
    of another type's function (`Other::new(..)`) or a literal of another struct."""
    node: Node | None = call
    for _ in range(_MAX_CHAIN):
        parts = method_call(node) if node is not None else None
        if parts is None:
            break
        node = parts[0]
        while node is not None and node.type in (
            "parenthesized_expression",
            "reference_expression",
        ):
            node = node.named_children[-1] if node.named_children else None
    if node is None:
        return False
    path = None
    if node.type == "call_expression":
        function = child_by_field(node, "function")
        path = (
            child_by_field(function, "path")
            if function is not None and function.type == "scoped_identifier"
            else None
        )
    elif node.type == "struct_expression":
        path = child_by_field(node, "name")
    if path is None or st.unit.text(path) == "Self":
        return True
    item = st.item_at(path)
    return item is not None and item.node.id == owner.node.id and item.unit is owner.unit


_MAX_CHAIN = 16  # method calls followed down a receiver


def _test_caller(call: Node, fn: Node, st: State) -> bool:
    """A call in test code of a function that is not (the rules show no finding from it; a
    `#[cfg(test)]` helper is test code: its body is asked, which the attribute covers)."""
    facts = st.facts()
    body = child_by_field(fn, "body") or fn
    return facts is not None and in_test_code(call, facts) and not in_test_code(body, facts)


def _named_method(call: Node, owner: scope.Item, fn: Node, st: State) -> bool:
    """Whether the method a call on a value of the struct `owner` names is `fn` (the one method
    of that name in the impls of the struct's file)."""
    parts = method_call(call)
    name = child_by_field(owner.node, "name")
    if parts is None or name is None:
        return False
    method = st.unit.text(parts[1])
    key = ("evaluate", "method-of", id(owner.unit), owner.node.id, method)
    if key not in st.memo:
        st.memo[key] = _method(owner.unit, name, method)
    found = st.memo[key]
    return found is not None and found.node.id == fn.id


def _calls_named(st: State, name: str) -> list[Node]:
    """The analysed file's calls written with `name` (`name(..)`, `x.name(..)`, `T::name(..)`),
    found by the name's bytes first, in the whole file (also while one function is
    re-analysed), once per name."""
    facts = st.facts()
    if facts is None or facts.src is not st.unit.src:
        return []  # another file's evaluator: its callers are not looked for
    key = ("evaluate", "calls-named", name)
    found: list[Node] | None = st.memo.get(key)
    if found is None:
        found = st.memo[key] = calls_named(facts.tree, facts.src, (name,))
    return found


def _shown(call: Node, st: State) -> str:
    text = " ".join(st.unit.text(call).split())
    return text if len(text) <= 60 else text[:57] + "..."
