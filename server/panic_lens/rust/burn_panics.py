"""Reading one file of burn's source for the guards index (`rust/burn_guards.py`): each
function's panic sites (asserts, `panic!` and its kin, `check!(TensorCheck::..)`, `.expect`),
with the guard under which each fires, its message and the path conditions on the way there
(`if`, `else`, `for`, `if let`, match arms, code that may not run), and the calls it makes
(by path, through a field, on a parameter of a named type, on a config built in place). Items
compiled only for tests or without a cargo feature are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from panic_lens.rust.burn_types import TypeFacts
from panic_lens.rust.syntax import Node, parse

__all__ = ["guards_of_source", "module_of", "split_args"]

ASSERTS = {
    "assert": "assert",
    "assert_eq": "assert_eq",
    "assert_ne": "assert_ne",
    "debug_assert": "assert",
    "debug_assert_eq": "assert_eq",
    "debug_assert_ne": "assert_ne",
}
PANICS = ("panic", "unimplemented", "todo", "unreachable")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_CHECK = re.compile(r"^\s*TensorCheck::(\w+)(?:::<([^()]*)>)?\s*\((.*)\)\s*$", re.S)
_MAX_DEPTH = 200
# A receiver whose type the text shows: `Type::new(..)` with `.with_x(..)` builders after it.
_CONSTRUCTED = re.compile(r"^(?:\w+::)*([A-Z]\w*)::new\(.*\)(?:\.with_\w+\(.*\))*$", re.S)


def _generics(fn: Node, text: Any) -> list[str]:
    """The names of a function's type and const parameters, in the order a turbofish gives
    them (lifetimes left out)."""
    params = fn.child_by_field_name("type_parameters")
    names = []
    for param in params.named_children if params is not None else ():
        if param.type in ("const_parameter", "type_parameter"):
            names.append(text(param.child_by_field_name("name")))
    return names


def guards_of_source(
    src: bytes, rel: str, types: TypeFacts | None = None
) -> dict[str, dict[str, Any]]:
    """Every function of one file, unpruned, keyed `<file>:<line> <Owner>::<name>` (and the
    file's structs and impls into `types`)."""
    tree = parse(src)
    out: dict[str, dict[str, Any]] = {}
    reader = _Reader(src, rel, types)
    for fn in reader.functions(tree.root_node, module_of(rel), None, None):
        key = f"{rel}:{fn['lines'][0]} " + (f"{fn['owner']}::" if fn["owner"] else "") + fn["name"]
        out[key] = fn
    return out


def module_of(rel: str) -> str:
    """`crates/burn-nn/src/modules/norm/group.rs` -> `burn_nn::modules::norm::group`."""
    parts = rel.split("/")
    crate = parts[1].replace("-", "_") if len(parts) > 1 else ""
    inner = parts[3:]
    if inner and inner[-1] in ("lib.rs", "main.rs", "mod.rs"):
        inner = inner[:-1]
    elif inner:
        inner[-1] = inner[-1].removesuffix(".rs")
    return "::".join([crate, *inner])


def split_args(text: str) -> list[str]:
    """Top-level comma-separated parts of `text` (brackets, strings and closures' `|..|` kept)."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            found = _STRING.match(text, i)
            end = found.end() if found else len(text)
            current.append(text[i:end])
            i = end
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and re.match(r"::<", text[i - 2 : i + 1]):
            depth += 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return parts


# `#[cfg(test)]`, `#[test]`, `#[cfg(not(feature = "std"))]` (alone or in an all(..) or any(..))
# code compiled only when a cargo feature is off (`#[cfg(not(feature = "autodiff"))]`): a
# stand-in for the feature's code (`unimplemented!("Requires `autodiff` feature")`), whose
# panic depends on the user's build, which no rule reads; a call of the real code is safe
_FEATURE_OFF = re.compile(r"#\[\s*cfg\s*\(.*not\s*\(\s*feature\s*=", re.S)
_LEFT_OUT = re.compile(r"cfg\s*\(\s*test\s*\)|#\[\s*test\s*\]|" + _FEATURE_OFF.pattern, re.S)


# The receivers of a TensorCheck's `register` (a failure `check!` panics with): the check
# being built in check.rs (`let mut check = Self::Ok;`), or `TensorCheck::Ok` itself.
_TENSOR_CHECK = re.compile(r"check|Self::Ok|(?:\w+::)*TensorCheck::Ok")


def _is_left_out(node: Node, src: bytes) -> bool:
    """A test item, or one only in builds without a cargo feature (`_LEFT_OUT`)."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in (
        "attribute_item",
        "line_comment",
        "block_comment",
    ):
        if sibling.type == "attribute_item":
            text = src[sibling.start_byte : sibling.end_byte].decode("utf-8", "replace")
            if _LEFT_OUT.search(text):
                return True
        sibling = sibling.prev_named_sibling
    return False


def _is_feature_off(node: Node, src: bytes) -> bool:
    """A statement under `#[cfg(not(feature = ..))]` (`_FEATURE_OFF`)."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type == "attribute_item":
        text = src[sibling.start_byte : sibling.end_byte].decode("utf-8", "replace")
        if _FEATURE_OFF.search(text):
            return True
        sibling = sibling.prev_named_sibling
    return False


def _strip_generics(text: str) -> str:
    """`Tensor<B, D, K>` -> `Tensor`, `&mut Foo` -> `Foo`, `crate::a::Foo<T>` -> `Foo`."""
    text = re.sub(r"^&\s*(?:'\w+\s+)?(?:mut\s+)?", "", text.strip())
    head = text.split("<", 1)[0]
    return head.rsplit("::", 1)[-1].strip()


class _Reader:
    def __init__(self, src: bytes, rel: str, types: TypeFacts | None = None) -> None:
        self.src = src
        self.rel = rel
        self.types = types

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        raw = self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")
        return re.sub(r"\s+", " ", raw).strip()

    def functions(
        self, node: Node, module: str, owner: str | None, trait: str | None
    ) -> Iterator[dict[str, Any]]:
        for child in node.named_children:
            kind = child.type
            if kind in (
                "mod_item",
                "function_item",
                "impl_item",
                "trait_item",
                "struct_item",
            ) and _is_left_out(child, self.src):
                continue
            if kind == "function_item":
                yield self.function(child, module, owner, trait)
            elif kind == "mod_item":
                body = child.child_by_field_name("body")
                name = self.text(child.child_by_field_name("name"))
                if body is not None and name not in ("tests", "test"):
                    yield from self.functions(body, f"{module}::{name}", None, None)
            elif kind == "struct_item" and self.types is not None:
                self.types.add_struct(child, module, self.text)
            elif kind == "impl_item":
                if self.types is not None:
                    self.types.add_impl(child, module, self.rel, self.text)
                body = child.child_by_field_name("body")
                if body is not None:
                    type_ = _strip_generics(self.text(child.child_by_field_name("type")))
                    trait_node = child.child_by_field_name("trait")
                    trait_name = _strip_generics(self.text(trait_node)) if trait_node else None
                    yield from self.functions(body, module, type_, trait_name)
            elif kind == "trait_item":
                body = child.child_by_field_name("body")
                if body is not None:
                    name = self.text(child.child_by_field_name("name"))
                    yield from self.functions(body, module, name, name)

    def function(
        self, node: Node, module: str, owner: str | None, trait: str | None
    ) -> dict[str, Any]:
        vis = next((self.text(c) for c in node.children if c.type == "visibility_modifier"), "")
        if not vis and trait is not None:
            vis = "trait"
        params: list[list[str]] = []
        self_param = None
        plist = node.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else ():
            if p.type == "self_parameter":
                self_param = self.text(p)
            elif p.type == "parameter":
                params.append(
                    [
                        self.text(p.child_by_field_name("pattern")).removeprefix("mut "),
                        self.text(p.child_by_field_name("type")),
                    ]
                )
        fn: dict[str, Any] = {
            "name": self.text(node.child_by_field_name("name")),
            "owner": owner,
            "trait": trait,
            "vis": vis,
            "module": module,
            "file": self.rel,
            "lines": [node.start_point[0] + 1, node.end_point[0] + 1],
            "params": params,
            "self": self_param,
            "returns": self.text(node.child_by_field_name("return_type")) or None,
            "generics": _generics(node, self.text),
            "lets": {},
            "panics": [],
            "calls": [],
        }
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, [], fn, 0)
        return fn

    # -- the body walk: panic sites and calls, with the path conditions on the way

    def visit(self, node: Node, path: list[list[str]], fn: dict[str, Any], depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        kind = node.type
        if kind in ("function_item", "impl_item", "mod_item", "trait_item"):
            return  # nested items are functions of their own
        if kind == "block":
            self.block(node, path, fn, depth)
            return
        if kind == "if_expression":
            self.if_expr(node, path, fn, depth)
            return
        if kind == "for_expression":
            pattern = self.text(node.child_by_field_name("pattern"))
            value = node.child_by_field_name("value")
            if value is not None:
                self.visit(value, path, fn, depth + 1)
            body = node.child_by_field_name("body")
            if body is not None:
                self.visit(body, [*path, ["for", pattern, self.text(value)]], fn, depth + 1)
            return
        if kind in ("while_expression", "loop_expression", "closure_expression"):
            # a body that may run no time at all (or stop before the panic): kept opaque, so
            # a panic in it is never reported as certain; but an array parameter's `.map(|x| ..)`
            # runs it for every item, as a `for` loop does
            label = {"while_expression": "a while loop", "loop_expression": "a loop"}
            each = self._array_map(node, fn) if kind == "closure_expression" else None
            inner = [*path, each or ["opaque", label.get(kind, "a closure")]]
            for child in node.named_children:
                self.visit(child, inner, fn, depth + 1)
            return
        if kind == "match_expression":
            value = node.child_by_field_name("value")
            scrutinee = self.text(value)
            if value is not None:
                self.visit(value, path, fn, depth + 1)
            body = node.child_by_field_name("body")
            earlier: list[str] = []
            for arm in body.named_children if body is not None else ():
                if arm.type != "match_arm":
                    continue
                pattern = self.text(arm.child_by_field_name("pattern"))
                inner = [*path, ["arm", scrutinee, pattern, *earlier]]
                earlier.append(pattern)
                value_node = arm.child_by_field_name("value")
                if value_node is not None:
                    self.visit(value_node, inner, fn, depth + 1)
            return
        if kind == "macro_invocation":
            self.macro(node, path, fn)
            return
        if kind == "let_declaration":
            bound = node.child_by_field_name("pattern")
            value = node.child_by_field_name("value")
            line = node.start_point[0] + 1
            if bound is not None and value is not None and bound.type == "identifier":
                fn["lets"].setdefault(self.text(bound), []).append([line, self.text(value)])
            elif bound is not None and value is not None and bound.type == "slice_pattern":
                # `let [a, _, c] = x.dims();`: each name is one element
                names = [self.text(c) for c in bound.children if c.type not in ("[", "]", ",")]
                if all(re.fullmatch(r"[a-z_]\w*", n) for n in names):
                    for index, name in enumerate(names):
                        if name != "_":
                            fn["lets"].setdefault(name, []).append(
                                [line, f"({self.text(value)})[{index}]"]
                            )
        if kind == "call_expression":
            self.call(node, path, fn)
        if kind == "struct_expression" and str(fn["owner"] or "").endswith("Config"):
            self._builds(node, fn)
        for child in node.named_children:
            self.visit(child, path, fn, depth + 1)

    def _builds(self, node: Node, fn: dict[str, Any]) -> None:
        """A config's method building a struct (`Conv2d { groups: self.groups, .. }`): each
        field's value, so that a module's field reads as the config's values it was made of."""
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            return
        type_ = self.text(
            name.child_by_field_name("type") if name.type != "type_identifier" else name
        )
        fields: dict[str, str] = {}
        for item in body.named_children:
            if item.type == "field_initializer":
                fields[self.text(item.child_by_field_name("field"))] = self.text(
                    item.child_by_field_name("value")
                )
            elif item.type == "shorthand_field_initializer":
                fields[self.text(item)] = self.text(item)
        if type_[:1].isupper() and fields:
            fn.setdefault("builds", {})[type_] = fields

    def _array_map(self, closure: Node, fn: dict[str, Any]) -> list[str] | None:
        """`["for", x, xs]` for `xs.map(|x| ..)` where `xs` is an array parameter (`[usize; N]`:
        an array's `map` calls the closure on each item, now; an iterator's is lazy)."""
        args = closure.parent
        call = args.parent if args is not None and args.type == "arguments" else None
        function = call.child_by_field_name("function") if call is not None else None
        if args is None or function is None or function.type != "field_expression":
            return None
        if (
            self.text(function.child_by_field_name("field")) != "map"
            or len(args.named_children) > 1
        ):
            return None
        receiver = self.text(function.child_by_field_name("value"))
        arrays = {name for name, type_ in fn["params"] if re.fullmatch(r"\[.+;.+\]", type_)}
        params = closure.child_by_field_name("parameters")
        names = [self.text(c) for c in params.named_children] if params is not None else []
        if receiver not in arrays or len(names) != 1 or not re.fullmatch(r"[a-z_]\w*", names[0]):
            return None
        return ["for", names[0], receiver]

    def block(self, node: Node, path: list[list[str]], fn: dict[str, Any], depth: int) -> None:
        current = list(path)
        for child in node.named_children:
            if child.type != "attribute_item" and _is_feature_off(child, self.src):
                off = [*current, ["opaque", "code compiled only without a cargo feature"]]
                self.visit(child, off, fn, depth + 1)
                continue
            self.visit(child, current, fn, depth + 1)
            target = child.named_children[0] if child.type == "expression_statement" else child
            leaves = self._leaves(target) if target is not None else None
            if leaves == "break":  # later iterations may never run: what follows is opaque
                current = [*current, ["opaque", "a loop after a break"]]
            elif leaves is not None and target is not None:
                cond = self.condition(target)
                if cond is not None and cond[0] == "if":
                    current = [*current, ["else", cond[1]]]
                else:
                    current = [*current, ["opaque", "code after an early exit"]]

    def _leaves(self, node: Node) -> str | None:
        """`if c { ..; return/continue/break }` with no else: the code after it runs only
        when !c ("return" or "continue"), or only until the loop stops ("break")."""
        if node.type != "if_expression" or node.child_by_field_name("alternative") is not None:
            return None
        body = node.child_by_field_name("consequence")
        if body is None or not body.named_children:
            return None
        last = body.named_children[-1]
        if last.type == "expression_statement" and last.named_children:
            last = last.named_children[0]
        return {
            "return_expression": "return", "continue_expression": "continue",
            "break_expression": "break",
        }.get(last.type)  # fmt: skip

    def condition(self, node: Node) -> list[str] | None:
        cond = node.child_by_field_name("condition")
        if cond is None:
            return None
        if cond.type == "let_condition":
            pattern = self.text(cond.child_by_field_name("pattern"))
            value = self.text(cond.child_by_field_name("value"))
            return ["iflet", pattern, value]
        return ["if", self.text(cond)]

    def if_expr(self, node: Node, path: list[list[str]], fn: dict[str, Any], depth: int) -> None:
        cond_node = node.child_by_field_name("condition")
        if cond_node is not None:
            self.visit(cond_node, path, fn, depth + 1)
        cond = self.condition(node) or ["if", "?"]
        chain = self._let_chain(cond_node)
        consequence = node.child_by_field_name("consequence")
        if consequence is not None:
            self.visit(consequence, [*path, *(chain or [cond])], fn, depth + 1)
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            negated = ["else", cond[1]] if cond[0] == "if" else ["else-let", *cond[1:]]
            if chain:  # some part of the chain failed: which one is not said
                negated = ["opaque", "the else of a let chain"]
            for child in alternative.named_children:
                self.visit(child, [*path, negated], fn, depth + 1)

    def _let_chain(self, cond: Node | None) -> list[list[str]] | None:
        """`if let Some(w) = &x && d > 1 {`: each part, in order (`iflet`, `if`)."""
        if cond is None or cond.type != "let_chain":
            return None
        parts: list[list[str]] = []
        for part in cond.named_children:
            if part.type == "let_condition":
                pattern = self.text(part.child_by_field_name("pattern"))
                parts.append(["iflet", pattern, self.text(part.child_by_field_name("value"))])
            else:
                parts.append(["if", self.text(part)])
        return parts

    def macro(self, node: Node, path: list[list[str]], fn: dict[str, Any]) -> None:
        name = self.text(node.child_by_field_name("macro")).rsplit("::", 1)[-1]
        tokens = next((c for c in node.named_children if c.type == "token_tree"), None)
        inner = self.text(tokens)[1:-1] if tokens is not None else ""
        args = split_args(inner)
        line = node.start_point[0] + 1
        site: dict[str, Any] | None = None
        if name in ASSERTS:
            form = ASSERTS[name]
            need = 1 if form == "assert" else 2
            if len(args) >= need:
                if form == "assert":
                    guard = f"!({args[0]})"
                elif form == "assert_eq":
                    guard = f"({args[0]}) != ({args[1]})"
                else:
                    guard = f"({args[0]}) == ({args[1]})"
                site = {"kind": form, "guard": guard, "message": _message(args[need:])}
                if name.startswith("debug_"):
                    site["debug"] = True
        elif name in PANICS:
            site = {"kind": name, "guard": None, "message": _message(args)}
        elif name == "check" and len(args) == 1:
            found = _CHECK.match(args[0])
            if found:
                site = {
                    "kind": "check",
                    "guard": None,
                    "message": None,
                    "check": found.group(1),
                    "args": split_args(found.group(3)),
                }
                if found.group(2):  # `TensorCheck::unsqueeze::<D, D2>(..)`
                    site["generics"] = split_args(found.group(2))
        if site is not None:
            site["line"] = line
            site["path"] = [list(p) for p in path]
            fn["panics"].append(site)

    def call(self, node: Node, path: list[list[str]], fn: dict[str, Any]) -> None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None:
            return
        args = [self.text(a) for a in arguments.named_children] if arguments is not None else []
        line = node.start_point[0] + 1
        if function.type == "field_expression":
            method = self.text(function.child_by_field_name("field"))
            receiver = self.text(function.child_by_field_name("value"))
            if method == "register" and args:
                if not _TENSOR_CHECK.fullmatch(receiver):
                    return  # a registry's `register` (metrics, fusion, streams): no panic
                message = _first_string(" ".join(args[1:]))
                fn["panics"].append(
                    {"kind": "register", "guard": None, "message": message, "line": line,
                     "path": [list(p) for p in path], "op": _first_string(args[0])}
                )  # fmt: skip
                return
            if method == "expect" and len(args) == 1 and args[0].startswith('"'):
                fn["panics"].append(
                    {"kind": "expect", "guard": f"{receiver} fails", "cheap": True,
                     "message": _first_string(args[0]), "line": line,
                     "path": [list(p) for p in path]}
                )  # fmt: skip
                return
            params = [name for name, _ in fn["params"]]
            if method == "expect" and len(args) == 1 and args[0] in params:
                # the message is the caller's: `check_nonzero(groups, "groups must be ..")`
                fn["panics"].append(
                    {"kind": "expect", "guard": f"{receiver} fails", "cheap": True,
                     "message": None, "message_param": params.index(args[0]), "line": line,
                     "path": [list(p) for p in path]}
                )  # fmt: skip
                return
            through = re.fullmatch(r"self\.([a-z_]\w*)", receiver)
            if through:  # a call through a field: its type is resolved once all is read
                fn["calls"].append(
                    {"callee": f"self.{through.group(1)}.{method}", "field": through.group(1),
                     "args": args, "line": line, "path": [list(p) for p in path]}
                )  # fmt: skip
                return
            if receiver == "self":
                fn["calls"].append(
                    {"callee": f"self.{method}", "args": args, "line": line,
                     "path": [list(p) for p in path]}
                )  # fmt: skip
                return
            typed = _parameter_type(receiver, fn)
            if typed is not None:  # `options.assert_valid(..)` on `options: StftOptions`
                fn["calls"].append(
                    {"callee": f"{typed}::{method}", "via": receiver, "args": args,
                     "line": line, "path": [list(p) for p in path]}
                )  # fmt: skip
                return
            built = _CONSTRUCTED.match(receiver)
            if built:  # `XConfig::new(..).with_f(..).init(..)`: the receiver's type is known
                fn["calls"].append(
                    {"callee": f"{built.group(1)}::{method}", "receiver": receiver, "args": args,
                     "line": line, "path": [list(p) for p in path]}
                )  # fmt: skip
            return  # other receivers' types are not known here
        if function.type in ("identifier", "scoped_identifier", "generic_function"):
            callee = self.text(function)
            callee = re.sub(r"::<.*>$", "", callee)
            fn["calls"].append(
                {"callee": callee, "args": args, "line": line, "path": [list(p) for p in path]}
            )


# a parameter's type as a plain named type: `StftOptions`, `&PaddingConfig2d`, `&mut Foo<B>`
_NAMED_TYPE = re.compile(r"&?\s*(?:'\w+\s+)?(?:mut\s+)?(?:\w+::)*([A-Z]\w*)(?:<.*>)?", re.S)


def _parameter_type(receiver: str, fn: dict[str, Any]) -> str | None:
    """The type a method is called on when the receiver is a parameter of a named type (not
    one of the function's generics: a trait's method, whose impl is not known here)."""
    for name, type_ in fn["params"]:
        if name == receiver:
            found = _NAMED_TYPE.fullmatch(type_.strip())
            if found is None or found.group(1) in fn.get("generics", ()):
                return None
            return found.group(1)
    return None


def _first_string(text: str) -> str | None:
    found = _STRING.search(text)
    if found is None:
        return None
    body = found.group(0)[1:-1]
    return re.sub(r"\\\s+", "", body).replace('\\"', '"')


def _message(args: list[str]) -> str | None:
    return _first_string(args[0]) if args else None
