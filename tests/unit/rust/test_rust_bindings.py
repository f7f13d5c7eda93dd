"""bindings: the burn type a receiver holds, through lets, params, fields, chains and UFCS."""

from __future__ import annotations

from panic_lens.rust.facts import FileFacts

HEAD = "use burn::rl::AsyncPolicy;\nuse burn::nn::loss::CTCLossConfig;\n"


def receiver_types(body: str, method: str = "load_record") -> list[str | None]:
    """The type of the receiver of every `.method(..)` call in `body`, in source order."""
    facts = FileFacts.build((HEAD + body).encode())
    out = []
    for site in facts.calls():
        if site.kind == "method" and site.name == method:
            fact = facts.type_of(site.receiver)
            out.append(fact.path if fact else None)
    return out


AP = "burn::rl::AsyncPolicy"


def test_let_constructor_and_chains() -> None:
    body = (
        "fn f() { let p = AsyncPolicy::new(1, b); p.load_record(r);"
        " AsyncPolicy::new(1, b).load_record(r); }"
    )
    assert receiver_types(body) == [AP, AP]
    other = "fn f(p: AsyncPolicy<P>, r: R) { let q = Loader::load_record(p, r); q.load_record(r); }"
    assert receiver_types(other) == [None]  # not burn's: its result type is unknown


def test_declared_types_params_and_references() -> None:
    body = (
        "fn f(a: AsyncPolicy<P>, b: &mut AsyncPolicy<P>) { let c: AsyncPolicy<P> = make();"
        " a.load_record(r); b.load_record(r); c.load_record(r); }"
    )
    assert receiver_types(body) == [AP, AP, AP]


def test_struct_fields_through_self_and_clone() -> None:
    body = (
        "struct Agent<P> { policy: AsyncPolicy<P>, inner: P }\n"
        "impl<P> Agent<P> { fn f(&self) {"
        " self.policy.clone().load_record(r); self.inner.load_record(r); } }"
    )
    assert receiver_types(body) == [AP, None]


def test_shadowing_takes_the_latest_binding() -> None:
    body = (
        "fn f() { let p = AsyncPolicy::new(1, b); let p = inner(); p.load_record(r);"
        " let q = base(); let q = AsyncPolicy::new(1, q); q.load_record(r); }"
    )
    assert receiver_types(body) == [None, AP]


def test_branch_reassignment_and_patterns_are_unknown() -> None:
    body = (
        "fn f(c: bool) { let mut p = AsyncPolicy::new(1, b); if c { p = other(); }"
        " p.load_record(r); let (q, _) = pair(); q.load_record(r); }"
    )
    assert receiver_types(body) == [None, None]


def test_an_assignment_is_seen_however_it_is_written() -> None:
    """A branch that assigns the name makes its value unknown: also with a comment between
    the name and `=`, or a compound assignment; a comparison assigns nothing."""
    head = "fn f(c: bool) { let mut p = AsyncPolicy::new(1, b); "
    assert receiver_types(head + "if c { p /* again */ = other(); } p.load_record(r); }") == [None]
    assert receiver_types(head + "if c {\n p // again\n = other(); } p.load_record(r); }") == [None]
    assert receiver_types(head + "if c { p <<= 1; } p.load_record(r); }") == [None]
    assert receiver_types(head + "if c { p == q; p >= q; q = p; } p.load_record(r); }") == [AP]


def test_state_of_a_policy_is_not_a_policy() -> None:
    assert receiver_types(
        "fn f() { let p = AsyncPolicy::new(1, b); p.state().load_record(r); }"
    ) == [None]


def test_local_type_alias_and_lookalike_type() -> None:
    alias = "type Batched = AsyncPolicy<MyPolicy>;\nfn f(p: Batched) { p.load_record(r); }"
    assert receiver_types(alias) == [AP]
    facts = FileFacts.build(
        b"struct AsyncPolicy;\nfn f() { let p = AsyncPolicy::new(); p.load_record(r); }"
    )
    site = next(s for s in facts.calls() if s.name == "load_record")
    assert facts.type_of(site.receiver) is None


def test_builder_chain_init_gives_the_module_and_origin_line() -> None:
    body = (
        "fn f() {\n    let c = CTCLossConfig::new().with_blank(0).init();\n"
        "    c.forward(a, t, i, l);\n}"
    )
    facts = FileFacts.build((HEAD + body).encode())
    site = next(s for s in facts.calls() if s.name == "forward")
    fact = facts.type_of(site.receiver)
    assert fact is not None and fact.path == "burn::nn::loss::CTCLoss"
    assert fact.origin.start.row == 3 and "line 4" in fact.note


def test_builder_chain_follows_locals_and_keeps_the_last_setting() -> None:
    src = (
        "fn f() { let c = Cfg::new().with_mode(A); let c = c.with_mode(B);"
        " let m = c.init(); m.forward(x); }"
    )
    facts = FileFacts.build(src.encode())
    site = next(s for s in facts.calls() if s.name == "forward")
    chain = facts.builder_chain(site.receiver)
    assert chain is not None
    assert [c.name for c in chain.calls] == ["with_mode", "with_mode", "init"]
    last = chain.last("with_mode")
    assert last is not None and facts.text(last.args[0]) == "B"
    assert facts.text(chain.root) == "Cfg::new()"


def test_value_origin_of_a_let_and_of_an_assignment() -> None:
    src = b"fn f() { let mut w = 3; w = 4096; g(w); }"
    facts = FileFacts.build(src)
    arg = next(s for s in facts.calls() if s.name == "g").args[0]
    origin = facts.value_origin(arg)
    assert origin is not None and facts.text(origin) == "4096"


def test_qualified_calls_resolve_self_type_and_trait() -> None:
    src = (
        HEAD
        + "use burn::rl::Policy;\nfn f() { <AsyncPolicy<_> as Policy>::load_record(p, r);"
        + " Policy::load_record(p, r); }"
    )
    facts = FileFacts.build(src.encode())
    sites = [s for s in facts.calls() if s.name == "load_record"]
    assert (sites[0].kind, sites[0].self_type, sites[0].trait_path) == (
        "qualified",
        AP,
        "burn::rl::Policy",
    )
    assert (sites[1].kind, sites[1].path) == ("path", "burn::rl::Policy::load_record")


def test_training_signals() -> None:
    src = b"use burn::backend::Autodiff;\ntype B = Autodiff<Wgpu>;\nfn f() { loss.backward(); }"
    facts = FileFacts.build(src)
    assert [s.what for s in facts.training_signals()] == [
        "`Autodiff`",
        "`Autodiff`",
        "`.backward()`",
    ]


def test_fields_of_locals_built_by_struct_literals_and_self_constructors() -> None:
    body = (
        "struct Agent<P> { policy: AsyncPolicy<P>, inner: P }\n"
        "impl<P> Agent<P> {\n"
        "    fn new(p: P) -> Self { todo!() }\n"
        "    fn other(p: P) -> Option<Self> { todo!() }\n"
        "}\n"
        "fn f(p: P, r: R) {\n"
        "    let a = Agent { policy: AsyncPolicy::new(1, p.clone()), inner: p };\n"
        "    a.policy.load_record(r);\n"
        "    let b = Agent::new(p);\n"
        "    b.policy.load_record(r);\n"
        "    let c = Agent::other(p);\n"
        "    c.policy.load_record(r);\n"
        "}\n"
    )
    assert receiver_types(body) == [AP, AP, None]


def test_ufcs_calls_that_return_self_keep_the_type() -> None:
    body = (
        "use burn::rl::Policy;\nfn f(p: AsyncPolicy<P>, r: R) {\n"
        "    let q = Policy::load_record(p, r);\n    q.load_record(r);\n"
        "    let c = <AsyncPolicy<P> as Clone>::clone(&q);\n    c.load_record(r);\n}\n"
    )
    assert receiver_types(body) == [AP, AP]
    other = "fn f(p: AsyncPolicy<P>, r: R) { let q = Loader::load_record(p, r); q.load_record(r); }"
    assert receiver_types(other) == [None]  # not burn's: its result type is unknown


def test_a_function_of_the_file_gives_the_burn_type_it_declares() -> None:
    """`let p = make(); p.load_record(r)` with `fn make() -> AsyncPolicy<P>` in the file; a
    function of another file, one declaring another type or none is not read."""
    body = (
        "fn make(n: usize) -> AsyncPolicy<P> { AsyncPolicy::new(n, b) }\n"
        "fn other() -> Policy { Policy }\nfn nothing() { }\n"
        "fn f() { let p = make(1); p.load_record(r); make(2).load_record(r);"
        " other().load_record(r); nothing().load_record(r); elsewhere().load_record(r); }"
    )
    assert receiver_types(body) == [AP, AP, None, None, None]
