// Examples of router-unsupported-dtype (from its golden crates; no Cargo.toml above, so the backend is unknown).
//! Moving tensors between two capture devices: unsigned ints panic, everything else moves.
//! Text such as `t.to_device(&b)` in a comment is not a call.

use burn::tensor::{DType, Device, Int, Tensor, TensorData};


fn main() {
    let data = TensorData::new(vec![1u32, 2, 3], [3]);
    let a = Device::capture();
    let b = Device::capture();

    let ids = Tensor::<1, Int>::from_data(data.clone(), (&a, DType::U32));
    let moved = ids.clone().to_device(&b); // expect: router-unsupported-dtype

    let bytes = Tensor::<2, Int>::zeros([2, 2], (&a, DType::U8));
    let flat = bytes.reshape([4]);
    flat.to_device(&b); // expect: router-unsupported-dtype

    let cast = Tensor::<1, Int>::from_data(data.clone(), (&a, DType::I64)).cast(DType::U16);
    let _ = cast.to_device(&b); // expect: router-unsupported-dtype

    // Safe: signed ints, floats, the same device, a clone of the same device.
    let signed = Tensor::<1, Int>::from_data(data.clone(), (&a, DType::I64));
    let _ = signed.to_device(&b); // ok
    let floats = Tensor::<1>::ones([3], (&a, DType::F32));
    let _ = floats.to_device(&b); // ok
    let _ = ids.clone().to_device(&a); // ok
    let same = a.clone();
    let _ = ids.clone().to_device(&same); // ok
    let widened = ids.cast(DType::I64);
    let _ = widened.to_device(&b); // ok
    let default_kind = Tensor::<1, Int>::from_data(data, &a);
    let _ = default_kind.to_device(&b); // ok
    let _ = moved;
}
