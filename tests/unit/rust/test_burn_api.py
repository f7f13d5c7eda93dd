"""rust/burn_api.py: reading burn's Tensor types as written."""

from __future__ import annotations

import pytest

from panic_lens.rust.burn_api import tensor_type_args


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("Tensor<B, 3>", ["B", "3"]),
        ("Tensor<3, Int>", ["3", "Int"]),
        ("&'a mut burn::tensor::Tensor<B, 2, Bool>", ["B", "2", "Bool"]),
        ("Tensor<D, K>", ["D", "K"]),
        ("Tensor<Wrap<B, C>, 4>", ["Wrap<B, C>", "4"]),
        ("Vec<Tensor<B, 2>>", None),
        ("MyTensor<3>", None),
    ],
)
def test_tensor_type_args(text: str, args: list[str] | None) -> None:
    assert tensor_type_args(text) == args
