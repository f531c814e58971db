//! `pmap`: map a function over the leading axis of its inputs, one slice per device, built on
//! [`shard_map`] as JAX ≥ 0.8 builds it: a one-axis mesh over the first N devices, inputs split
//! along their leading axis, each device's slice without that axis.

use super::{shard_map, CompiledSpmd, Specs};
use crate::error::{Error, Result};
use crate::sharding::{make_mesh, Mesh, PartitionSpec};
use crate::transforms::function::{fallible, Function};
use crate::transforms::vmap::Axes;
use crate::tree::Tree;
use std::marker::PhantomData;
use systolic_runtime::Device;

/// A function mapped over devices. Made by [`pmap`].
pub struct Pmap<A, R, F> {
    f: F,
    axis_name: String,
    in_axes: Axes,
    devices: Option<Vec<Device>>,
    cache: super::cache::Cache<R>,
    _t: PhantomData<fn(&A) -> R>,
}

/// `jax.pmap`: `f` runs on N devices (N the leading dimension of the inputs), device `i` on
/// slice `i` of every input; the outputs are stacked along a new leading axis. Inside `f`,
/// collectives over `axis_name` talk between the devices (`lax::pmean(&g, "batch")`).
/// Inputs marked `None` by [`Pmap::in_axes`] are passed whole to every device.
///
/// ```
/// use systolic::{lax, pmap, Array};
/// // One device here (SYSTOLIC_CPU_DEVICES sets how many host devices there are).
/// let f = pmap(|x: &Array| lax::psum(x, "i"), "i");
/// let y = f.call(&Array::from_vec(vec![1.0f32, 2.0], &[1, 2])).unwrap();
/// assert_eq!(y.shape(), &[1, 2]);
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
/// ```
pub fn pmap<A: Tree, F: Function<A>>(f: F, axis_name: &str) -> Pmap<A, F::Output, F> {
    Pmap {
        f,
        axis_name: axis_name.to_string(),
        in_axes: Axes::All(Some(0)),
        devices: None,
        cache: super::cache::Cache::default(),
        _t: PhantomData,
    }
}

impl<A: Tree, F: Function<A>> Pmap<A, F::Output, F> {
    /// Which inputs are split (`Some(0)`, the default) and which are passed whole to every
    /// device (`None`), per leaf or for all.
    pub fn in_axes(mut self, in_axes: impl Into<Axes>) -> Self {
        self.in_axes = in_axes.into();
        self
    }

    /// The devices to map over (JAX's `devices=`): the first N of them run (N the mapped
    /// size). Without it, the host CPU devices.
    pub fn devices(mut self, devices: &[Device]) -> Self {
        self.devices = Some(devices.to_vec());
        self
    }

    /// Runs `f` on every device.
    pub fn call(&self, args: &A) -> Result<F::Output> {
        match self.run(args, false)? {
            Outcome::Ran(r) => Ok(r),
            Outcome::Compiled(_) => Err(Error::Trace("pmap compiled instead of running".into())),
        }
    }

    /// Compiles `f` for the devices without running it (see [`ShardMap::compile`]).
    pub fn compile(&self, args: &A) -> Result<CompiledSpmd> {
        match self.run(args, true)? {
            Outcome::Compiled(c) => Ok(c),
            Outcome::Ran(_) => Err(Error::Trace("pmap ran instead of compiling".into())),
        }
    }

    fn run(&self, args: &A, compile_only: bool) -> Result<Outcome<F::Output>> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        let axes = self.in_axes.per_leaf_of("pmap", leaves.len(), "in_axes")?;
        if let Some(a) = axes.iter().flatten().find(|&&a| a != 0) {
            return Err(Error::op(
                "pmap",
                format!("in_axes {a}: only 0 and None are supported (move the axis first)"),
            ));
        }
        let mut n = None;
        for (i, (leaf, axis)) in leaves.iter().zip(&axes).enumerate() {
            leaf.check()?;
            if axis.is_none() {
                continue;
            }
            let Some(&size) = leaf.dims().first() else {
                return Err(Error::op(
                    "pmap",
                    format!("leaf {i} is a scalar, which has no leading axis to map over"),
                ));
            };
            match n {
                None => n = Some(size),
                Some(m) if m != size => {
                    return Err(Error::op(
                        "pmap",
                        format!(
                            "the mapped inputs have different leading sizes ({m} and {size} at \
                             leaf {i})"
                        ),
                    ))
                }
                _ => {}
            }
        }
        let n = n.ok_or_else(|| Error::op("pmap", "no input is mapped"))?;
        let mesh = match &self.devices {
            None => make_mesh(&[n as usize], &[self.axis_name.as_str()]),
            Some(d) if d.len() >= n as usize => Mesh::new(
                d[..n as usize].to_vec(),
                &[n as usize],
                &[self.axis_name.as_str()],
            ),
            Some(d) => Err(Error::op(
                "pmap",
                format!(
                    "{} devices were given, but the inputs map over {n}",
                    d.len()
                ),
            )),
        }
        .map_err(|e| Error::op("pmap", format!("mapping over {n} devices: {e}")))?;
        let spec = |a: &Option<usize>| match a {
            Some(_) => PartitionSpec::new(vec![vec![self.axis_name.clone()]]),
            None => PartitionSpec::replicated(),
        };
        let in_specs = Specs::Leaves(axes.iter().map(spec).collect());
        let body = |a: &A| -> Result<F::Output> {
            // Each device's slice arrives with a leading axis of 1: drop it, call f, put it
            // back on every output.
            let mut ls = vec![];
            a.leaves(&mut ls);
            let squeezed = ls.iter().zip(&axes).map(|(l, ax)| match ax {
                Some(_) => crate::numpy::reshape(l, &l.dims()[1..]),
                None => l.clone(),
            });
            let inner = a.rebuild(&mut squeezed.into_iter())?;
            let r = self.f.call(&inner)?;
            let mut outs = vec![];
            r.leaves(&mut outs);
            let expanded = outs.into_iter().map(|o| {
                let mut shape = vec![1];
                shape.extend_from_slice(o.dims());
                crate::numpy::reshape(&o, &shape)
            });
            r.rebuild(&mut expanded.into_iter())
        };
        let out_spec = PartitionSpec::new(vec![vec![self.axis_name.clone()]]);
        // As JAX's pmap: every device's values are its own (no vma), so gradients stay per
        // device until a collective combines them.
        let mapped = shard_map(fallible(body), &mesh, in_specs, out_spec).check_vma(false);
        if compile_only {
            return Ok(Outcome::Compiled(mapped.compile(args)?));
        }
        let key = super::cache::signature(args, &leaves, &format!("{axes:?} {mesh:?}"))?;
        let entry = self.cache.get_or_make(key, || mapped.make_entry(args))?;
        Ok(Outcome::Ran(entry.run("pmap", leaves)?))
    }
}

/// What [`Pmap::run`] did.
enum Outcome<R> {
    Ran(R),
    Compiled(CompiledSpmd),
}

impl<A: Tree, F: Function<A>> Function<A> for Pmap<A, F::Output, F> {
    type Output = F::Output;

    fn call(&self, args: &A) -> Result<F::Output> {
        Pmap::call(self, args)
    }
}
