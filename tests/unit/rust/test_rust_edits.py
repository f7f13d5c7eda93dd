"""edits: insertions, statement deletion and `use` additions keep the source parseable."""

from __future__ import annotations

from panic_lens.rust.edits import (
    apply_edits,
    delete_statement,
    insert_statement_before,
    insert_use,
)
from panic_lens.rust.syntax import has_error, parse, walk


def first(src: bytes, kind: str):  # type: ignore[no-untyped-def]
    return next(n for n in walk(parse(src).root_node) if n.type == kind)


def test_insert_statement_before_keeps_indentation() -> None:
    src = b"fn f() {\n    let p = g();\n}\n"
    edit = insert_statement_before(src, first(src, "let_declaration"), "let b = h();")
    assert apply_edits(src, [edit]) == b"fn f() {\n    let b = h();\n    let p = g();\n}\n"


def test_delete_statement_removes_its_line_or_only_itself() -> None:
    src = b"fn f() {\n    a();\n    b();\n}\n"
    stmt = first(src, "expression_statement")
    assert apply_edits(src, [delete_statement(src, stmt)]) == b"fn f() {\n    b();\n}\n"
    shared = b"fn f() { a(); b(); }\n"
    stmt = first(shared, "expression_statement")
    assert apply_edits(shared, [delete_statement(shared, stmt)]) == b"fn f() {  b(); }\n"


def test_insert_use_after_the_last_use_or_after_inner_attributes() -> None:
    with_uses = b"use a::B;\nuse c::D;\n\nfn f() {}\n"
    edit = insert_use(with_uses, parse(with_uses).root_node, "burn::rl::PolicyState")
    assert apply_edits(with_uses, [edit]).startswith(
        b"use a::B;\nuse c::D;\nuse burn::rl::PolicyState;\n"
    )
    attrs = b"#![allow(unused)]\n//! Docs.\nfn f() {}\n"
    fixed = apply_edits(attrs, [insert_use(attrs, parse(attrs).root_node, "x::Y")])
    assert fixed == b"#![allow(unused)]\n//! Docs.\nuse x::Y;\nfn f() {}\n"


def test_insert_use_into_a_mod_body() -> None:
    src = b"mod m {\n    fn f() {}\n}\n"
    body = first(src, "declaration_list")
    fixed = apply_edits(src, [insert_use(src, body, "x::Y")])
    assert not has_error(parse(fixed)) and b"mod m {\n    use x::Y;\n" in fixed
