// Layout conversions between NCHW and NHWC.
use burn::prelude::*;

mod local {
    pub struct Layout(pub [usize; 4]);

    impl Layout {
        pub fn permute(self, axes: [usize; 4]) -> Self {
            Layout([self.0[axes[0]], self.0[axes[1]], self.0[axes[2]], self.0[axes[3]]])
        }
    }
}

pub fn to_nhwc(x: Tensor<4>) -> Tensor<4> {
    x.permute([0, 2, 3, 3]) // expect: permute-duplicate-axes
}

pub fn to_nchw(x: Tensor<4>) -> Tensor<4> {
    x.permute([0, 3, 1, 2]) // ok
}

pub fn seq_first(device: &Device) -> Tensor<3> {
    let x = Tensor::<3>::zeros([2, 5, 8], device);
    let _mixed = x.clone().permute([0, -1, 2]); // expect: permute-duplicate-axes
    let _same = x.clone().permute([0, 1, 2]); // ok
    x.permute([1, 0, 2]) // ok
}

pub fn custom(x: Tensor<3>, axes: [usize; 3]) -> Tensor<3> {
    x.permute(axes) // ok
}

pub fn look_alikes() -> [usize; 4] {
    let l = local::Layout([1, 3, 32, 32]).permute([0, 2, 3, 3]); // ok
    let mut v = vec![3, 1, 2];
    v.sort(); // ok
    l.0
}

// Lines added with the rule file.
pub fn more(x: Tensor<3>) -> Tensor<3> {
    let _neg_ok = x.clone().permute([-1, 0, 1]); // ok
    let _dup = x.clone().permute([-3, 0, 2]); // expect: permute-duplicate-axes
    // Axis 3 is outside the rank: the dim-index check panics first.
    let _out = x.clone().permute([3, 3, 0]); // ok
    x.permute([2, 1, 0]) // ok
}
