"""syntax: parsing, spans, the iterative walk and call shapes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panic_lens.rust.syntax import (
    call_parts,
    method_call,
    node_text,
    parse,
    path_segments,
    span_of,
    walk,
)


def first(src: bytes, kind: str):  # type: ignore[no-untyped-def]
    return next(n for n in walk(parse(src).root_node) if n.type == kind)


def test_walk_is_preorder_and_complete() -> None:
    tree = parse(b"fn f() { g(1); }")
    kinds = [n.type for n in walk(tree.root_node)]
    assert kinds[:3] == ["source_file", "function_item", "fn"]
    assert kinds.count("call_expression") == 1
    assert len(kinds) == tree.root_node.descendant_count


def test_walk_of_a_subtree_stays_inside_it() -> None:
    call = first(b"fn f() { g(1); h(2); }", "call_expression")
    assert {n.type for n in walk(call)} == {"call_expression", "identifier", "arguments",
                                              "integer_literal", "(", ")"}  # fmt: skip


def test_ten_thousand_deep_expression_walks_without_recursion() -> None:
    src = b"fn f() { let x = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"; }"
    tree = parse(src)
    assert sum(1 for n in walk(tree.root_node) if n.type == "parenthesized_expression") == 10_000


def test_span_uses_byte_columns() -> None:
    src = 'fn f() { let s = "é"; g(); }'.encode()
    call = first(src, "call_expression")
    span = span_of(call)
    assert (span.start.row, span.start.col) == (0, src.index(b"g()"))
    assert node_text(call, src) == "g()"


def test_method_call_parts_with_turbofish_and_comments() -> None:
    src = b"fn f() { x.m::<u8>(a, /* note */ b); }"
    receiver, name, args = method_call(first(src, "call_expression")) or (None, None, [])
    assert receiver is not None and name is not None
    assert (node_text(receiver, src), node_text(name, src)) == ("x", "m")
    assert [node_text(a, src) for a in args] == ["a", "b"]


def test_call_parts_of_a_path_call_and_not_a_method() -> None:
    src = b"fn f() { a::b(1, 2); }"
    call = first(src, "call_expression")
    callee, args = call_parts(call)
    assert callee is not None and node_text(callee, src) == "a::b" and len(args) == 2
    assert method_call(call) is None


def test_path_segments_drop_generics_and_keep_leading_colons() -> None:
    src = b"fn f() { ::burn::Tensor::<2, Int>::zeros(); }"
    callee, _ = call_parts(first(src, "call_expression"))
    assert callee is not None
    assert path_segments(callee, src) == ["", "burn", "Tensor", "zeros"]


@pytest.mark.parametrize(
    ("src", "bangs"),
    [
        (b'println!("{}", x.f());', [7]),
        (b"assert_eq!(a.f(), b);", [9]),
        (b'std::println!("{}", x);', [12]),
        (b"my_println!(x); reprintln!(y);", []),  # other macros: a whole word only
        (b"matches!(x, Some(_)); x != !(y)", []),
        (b'write!(f, "{}", x)?; dbg!(x.f())', [5, 24]),
    ],
)
def test_code_view_reads_the_bang_of_expression_macros_only(src: bytes, bangs: list[int]) -> None:
    from panic_lens.rust.syntax import code_view, macro_bangs

    assert macro_bangs(src) == bangs
    view = code_view(src)
    assert len(view) == len(src)
    assert [i for i, (a, b) in enumerate(zip(src, view, strict=True)) if a != b] == bangs


# Pieces that make and break `name!(` and `vec![` readings when edited next to each other.
_BANG_PIECES = ["println", "vec", "assert", "!", "(", "[", ":", " ", "x", "_", "dbg", "s"]


_bang_pieces = st.lists(st.sampled_from(_BANG_PIECES), max_size=10)


@settings(max_examples=1500, deadline=None)
@given(_bang_pieces, st.data())
def test_bangs_after_an_edit_are_those_of_a_fresh_scan(
    old_pieces: list[str], data: st.DataObject
) -> None:
    """The bangs moved from the old text and searched again around each edit are the ones a
    scan of the whole new text finds, for one edit (a keystroke) or several (a fix). Edits
    start and end between pieces, where a reading is made or broken."""
    from panic_lens.rust.syntax import _bangs_between, _edited_bangs, macro_bangs

    bounds = [0]
    for piece in old_pieces:
        bounds.append(bounds[-1] + len(piece))
    old = "".join(old_pieces).encode()
    edits: list[tuple[int, int, int]] = []
    pieces, done, first = [], 0, 0  # `old` is copied up to `done`; edits in order, apart
    for _ in range(data.draw(st.integers(1, 3))):
        if first >= len(bounds):
            break
        i = data.draw(st.integers(first, len(bounds) - 1))
        j = data.draw(st.integers(i, min(i + 2, len(bounds) - 1)))
        text = "".join(data.draw(st.lists(st.sampled_from(_BANG_PIECES), max_size=2))).encode()
        pieces += [old[done : bounds[i]], text]
        edits.append((bounds[i], bounds[j], len(text)))
        done, first = bounds[j], j + 1
    new = b"".join([*pieces, old[done:]])
    macro_bangs(old)  # the old text's answer is kept, as after its own re-parse
    assert _edited_bangs(old, new, edits) == _bangs_between(new, 0, len(new))


@pytest.mark.parametrize(
    ("src", "view"),
    [
        (b"let v = vec![x.f(), 2];", b"let v =     [x.f(), 2];"),
        (b"f(vec![0; n], vec![])", b"f(    [0; n],     [])"),
        (b"std::vec![1]; myvec![1]; vec!(1, 2)", b"std::vec![1]; myvec![1]; vec!(1, 2)"),
    ],
)
def test_code_view_reads_vec_as_the_array_it_holds(src: bytes, view: bytes) -> None:
    from panic_lens.rust.syntax import code_view, parse_code

    assert code_view(src) == view
    if view != src:
        assert "array_expression" in str(parse_code(b"fn f() { " + src + b" }").root_node)


def test_calls_in_expression_macros_are_call_nodes() -> None:
    from panic_lens.rust.facts import FileFacts

    src = b'fn f() {\n    println!("{}", x.permute([0, 0]));\n'
    src += b"    let v = vec![y.permute([1])];\n}\n"
    facts = FileFacts.build(src, "lib.rs")
    found = [(s.name, s.node.start_point[0]) for s in facts.calls(frozenset({"permute"}))]
    assert found == [("permute", 1), ("permute", 2)]  # `vec![..]` is read as its array


def test_a_struct_literal_s_parts_are_its_written_fields_and_its_base() -> None:
    from panic_lens.rust.syntax import nodes_of_kinds, parse_code, struct_literal_parts

    src = b"fn f(g: usize) { let a = Dims { rows: 3, g, ..Dims::new(4) }; }"
    tree = parse_code(src)
    (literal,) = nodes_of_kinds(tree.root_node, frozenset({"struct_expression"}), 0, len(src))

    def text(node):  # type: ignore[no-untyped-def]
        return src[node.start_byte : node.end_byte].decode()

    written, base = struct_literal_parts(literal, text)
    assert {name: text(v) if v is not None else None for name, v in written.items()} == {
        "rows": "3", "g": "g",
    }  # fmt: skip
    assert base is not None and text(base) == "Dims::new(4)"
    plain = parse_code(b"fn f() { let a = P { x: 1 }; }")
    (lit,) = nodes_of_kinds(plain.root_node, frozenset({"struct_expression"}), 0, 40)
    assert struct_literal_parts(lit, lambda n: "x")[1] is None


def test_a_path_call_s_owner_name_and_args() -> None:
    from panic_lens.rust.syntax import nodes_of_kinds, parse_code, path_call

    src = b"fn f() { a::Cfg::new(3, 4); Cfg::new; x.new(1); new(2); }"
    tree = parse_code(src)
    calls = nodes_of_kinds(tree.root_node, frozenset({"call_expression"}), 0, len(src))

    def text(node):  # type: ignore[no-untyped-def]
        return src[node.start_byte : node.end_byte].decode()

    found = [path_call(c) for c in calls]
    owner, name, args = found[0]  # type: ignore[misc]
    assert (text(owner), text(name), [text(a) for a in args]) == ("a::Cfg", "new", ["3", "4"])
    assert found[1:] == [None, None]  # a method call and a free function's are not
