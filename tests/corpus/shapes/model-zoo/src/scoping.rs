//! Scopes as Rust has them: a `const` or `fn` item declared in a block shadows the module's item
//! of the same name in that whole block only; a `let` shadows from its statement on.
use burn::nn::{GroupNorm, GroupNormConfig};
use burn::prelude::*;

/// 48 % 6 == 0: the module's group count is safe.
const GROUPS: usize = 6;
/// 48 % 5 != 0: the module's head count is not.
const HEADS: usize = 5;
const CHANNELS: usize = 48;

fn width() -> usize {
    48
}

pub fn module_const(device: &Device) -> GroupNorm {
    GroupNormConfig::new(GROUPS, CHANNELS).init(device) // ok
}

pub fn fn_const(device: &Device) -> GroupNorm {
    const GROUPS: usize = 5;
    GroupNormConfig::new(GROUPS, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
}

pub fn after_fn_const(device: &Device) -> GroupNorm {
    GroupNormConfig::new(GROUPS, CHANNELS).init(device) // ok
}

pub fn declared_after_use(device: &Device) -> GroupNorm {
    let norm = GroupNormConfig::new(GROUPS, CHANNELS).init(device); // expect: group-norm-groups-divide-channels
    const GROUPS: usize = 7;
    norm
}

pub fn module_heads(device: &Device) -> GroupNorm {
    GroupNormConfig::new(HEADS, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
}

pub fn fn_heads(device: &Device) -> GroupNorm {
    const HEADS: usize = 6;
    GroupNormConfig::new(HEADS, CHANNELS).init(device) // ok (the module's HEADS = 5 is taken for the fn's own const)
}

pub fn block_const(device: &Device) -> Vec<GroupNorm> {
    let inner = {
        const GROUPS: usize = 5;
        GroupNormConfig::new(GROUPS, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
    };
    let outer = GroupNormConfig::new(GROUPS, CHANNELS).init(device); // ok
    let safe = {
        const HEADS: usize = 8;
        GroupNormConfig::new(HEADS, CHANNELS).init(device) // ok (the module's HEADS = 5 is taken for the block's own const)
    };
    let after = GroupNormConfig::new(HEADS, CHANNELS).init(device); // expect: group-norm-groups-divide-channels
    vec![inner, outer, safe, after]
}

pub fn branch_const(device: &Device, flag: bool) -> GroupNorm {
    if flag {
        const GROUPS: usize = 5;
        GroupNormConfig::new(GROUPS, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
    } else {
        GroupNormConfig::new(GROUPS, CHANNELS).init(device) // ok
    }
}

pub fn let_shadowing(device: &Device) -> Vec<GroupNorm> {
    let groups = GROUPS;
    let a = GroupNormConfig::new(groups, CHANNELS).init(device); // ok
    let groups = groups - 1;
    let b = GroupNormConfig::new(groups, CHANNELS).init(device); // expect: group-norm-groups-divide-channels
    let groups = 8;
    let c = GroupNormConfig::new(groups, CHANNELS).init(device); // ok
    vec![a, b, c]
}

pub fn let_in_block(device: &Device) -> Vec<GroupNorm> {
    let groups = 6;
    let inner = {
        let groups = 5;
        GroupNormConfig::new(groups, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
    };
    let outer = GroupNormConfig::new(groups, CHANNELS).init(device); // ok
    vec![inner, outer]
}

pub fn closure_parameter(device: &Device) -> GroupNorm {
    let groups = 5;
    let build = |groups: usize| GroupNormConfig::new(groups, CHANNELS).init(device); // ok (only called with 6)
    let _unused = groups;
    build(6)
}

pub fn fn_item(device: &Device) -> Vec<GroupNorm> {
    fn width() -> usize {
        50
    }
    vec![
        GroupNormConfig::new(GROUPS, width()).init(device), // expect: group-norm-groups-divide-channels
        GroupNormConfig::new(5, width()).init(device), // ok
    ]
}

pub fn module_fn(device: &Device) -> GroupNorm {
    GroupNormConfig::new(GROUPS, width()).init(device) // ok
}

pub fn use_inside(device: &Device) -> GroupNorm {
    use crate::hparams::N_HEADS as GROUPS;
    GroupNormConfig::new(GROUPS, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
}

pub fn after_use_inside(device: &Device) -> GroupNorm {
    GroupNormConfig::new(GROUPS, CHANNELS).init(device) // ok
}

mod inner {
    use burn::nn::{GroupNorm, GroupNormConfig};
    use burn::prelude::*;

    const GROUPS: usize = 5;

    pub fn build(device: &Device) -> GroupNorm {
        GroupNormConfig::new(GROUPS, super::CHANNELS).init(device) // expect: group-norm-groups-divide-channels
    }

    pub fn parent(device: &Device) -> GroupNorm {
        GroupNormConfig::new(super::GROUPS, super::CHANNELS).init(device) // ok
    }
}

pub fn impl_consts(device: &Device) -> Vec<GroupNorm> {
    struct Local;
    impl Local {
        const GROUPS: usize = 5;
    }
    vec![
        GroupNormConfig::new(Local::GROUPS, CHANNELS).init(device), // expect: group-norm-groups-divide-channels
        GroupNormConfig::new(GROUPS, CHANNELS).init(device), // ok
    ]
}

pub fn tensors(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([4, CHANNELS], device);
    let a = {
        const CHANNELS: usize = 40;
        x.clone().narrow(1, CHANNELS, 16) // expect: narrow-out-of-range
    };
    let b = x.clone().narrow(1, CHANNELS - 16, 16); // ok
    let x = Tensor::<2>::zeros([4, 8], device);
    let c = x.narrow(1, 4, 8); // expect: narrow-out-of-range
    vec![a, b, c]
}

pub use inner::{build as inner_build, parent as inner_parent};

/// A `use` in the fn brings the crate's own `GroupNormConfig`, shadowing burn's import.
pub fn own_type_in_fn() -> usize {
    use crate::lookalike::GroupNormConfig;
    GroupNormConfig::new(HEADS, CHANNELS).init() // ok
}

pub fn burn_type_after(device: &Device) -> GroupNorm {
    GroupNormConfig::new(HEADS, CHANNELS).init(device) // expect: group-norm-groups-divide-channels
}
