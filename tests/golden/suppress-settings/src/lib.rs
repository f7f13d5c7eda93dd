//! Settings from Cargo.toml metadata: a severity override, and a rule turned off.

use burn::rl::{AsyncPolicy, Policy};
use burn::tensor::{DType, Device, Int, Tensor, TensorData};

pub fn overridden<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    policy.load_record(record) //~ async-policy-load-record warning
}

pub fn rule_off(data: TensorData) {
    let a = Device::capture();
    let b = Device::capture();
    let t = Tensor::<1, Int>::from_data(data, (&a, DType::U32));
    // An allow for a rule that is off is not reported as unused.
    // panic-lens: allow(router-unsupported-dtype) the rule is off in Cargo.toml anyway
    let _ = t.to_device(&b);
}
