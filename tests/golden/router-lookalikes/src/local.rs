//! Local look-alikes: our own DType and Device types are not burn's.

pub enum DType {
    U32,
    I64,
}

pub struct Device;

impl Device {
    pub fn capture() -> Self {
        Device
    }
}

pub struct Tensor;

impl Tensor {
    pub fn from_data(_data: Vec<u32>, _opts: (&Device, DType)) -> Self {
        Tensor
    }

    pub fn to_device(self, _device: &Device) -> Self {
        self
    }
}

pub fn local_move() {
    let a = Device::capture();
    let b = Device::capture();
    let t = Tensor::from_data(vec![1], (&a, DType::U32));
    let _ = t.to_device(&b);
}
