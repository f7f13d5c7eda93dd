"""burn's tensor ops as data: each case is read from burn's own docs or tests (v0.22.0-pre.2),
cited above it as file and function (paths under burn's `crates/`)."""

from __future__ import annotations

import pytest

from panic_lens.evaluate.ops import (
    binary_shape,
    function_shape,
    method_outputs,
    method_shape,
    table,
)
from panic_lens.evaluate.shapes import Shape, Span, Sym

B = Sym("param:x#0", "x.dims[0]")
T = Sym("param:x#1", "x.dims[1]")
BT = "burn-backend-tests/tests/tensor/float/ops"
API = "burn-tensor/src/tensor/api"


def S(*dims: object) -> Shape:  # reads like burn's Shape::new
    return Shape(tuple(dims), ("input",))  # type: ignore[arg-type]


def dims(shape: Shape | None) -> object:
    return None if shape is None else shape.dims


METHOD_CASES = [
    # {API}/float.rs log_softmax/exp/tanh and numeric.rs abs, neg: element-wise, Self
    ("exp", S(50, 4, 28), [], (50, 4, 28)),
    ("abs", S(B, 3), [], (B, 3)),
    # {API}/numeric.rs `sum_dim` doc: [[1,-2,3],[5,9,6]].sum_dim(0) -> [[6,7,9]]; (1) -> [[2],[20]]
    ("sum_dim", S(2, 3), [0], (1, 3)),
    ("sum_dim", S(2, 3), [1], (2, 1)),
    ("sum_dim", S(B, 3), [-1], (B, 1)),
    # {API}/numeric.rs `sum` doc and `mean` doc: a Tensor<1> of one element
    ("sum", S(2, 3), [], (1,)),
    ("mean", S(B, 3), [], (1,)),
    # {API}/orderable.rs `argmax` doc: ones([2, 3, 3]).argmax(1) -> Shape [2, 1, 3]
    ("argmax", S(2, 3, 3), [1], (2, 1, 3)),
    # {API}/orderable.rs `max_dim` doc: [[1,-2,3],[5,9,6]].max_dim(0) -> [[5, 9, 6]]
    ("max_dim", S(2, 3), [0], (1, 3)),
    # {BT}/reshape.rs should_support_dim_infererence: [4, 3] -> [2, -1] = [2, 6]
    ("reshape", S(4, 3), [[2, -1]], (2, 6)),
    ("reshape", S(2, 6), [[0, 2, -1]], (2, 2, 3)),
    ("reshape", S(4, 3), [[-1]], (12,)),
    ("reshape", S(4, 3), [[0, 3]], (4, 3)),
    # {API}/base.rs `reshape` doc: [1, 3, 4] with [0, -1] -> [1, 12]; a run-time batch is kept
    ("reshape", S(1, 3, 4), [[0, -1]], (1, 12)),
    ("reshape", S(B, 3, 4), [[0, -1]], (B, 12)),
    ("reshape", S(B, 3, 4), [[12, -1]], (12, B)),
    # {BT}/reshape.rs multiple_neg_ones / neg_value: burn panics -> no shape
    ("reshape", S(3), [[-1, -1]], None),
    ("reshape", S(3), [[-2, -1]], None),
    # {API}/base.rs `reshape` "# Panics": another number of elements
    ("reshape", S(2, 3), [[4, 2]], None),
    ("reshape", S(2, 3), [S(3, 2)], (3, 2)),
    # an unknown `dim` argument keeps the rank; a known one out of range makes burn panic
    ("sum_dim", S(2, 3), [None], (None, None)),
    ("sum_dim", S(2, 3), [2], None),
    ("topk", S(2, 3), [2, -3], None),
    # {API}/base.rs `swap_dims` doc: [2, 3].swap_dims(0, -1) -> [3, 2]
    ("swap_dims", S(2, 3), [0, -1], (3, 2)),
    ("swap_dims", S(B, 4, 28), [1, 2], (B, 28, 4)),
    # {API}/base.rs `swap_dims` "# Panics: When dimensions are out of bounds"
    ("swap_dims", S(2, 3), [0, 2], None),
    ("swap_dims", S(2, 3), [0, None], (None, None)),
    # {API}/base.rs `transpose` doc: [1, 2, 3, 4] -> [1, 2, 4, 3]
    ("transpose", S(1, 2, 3, 4), [], (1, 2, 4, 3)),
    # {API}/base.rs `permute` doc: [3, 2].permute([1, 0]) -> [2, 3]
    ("permute", S(3, 2), [[1, 0]], (2, 3)),
    ("permute", S(B, 3, 4), [[0, -1, 1]], (B, 4, 3)),
    # {BT}/movedim.rs movedim_float (torch: arange(24).reshape(2,3,4).movedim(0, 2))
    ("movedim", S(2, 3, 4), [0, 2], (3, 4, 2)),
    ("movedim", S(2, 3, 4), [0, -1], (3, 4, 2)),
    # {BT}/movedim.rs vec_input_float: movedim([0, 1], [1, 0]) on [2, 3, 4]
    ("movedim", S(2, 3, 4), [[0, 1], [1, 0]], (3, 2, 4)),
    ("movedim", S(2, 3, 4), [[-3, -2], [-2, -3]], (3, 2, 4)),
    # {BT}/flatten.rs should_flatten_to_1d/_middle/_begin/_end/_end_negative_indices
    ("flatten", S(2, 3, 4, 5), [0, 3], (120,)),
    ("flatten", S(2, 3, 4, 5), [1, 2], (2, 12, 5)),
    ("flatten", S(2, 3, 4, 5), [0, 2], (24, 5)),
    ("flatten", S(2, 3, 4, 5), [1, 3], (2, 60)),
    ("flatten", S(2, 3, 4, 5), [-3, -1], (2, 60)),
    ("flatten", S(B, 3, 4), [1, 2], (B, 12)),
    # {BT}/flatten.rs should_flatten_panic: start > end
    ("flatten", S(2, 3, 4, 5), [2, 0], None),
    # {BT}/squeeze.rs should_squeeze_dim, _first, _last, should_squeeze, _all_dims
    ("squeeze_dim", S(2, 1, 4), [1], (2, 4)),
    ("squeeze_dim", S(1, 3, 4, 5), [0], (3, 4, 5)),
    ("squeeze_dim", S(2, 3, 4, 1), [3], (2, 3, 4)),
    ("squeeze", S(2, 1, 4), [], (2, 4)),
    ("squeeze", S(1, 3, 1), [], (3,)),
    # {BT}/squeeze.rs should_squeeze_panic (dim of 4) and squeeze_all_singleton_not_supported
    ("squeeze_dim", S(2, 3, 4, 5), [2], None),
    ("squeeze", S(1, 1, 1), [], None),
    # {BT}/squeeze.rs should_squeeze_dims_with_positive/negative_indices, _with_empty_slice
    ("squeeze_dims", S(1, 3, 1, 5), [[0, 2]], (3, 5)),
    ("squeeze_dims", S(2, 1, 3, 1), [[-3, -1]], (2, 3)),
    ("squeeze_dims", S(1, 1, 3), [[]], (3,)),
    # {BT}/negative_dims.rs shape_operations_support_negative_dims: squeeze_dim(-3) of [2,1,3,1]
    ("squeeze_dim", S(2, 1, 3, 1), [-3], (2, 3, 1)),
    # {BT}/squeeze.rs should_unsqueeze_dim, _first, _last
    ("unsqueeze_dim", S(2, 4, 1), [1], (2, 1, 4, 1)),
    ("unsqueeze_dim", S(2, 3, 4, 5), [0], (1, 2, 3, 4, 5)),
    ("unsqueeze_dim", S(5, 4, 3, 2), [4], (5, 4, 3, 2, 1)),
    # {BT}/negative_dims.rs: unsqueeze_dim(-1) of [2, 3] is unsqueeze_dim(2)
    ("unsqueeze_dim", S(2, 3), [-1], (2, 3, 1)),
    ("unsqueeze_dim", S(B, 3), [-3], (1, B, 3)),
    # {BT}/squeeze.rs should_unsqueeze_dim_panic: dim 5 of a rank-4 tensor
    ("unsqueeze_dim", S(2, 3, 4, 5), [5], None),
    # {BT}/squeeze.rs should_unsqueeze_dims_support_dim_inference, _handle_first_last,
    # _multiple_trailing_negatives, _consecutive_first_then_gap, _handle_duplicate_axes_after_sort,
    # _handle_repeated_zero_axes, _handle_repeated_middle_axes
    ("unsqueeze_dims", S(3, 4, 5), [[1, -2]], (3, 1, 4, 1, 5)),
    ("unsqueeze_dims", S(3, 4, 5), [[0, 4]], (1, 3, 4, 5, 1)),
    ("unsqueeze_dims", S(3, 4, 5), [[0, -1, -1]], (1, 3, 4, 5, 1, 1)),
    ("unsqueeze_dims", S(3, 4, 5), [[0, 1, 3]], (1, 1, 3, 1, 4, 5)),
    ("unsqueeze_dims", S(4), [[-1, 0, 0]], (1, 1, 4, 1)),
    ("unsqueeze_dims", S(5), [[0, 0]], (1, 1, 5)),
    ("unsqueeze_dims", S(5), [[1, 1, 1]], (5, 1, 1, 1)),
    # {BT}/squeeze.rs should_unsqueeze_dims_panic_duplicate_pushed_out_of_range
    ("unsqueeze_dims", S(4), [[2, 2]], None),
    # {API}/base.rs `narrow` doc: [4, 3].narrow(0, 1, 3) -> [3, 3]
    ("narrow", S(4, 3), [0, 1, 3], (3, 3)),
    # {BT}/negative_dims.rs partition_operations_support_negative_dims: narrow(-1, 1, 2)
    ("narrow", S(2, 3), [-1, 1, 2], (2, 2)),
    ("narrow", S(B, 10), [1, 0, 4], (B, 4)),
    # {API}/base.rs `slice` doc: [4, 6].slice([1..3, 2..5]) -> [2, 3]
    ("slice", S(4, 6), [[Span(1, 3), Span(2, 5)]], (2, 3)),
    # `s![0..4;2, ..;-1]` -> [2, 6]
    ("slice", S(4, 6), [[Span(0, 4, 2), Span(0, None, -1, True)]], (2, 6)),
    # [4, 6, 8].slice(s![1..3, ..;2, -3..]) -> [2, 3, 3]
    (
        "slice",
        S(4, 6, 8),
        [[Span(1, 3), Span(0, None, 2, True), Span(-3, None, 1, True)]],
        (2, 3, 3),
    ),
    # [4, 6].slice(s![-2.., ..-1]) -> [2, 5]
    ("slice", S(4, 6), [[Span(-2, None, 1, True), Span(0, -1)]], (2, 5)),
    # arange(0..10).slice(2..8) -> 6 elements; s![0..10;2] -> 5; a run-time dim kept by `..`
    ("slice", S(10), [Span(2, 8)], (6,)),
    ("slice", S(10), [Span(0, 10, 2)], (5,)),
    ("slice", S(B, 6), [[Span(0, None, 1, True), Span(1, 3)]], (B, 2)),
    ("slice", S(B, 6), [[Span(0, 2)]], (None, 6)),
    # {API}/base.rs `select_dim` doc: [2, 3].select_dim(0, 1) -> [3]; select_dim(1, 1) -> [2]
    ("select_dim", S(2, 3), [0, 1], (3,)),
    ("select_dim", S(2, 3), [1, 1], (2,)),
    # select_dim is `slice_dim(dim, index).squeeze_dim(dim)`: an index past the end leaves
    # 0 elements and squeeze_dim panics
    ("select_dim", S(2, 3), [1, 5], None),
    # {API}/base.rs `repeat_dim` doc: [3, 2].repeat_dim(0, 2) -> [6, 2]; `repeat` doc: &[2, 1]
    ("repeat_dim", S(3, 2), [0, 2], (6, 2)),
    ("repeat", S(3, 2), [[2, 1]], (6, 2)),
    # {BT}/negative_dims.rs concatenation_and_repeat_support_negative_dims: repeat_dim(-1, 2)
    ("repeat_dim", S(2, 3), [-1, 2], (2, 6)),
    # {BT}/repeat.rs should_support_repeat_ops_one_dimension: [1, 3] with &[4, 1, 1] -> [4, 3]
    ("repeat", S(1, 3), [[4, 1, 1]], (4, 3)),
    # {BT}/repeat.rs should_support_float_repeat_repeating_on_many_dimensions, _0_times_empty
    ("repeat", S(4, 2, 2), [[2, 3, 2]], (8, 6, 4)),
    ("repeat", S(2, 3, 4), [[1, 0, 2]], (2, 0, 8)),
    # {BT}/expand.rs expand_2d, expand_3d, expand_higher_dimensions, broadcast_single
    ("expand", S(3), [[3, 3]], (3, 3)),
    ("expand", S(4), [[2, 4]], (2, 4)),
    ("expand", S(2, 2), [[3, 2, 2]], (3, 2, 2)),
    ("expand", S(1, 4), [[2, 3, 4]], (2, 3, 4)),
    ("expand", S(1), [[2, 3]], (2, 3)),
    # {API}/base.rs BroadcastArgs for [E; D2]: -1 keeps the source dim (right-aligned)
    ("expand", S(B, 1), [[2, -1, 5]], (2, B, 5)),
    # {BT}/matmul.rs test_float_matmul_d2: [3, 2] @ [2, 2]; _broadcast_1: [1,2,2] @ [2,2,2]
    ("matmul", S(3, 2), [S(2, 2)], (3, 2)),
    ("matmul", S(1, 2, 2), [S(2, 2, 2)], (2, 2, 2)),
    # {BT}/matmul.rs test_float_matmul_broadcast_4d: [2, 1, 2, 2] @ [1, 2, 2, 2] -> [2, 2, 2, 2]
    ("matmul", S(2, 1, 2, 2), [S(1, 2, 2, 2)], (2, 2, 2, 2)),
    # {BT}/matmul.rs test_float_matmul_batch_vec_mat: [3, 1, 2] @ [1, 2, 3] -> [3, 1, 3]
    ("matmul", S(3, 1, 2), [S(1, 2, 3)], (3, 1, 3)),
    ("matmul", S(B, 4, 8), [S(B, 8, 16)], (B, 4, 16)),
    # burn-ndarray/src/ops/matmul.rs output_shape: inner dims must agree
    ("matmul", S(3, 2), [S(3, 2)], None),
    # {BT}/gather_scatter.rs should_gather_2d_dim1: [2, 3] with indices [2, 4] -> [2, 4]
    ("gather", S(2, 3), [1, S(2, 4)], (2, 4)),
    # {BT}/select.rs should_select_1d: [3] with 5 indices -> [5]; _2d_dim0: 2 indices
    ("select", S(3), [0, S(5)], (5,)),
    ("select", S(2, 3), [0, S(2)], (2, 3)),
    # {BT}/one_hot.rs float_should_support_one_hot: [3].one_hot(5) -> [3, 5]
    ("one_hot", S(3), [5], (3, 5)),
    # {BT}/one_hot.rs one_hot_fill_with_negative_axis_and_indices / _at_start
    ("one_hot_fill", S(2, 2), [3, 5.0, 0.0, -1], (2, 2, 3)),
    ("one_hot_fill", S(2, 2), [2, 1.0, 0.0, -3], (2, 2, 2)),
    # {BT}/topk.rs test_topk_supports_negative_dim_float: [2, 2, 3].topk(2, -1) -> [2, 2, 2]
    ("topk", S(2, 2, 3), [2, -1], (2, 2, 2)),
    ("topk", S(2, 2, 3), [2, 0], (2, 2, 3)),
    # {BT}/padding.rs padding_constant_2d_test / _asymmetric_test: (left, right, top, bottom)
    ("pad", S(3, 3), [(2, 2, 2, 2), 1.1], (7, 7)),
    ("pad", S(1, 1, 3, 3), [(2, 1, 4, 3), 1.1], (1, 1, 10, 6)),
    # {API}/float.rs `categorical` doc: [2, 3].categorical(4) -> [2, 4]
    ("categorical", S(2, 3), [4], (2, 4)),
    # {API}/base.rs `mask_select`: a rank-1 tensor of a data-dependent length
    ("mask_select", S(2, 3), [S(2, 3)], (None,)),
]


@pytest.mark.parametrize(("name", "x", "args", "expected"), METHOD_CASES)
def test_method_shape(name: str, x: Shape, args: list[object], expected: object) -> None:
    got = method_shape(name, x, args)
    assert dims(got) == expected
    if got is not None:  # the steps so far are kept and one is added
        assert got.steps[0] == "input" and len(got.steps) == 2


def test_dims_copied_through_ops_keep_their_identity() -> None:
    got = method_shape("swap_dims", S(B, T, 4), [0, 1])
    assert got is not None and got.dims == (T, B, 4)
    assert got.dims[1] is B


def test_out_rank_asks_for_the_rank_the_type_gives() -> None:
    # {BT}/squeeze.rs: `unsqueeze::<4>()` on [3, 3] -> [1, 1, 3, 3] ({API}/base.rs `unsqueeze` doc)
    assert dims(method_shape("unsqueeze", S(3, 3), [], out_rank=4)) == (1, 1, 3, 3)
    assert method_shape("unsqueeze", S(3, 3), []) is None  # the rank is the type's
    # {BT}/negative_dims.rs: `let t: Tensor<4> = [2, 3].unsqueeze_dim(2)` adds trailing 1s
    assert dims(method_shape("unsqueeze_dim", S(2, 3), [2], out_rank=4)) == (2, 3, 1, 1)
    assert dims(method_shape("unsqueeze_dim", S(2, 3), [1], out_rank=4)) == (2, 1, 3, 1)
    assert method_shape("flatten", S(2, 3, 4), [1, 2], out_rank=3) is None


FUNCTION_CASES = [
    # {API}/base.rs `cat` doc: [2, 4] and [2, 3] along 1 -> [2, 7]
    ("burn::tensor::Tensor::cat", [[S(2, 4), S(2, 3)], 1], (2, 7)),
    # {BT}/negative_dims.rs concatenation_and_repeat_support_negative_dims: cat(.., -1)
    ("burn::tensor::Tensor::cat", [[S(2, 3), S(2, 1)], -1], (2, 4)),
    # the example: a: [B, 3], b: [B, 4] along 1 / along 0 (burn panics)
    ("burn::tensor::Tensor::cat", [[S(B, 3), S(B, 4)], 1], (B, 7)),
    ("burn::tensor::Tensor::cat", [[S(B, 3), S(B, 4)], 0], None),
    ("burn::tensor::Tensor::cat", [[S(B, 3), S(None, 3)], 1], (B, 6)),
    # {API}/base.rs `stack` doc: three [2, 3] along 0 -> [3, 2, 3]
    ("burn::tensor::Tensor::stack", [[S(2, 3), S(2, 3), S(2, 3)], 0], (3, 2, 3)),
    # {BT}/stack.rs should_support_stack_ops_2d_dim1; negative_dims.rs stack(.., -1)
    ("burn::tensor::Tensor::stack", [[S(1, 3), S(1, 3)], 1], (1, 2, 3)),
    ("burn::tensor::Tensor::stack", [[S(2, 3), S(2, 3)], -1], (2, 3, 2)),
    # {BT}/stack.rs should_panic_when_stack_exceeds_dimension: dim 3 of rank 3 + 1
    ("burn::tensor::Tensor::stack", [[S(2, 1, 3), S(1, 1, 3)], 3], None),
    # burn-tensor/src/tensor/activation/base.rs: Tensor<D> -> Tensor<D>
    ("burn::tensor::activation::log_softmax", [S(50, 4, 28), 2], (50, 4, 28)),
    ("burn::tensor::activation::relu", [S(B, 3)], (B, 3)),
    ("burn::tensor::activation::gelu", [S(2, 3)], (2, 3)),
    # activation/base.rs `glu` doc: "the size along `dim` is halved"
    ("burn::tensor::activation::glu", [S(2, 8), -1], (2, 4)),
    ("burn::tensor::activation::glu", [S(2, 7), -1], None),
    # burn-nn/src/modules/pos_encoding.rs `generate_sinusoids` doc: "A tensor of shape [length,
    # d_model]"; test_generate_sinusoids: (12, 6, 10_000) -> [12, 6]; d_model must be even
    ("burn::nn::generate_sinusoids", [12, 6, 10_000, None], (12, 6)),
    ("burn::nn::generate_sinusoids", [T, 6, 10_000, None], (T, 6)),
    ("burn::nn::generate_sinusoids", [12, 7, 10_000, None], None),
    ("burn::nn::generate_sinusoids", [None, 6, 10_000, None], (None, 6)),
    # a method called by its path is the method
    ("burn::tensor::Tensor::swap_dims", [S(2, 3), 0, 1], (3, 2)),
    ("burn::tensor::activation::not_an_op", [S(2, 3)], None),
]


@pytest.mark.parametrize(("path", "args", "expected"), FUNCTION_CASES)
def test_function_shape(path: str, args: list[object], expected: object) -> None:
    assert dims(function_shape(path, args)) == expected


def test_stack_to_a_larger_rank() -> None:
    # {BT}/negative_dims.rs: `let t: Tensor<4> = Tensor::stack(vec![t2, t2], 2)` on [2, 3]
    got = function_shape("burn::tensor::Tensor::stack", [[S(2, 3), S(2, 3)], 2], out_rank=4)
    assert dims(got) == (2, 3, 2, 1)


BINARY_CASES = [
    # burn-tensor/src/tensor/api/check.rs binary_ops_shapes_with_broadcast / _no_broadcast
    ("+", S(3, 5), S(1, 5), (3, 5)),
    ("-", S(3, 5), S(3, 6), None),
    ("*", S(B, 3), 2.0, (B, 3)),
    ("/", S(B, 1, 4), S(1, 3, 1), (B, 3, 4)),
    ("add", S(3, 5), S(3, 1), (3, 5)),
    ("mul_scalar", S(3, 5), 2, (3, 5)),
    ("sub", S(B, 3), S(B, 3), (B, 3)),
    # same-rank only (Tensor<B, D> on both sides)
    ("+", S(3, 5), S(5), None),
]


@pytest.mark.parametrize(("op", "lhs", "rhs", "expected"), BINARY_CASES)
def test_binary_shape(op: str, lhs: Shape, rhs: Shape | int | float, expected: object) -> None:
    assert dims(binary_shape(op, lhs, rhs)) == expected


def test_steps_explain_the_shape() -> None:
    x = Shape((50, 4, 28), ("zeros([50, 4, 28]) at 54:20",))
    y = function_shape("burn::tensor::activation::log_softmax", [x, 2])
    assert y is not None and y.steps[-1] == "log_softmax keeps the shape"
    z = method_shape("swap_dims", y, [1, 2])
    assert z is not None and z.steps[-1] == "swap_dims(1, 2) -> [50, 28, 4]"
    assert len(z.steps) == 3
    w = binary_shape("*", z, 2.0)
    assert w is not None and w.steps[-1] == "* 2.0 keeps the shape"


def test_unknown_rank_and_unknown_arguments() -> None:
    anything = Shape(None)
    kept = method_shape("exp", anything, [])
    assert kept is not None and kept.dims is None  # same shape, whatever it is
    assert method_shape("swap_dims", anything, [0, 1]) is None
    assert dims(method_shape("sum", anything, [])) == (1,)
    assert method_shape("not_a_method", S(2, 3), []) is None


OUTPUT_CASES = [
    # {BT}/chunk.rs test_chunk_evenly_divisible / _not_evenly_divisible / _remains_several
    ("chunk", S(12), [6, 0], [(2,)] * 6),
    ("chunk", S(11), [6, 0], [(2,)] * 5 + [(1,)]),
    ("chunk", S(100, B), [8, 0], [(13, B)] * 7 + [(9, B)]),
    # {BT}/chunk.rs test_chunk_not_divisible: 6 elements in 7 chunks -> 6 of 1
    ("chunk", S(6), [7, 0], [(1,)] * 6),
    # {API}/base.rs `chunk` doc: [4, 3].chunk(2, 1) -> [4, 2], [4, 1]
    ("chunk", S(4, 3), [2, 1], [(4, 2), (4, 1)]),
    # {BT}/split.rs test_split_evenly_divisible / _not_evenly_divisible / _along_dim1 /
    # _split_size_larger_than_tensor_size
    ("split", S(6, 2), [2, 0], [(2, 2)] * 3),
    ("split", S(5, 2), [2, 0], [(2, 2), (2, 2), (1, 2)]),
    ("split", S(2, 3), [2, 1], [(2, 2), (2, 1)]),
    ("split", S(5), [10, 0], [(5,)]),
    # {BT}/split.rs test_split_with_sizes; negative_dims.rs split_with_sizes(vec![1, 2], -1)
    ("split_with_sizes", S(6), [[2, 3, 1], 0], [(2,), (3,), (1,)]),
    ("split_with_sizes", S(2, 3), [[1, 2], -1], [(2, 1), (2, 2)]),
    # {BT}/split.rs test_split_with_sizes_invalid_sum: burn panics
    ("split_with_sizes", S(6), [[2, 3], 0], None),
    # {BT}/topk.rs test_topk_with_indices_3d: values and indices [2, 2, 2]
    ("topk_with_indices", S(2, 2, 3), [2, 2], [(2, 2, 2)] * 2),
    # {API}/float.rs var_mean: both keep the rank with the dim at 1
    ("var_mean", S(B, 8), [1], [(B, 1)] * 2),
    ("chunk", S(B, 8), [2, 0], None),
]


@pytest.mark.parametrize(("name", "x", "args", "expected"), OUTPUT_CASES)
def test_method_outputs(name: str, x: Shape, args: list[object], expected: object) -> None:
    got = method_outputs(name, x, args)
    assert (None if got is None else [s.dims for s in got]) == expected


HOSTILE_VALUES: list[object] = [
    None,
    0,
    1,
    -1,
    -7,
    10**12,
    2.5,
    float("nan"),
    True,
    "Nearest",
    B,
    Span(None, None, None),
    Span(3, 1, 0),
    [],
    [0, -1],
    [10**12, -1],
    [[1, 2], [3]],
    (2, 2, 2, 2),
    Shape(None),
    S(),
    S(0, 3),
    S(B, None, 1),
]


def _is_answer(got: Shape | None) -> bool:
    if got is None:
        return True
    ok = got.dims is None or all(d is None or isinstance(d, int | Sym) for d in got.dims)
    return isinstance(got, Shape) and ok and isinstance(got.steps, tuple)


def test_hostile_arguments_never_raise() -> None:
    """Every entry, given odd arguments (huge, negative, unknown, of the wrong type), answers
    a shape or None: burn's panics are the rules' to report, never an exception here."""
    receivers = [S(4, 6, 8), S(B, 1, 3), Shape(None), S(), S(10**9)]
    for name in table().method:
        for x in receivers:
            for a in HOSTILE_VALUES:
                for args in ([a], [a, a], [1, a], [a, 1, 2], [a, 2.0, 0.0, a]):
                    assert _is_answer(method_shape(name, x, args)), (name, x, args)
                    got = method_outputs(name, x, args)
                    assert got is None or all(_is_answer(s) for s in got)
    for path in table().function:
        for a in HOSTILE_VALUES:
            for args in ([a], [S(2, 4), a], [[S(2, 3), a], a], [a, a]):
                assert _is_answer(function_shape(path, args)), (path, args)
    for op in ("+", "*", "%", "add", "mask_where"):
        for a in HOSTILE_VALUES:
            rhs = a if isinstance(a, Shape | int | float) else 1
            assert _is_answer(binary_shape(op, S(2, 3), rhs))
            assert _is_answer(binary_shape(op, 2.0, rhs))


def test_long_splits_are_not_listed() -> None:
    # a split of a long dim in pieces of 1 would list a million shapes: not told instead
    assert method_outputs("split", S(10**6), [1, 0]) is None
    assert method_outputs("chunk", S(10**6), [10**6, 0]) is None
    assert method_outputs("chunk", S(10**6), [10**12, 0]) is None


def test_a_scalar_on_the_left() -> None:
    # burn-tensor/src/tensor/api/numeric.rs impl_tensor_scalar_mul!/_sub!: `2.0 * x`, `1.0 - x`
    assert dims(binary_shape("*", 2.0, S(B, 3))) == (B, 3)
    assert dims(binary_shape("-", 1, S(B, 3))) == (B, 3)
    assert binary_shape("%", 2, S(B, 3)) is None  # no `impl Rem<Tensor> for f32`


def test_slices_and_ranks_as_the_evaluator_writes_them() -> None:
    # {API}/base.rs `slice` doc, `s![1..3, ..;2, -3..]` on [4, 6, 8] -> [2, 3, 3], written as
    # burn's Slice parts (a part left out is unknown, `end` None is to the end)
    spans = [{"start": 1, "end": 3, "step": 1}, {"start": 0, "end": None, "step": 2},
             {"start": -3, "end": None, "step": 1}]  # fmt: skip
    got = method_shape("slice", S(4, 6, 8), [spans])
    assert got is not None and got.dims == (2, 3, 3)
    assert got.steps[-1] == "slice([1..3, ..;2, -3..]) -> [2, 3, 3]"
    assert dims(method_shape("slice", S(4, 6), [[{"start": 1, "step": 1}]])) == (None, 6)
    # {BT}/squeeze.rs: `unsqueeze::<4>()` with the turbofish as a last ("rank", 4) argument
    assert dims(method_shape("unsqueeze", S(3, 3), [("rank", 4)])) == (1, 1, 3, 3)
    assert dims(method_shape("unsqueeze_dim", S(2, 3), [2, ("rank", 4)])) == (2, 3, 1, 1)
    assert dims(method_shape("unsqueeze_dim", S(2, 3), [2, ("rank", None)])) == (2, 3, 1)
