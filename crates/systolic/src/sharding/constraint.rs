//! [`with_sharding_constraint`], JAX's `jax.lax.with_sharding_constraint`: under a trace it
//! stages `sdy.sharding_constraint` (a strict request to the partitioner: the value is laid
//! out so there, whatever propagation would pick); on a concrete array it is a
//! [`device_put`](crate::device_put).

use super::NamedSharding;
use crate::array::{describe, Array};
use crate::core::bind::bind;
use crate::error::{Error, Result};
use crate::transforms::shard_map::spmd::mesh_symbol;
use systolic_ir::OpKind;

/// Lays `x` out by `sharding`: inside [`jit`](crate::jit) (or `grad`, `vmap`) the partitioner
/// must hold the value so, and propagates the layout to its neighbours; on a concrete array it
/// splits `x` over the mesh now (a [`device_put`](crate::device_put)). The spec may name
/// fewer dimensions than `x` has, not more.
///
/// Errors (carried by the returned array, as other ops do): a spec with more dimensions than
/// `x`. Inside `jit`, a dimension the mesh axes do not divide is refused by the partitioner;
/// outside, by `device_put`.
///
/// ```
/// use systolic::{jit, lax, make_mesh, Array, NamedSharding, P};
/// let mesh = make_mesh(&[1], &["data"]).unwrap();
/// let rows = NamedSharding::new(&mesh, P!("data", None)).unwrap();
/// let f = jit(move |x: &Array| lax::with_sharding_constraint(&(x * 2.0), &rows));
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let text = f.lower(&x).unwrap().as_text();
/// assert!(text.contains(r#"sdy.sharding_constraint %1 <@mesh, [{"data"}, {}]>"#), "{text}");
/// assert_eq!(f.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
/// ```
pub fn with_sharding_constraint(x: &Array, sharding: &NamedSharding) -> Array {
    constrain(x, sharding).unwrap_or_else(Array::failed)
}

fn constrain(x: &Array, sharding: &NamedSharding) -> Result<Array> {
    x.check()?;
    let name = "with_sharding_constraint";
    if sharding.spec().len() > x.rank() {
        return Err(Error::op(
            name,
            format!(
                "{} of rank {} cannot take {sharding}, which names {} dimensions",
                describe(x.aval()),
                x.rank(),
                sharding.spec().len()
            ),
        ));
    }
    if crate::core::trace::current().is_none() {
        // Outside a trace there is no compiler to choose: unconstrained dimensions stay
        // whole (JAX places the array likewise).
        if !sharding.spec().has_unconstrained() {
            return crate::device_put(x, sharding);
        }
        let placed = NamedSharding::new(sharding.mesh(), sharding.spec().constrained())?;
        return crate::device_put(x, &placed);
    }
    let annotation = sharding.to_sdy_on(&mesh_symbol(sharding.mesh()), x.rank());
    let mut out = bind(
        name,
        OpKind::ShardingConstraint(Box::new(annotation)),
        &[x],
        vec![],
        None,
        x.weak_type(),
    )?;
    out.pop()
        .ok_or_else(|| Error::op(name, "the constraint made no result"))
}
