"""The shape model: three-valued dim equality, negative dims, burn's broadcasting."""

from __future__ import annotations

from panic_lens.evaluate.shapes import (
    Shape,
    Sym,
    broadcast,
    dims_equal,
    norm_dim,
    of_rank,
    shapes_equal,
    unknown,
)

B = Sym("param:x#0", "x.dims[0]")
B_AGAIN = Sym("param:x#0", "batch")  # the same run-time value, read another way
T = Sym("param:y#1", "y.dims[1]")


def test_sym_identity_is_its_key() -> None:
    assert B == B_AGAIN
    assert hash(B) == hash(B_AGAIN)
    assert B != T
    assert str(B) == "x.dims[0]"


def test_dims_equal_is_three_valued() -> None:
    assert dims_equal(3, 3) is True
    assert dims_equal(3, 4) is False
    assert dims_equal(B, B_AGAIN) is True
    assert dims_equal(B, T) is None  # two run-time values may or may not agree
    assert dims_equal(B, 3) is None
    assert dims_equal(None, None) is None  # unknown is related to nothing, not even itself
    assert dims_equal(None, 3) is None


def test_shapes_equal() -> None:
    assert shapes_equal(Shape((B, 3)), Shape((B_AGAIN, 3))) is True
    assert shapes_equal(Shape((B, 3)), Shape((B, 4))) is False
    assert shapes_equal(Shape((B, 3)), Shape((B, 3, 1))) is False
    assert shapes_equal(Shape((B, 3)), Shape((T, 3))) is None
    assert shapes_equal(unknown(), Shape((1,))) is None


def test_rank_numel_and_dim() -> None:
    s = Shape((2, 3, 4))
    assert s.rank == 3
    assert s.numel() == 24
    assert s.dim(-1) == 4
    assert s.dim(3) is None
    assert Shape((B, 3)).numel() is None
    assert unknown().rank is None
    assert of_rank(2).dims == (None, None)
    assert Shape((B, None, 4)).text() == "[x.dims[0], ?, 4]"
    assert unknown().text() == "[?; rank ?]"


def test_steps_accumulate() -> None:
    s = Shape((50, 4, 28), ("zeros([50, 4, 28]) at 54:20",)).then("log_softmax keeps the shape")
    assert s.steps == ("zeros([50, 4, 28]) at 54:20", "log_softmax keeps the shape")
    t = s.to((50, 28, 4), "swap_dims(1, 2)")
    assert t.dims == (50, 28, 4)
    assert t.steps[-1] == "swap_dims(1, 2)"
    assert len(t.steps) == 3


def test_norm_dim_adds_the_rank_to_negative_dims() -> None:
    assert norm_dim(-1, 3) == 2
    assert norm_dim(-3, 3) == 0
    assert norm_dim(-4, 3) is None
    assert norm_dim(3, 3) is None
    assert norm_dim(-1, 3, negative=False) is None
    assert norm_dim(0, None) is None


def test_broadcast_follows_burn() -> None:
    # burn-tensor/src/tensor/api/check.rs, binary_ops_shapes_with_broadcast: [3, 5] with [1, 5]
    assert broadcast((3, 5), (1, 5)) == (3, 5)
    # check.rs, binary_ops_shapes_no_broadcast: [3, 5] with [3, 6] panics -> no output shape
    assert broadcast((3, 5), (3, 6)) is None
    # burn requires the same rank (Tensor<B, D> on both sides)
    assert broadcast((3, 5), (5,)) is None
    # a run-time dim against 1 is kept with its identity; against k > 1 it must be 1 or k
    assert broadcast((B, 1), (1, 4)) == (B, 4)
    assert broadcast((B, 4), (None, 4)) == (None, 4)
    assert broadcast((B, 4), (T, 4)) == (None, 4)
    assert broadcast((B, 4), (B_AGAIN, 4)) == (B, 4)
    assert broadcast((None, 4), (7, 4)) == (7, 4)
