//! Shardy's ops: `sdy.sharding_constraint` keeps its layout request on the batched value,
//! with the batch dimension left open (`{?}`) for the partitioner to decide.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{DimSharding, OpKind, SdySharding};

pub(crate) fn sharding_constraint(
    cx: &mut Cx,
    args: &[BVal],
    sharding: &SdySharding,
) -> Result<Vec<BVal>> {
    let d = args[0].bdim.expect("batched");
    if d > sharding.dims.len() {
        return Err(cx.err(format!(
            "batch dimension {d} is past the {} dimensions its sharding describes",
            sharding.dims.len()
        )));
    }
    let mut batched = sharding.clone();
    batched.dims.insert(
        d,
        DimSharding {
            axes: vec![],
            closed: false,
            priority: None,
        },
    );
    let r = cx.emit(
        OpKind::ShardingConstraint(Box::new(batched)),
        vec![args[0].v],
    )?;
    Ok(vec![BVal::at(r, d)])
}
