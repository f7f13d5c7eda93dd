"""A `[[where]]` on a trait's method that burn implements by a blanket impl (`impl<I, T:
Dataset<I>> Windows<I> for T`) matches the method on every public type the index lists as
implementing the bounds; a slice's own `windows`, or a project type, stays silent."""

from __future__ import annotations

from panic_lens.engine import analyze
from panic_lens.rules.language import api

RULE = "windows-size-zero"


def test_the_implementors_of_a_blanket_impls_bounds() -> None:
    found = api.blanket_implementors("burn::data::dataset::transform::Windows", "windows")
    assert "burn::data::dataset::InMemDataset" in found
    assert "burn::data::dataset::transform::ShuffledDataset" in found
    assert api.blanket_implementors("burn::data::dataset::transform::Windows", "len") == set()


def test_the_method_on_a_dataset_is_matched_and_a_slices_is_not() -> None:
    src = """\
use burn::data::dataset::InMemDataset;
use burn::data::dataset::transform::Windows;
struct Mine;
impl Mine {
    fn windows(&self, _size: usize) -> usize { 0 }
}
fn f(series: Vec<f32>) -> usize {
    let data = InMemDataset::new(series);
    let a = data.windows(0).count();
    let v = [1, 2, 3];
    let b = v.windows(0).count();
    let c = Mine.windows(0);
    a + b + c
}
"""
    lines = [f.span.start.row + 1 for f in analyze(src, "src/lib.rs").findings if f.rule == RULE]
    assert lines == [9]
