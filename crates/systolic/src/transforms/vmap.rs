//! `vmap`: vectorising map over pytrees of arrays.
//!
//! The user's function is staged into IR on per-example arrays (mapped inputs without their
//! mapped axis), batched by `systolic_vmap` (one batching rule per op) and called on the
//! batched inputs: compiled and run when they are concrete, inlined into the enclosing trace
//! under `jit` (or `grad`, or another `vmap`). So `vmap` composes with the other
//! transformations the way JAX's does.

use crate::array::{Array, Repr};
use crate::core::staging::call_func;
use crate::error::{Error, Result};
use crate::transforms::function::{stage_function, Function};
use crate::tree::{Tree, TreeDef};
use std::marker::PhantomData;
use systolic_ir::{Func, ValueId};

/// Which axis of each input (or output) leaf is mapped: one for every leaf, one per leaf in
/// the order [`Tree::leaves`] lists them, or a tree prefix (JAX's `in_axes=(None, 0, 0)`): one
/// entry per child of the tree's top node, each applying to that whole child. `None` means not
/// mapped (the same for every example).
///
/// ```
/// use systolic::Axes;
/// assert_eq!(Axes::from(0), Axes::All(Some(0)));
/// assert_eq!(Axes::from(None), Axes::All(None));
/// assert_eq!(Axes::from([Some(1), None]), Axes::Leaves(vec![Some(1), None]));
/// assert_eq!(
///     Axes::from((None, 0, 0)),
///     Axes::Prefix(vec![Axes::All(None), Axes::All(Some(0)), Axes::All(Some(0))])
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axes {
    /// The same axis for every leaf.
    All(Option<usize>),
    /// One axis per leaf.
    Leaves(Vec<Option<usize>>),
    /// One entry per child of the top node (tuple elements, struct fields in order, list
    /// items, map entries in key order), each resolved against that child.
    Prefix(Vec<Axes>),
}

macro_rules! axes_prefix_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Into<Axes>),+> From<($($t,)+)> for Axes {
            fn from(t: ($($t,)+)) -> Self {
                Axes::Prefix(vec![$(t.$i.into()),+])
            }
        }
    };
}

axes_prefix_tuple!(T0 0, T1 1);
axes_prefix_tuple!(T0 0, T1 1, T2 2);
axes_prefix_tuple!(T0 0, T1 1, T2 2, T3 3);
axes_prefix_tuple!(T0 0, T1 1, T2 2, T3 3, T4 4);

/// The children of a tree node, in leaf order.
fn children(def: &TreeDef) -> Vec<&TreeDef> {
    match def {
        TreeDef::Leaf | TreeDef::Static(_) => vec![],
        TreeDef::Tuple(_, c) | TreeDef::List(c) => c.iter().collect(),
        TreeDef::Struct(_, c) | TreeDef::Map(c) => c.iter().map(|(_, d)| d).collect(),
    }
}

impl From<usize> for Axes {
    fn from(a: usize) -> Self {
        Axes::All(Some(a))
    }
}

impl From<Option<usize>> for Axes {
    fn from(a: Option<usize>) -> Self {
        Axes::All(a)
    }
}

impl From<Vec<Option<usize>>> for Axes {
    fn from(a: Vec<Option<usize>>) -> Self {
        Axes::Leaves(a)
    }
}

impl From<&[Option<usize>]> for Axes {
    fn from(a: &[Option<usize>]) -> Self {
        Axes::Leaves(a.to_vec())
    }
}

impl<const N: usize> From<[Option<usize>; N]> for Axes {
    fn from(a: [Option<usize>; N]) -> Self {
        Axes::Leaves(a.to_vec())
    }
}

impl Axes {
    /// One axis per leaf of `n`; an error of `op` (`vmap`, `pmap`) naming `what` when a
    /// per-leaf list has another length, or for a tree prefix (which needs the tree:
    /// [`Axes::per_leaf_of_tree`]).
    pub(crate) fn per_leaf_of(&self, op: &str, n: usize, what: &str) -> Result<Vec<Option<usize>>> {
        match self {
            Axes::All(a) => Ok(vec![*a; n]),
            Axes::Leaves(v) if v.len() == n => Ok(v.clone()),
            Axes::Leaves(v) => Err(Error::op(
                op,
                format!("{what} has {} entries but there are {n} leaves", v.len()),
            )),
            Axes::Prefix(_) => Err(Error::op(
                op,
                format!("{what} is a tree prefix, which is not accepted here"),
            )),
        }
    }

    /// One axis per leaf of the tree `def`, a prefix resolved child by child; errors name
    /// the path where the prefix and the tree disagree.
    pub(crate) fn per_leaf_of_tree(
        &self,
        op: &str,
        def: &TreeDef,
        what: &str,
    ) -> Result<Vec<Option<usize>>> {
        let mut out = vec![];
        self.resolve(op, def, what, &mut out)?;
        Ok(out)
    }

    fn resolve(
        &self,
        op: &str,
        def: &TreeDef,
        what: &str,
        out: &mut Vec<Option<usize>>,
    ) -> Result<()> {
        let Axes::Prefix(entries) = self else {
            out.extend(self.per_leaf_of(op, def.num_leaves(), what)?);
            return Ok(());
        };
        let kids = children(def);
        if kids.len() != entries.len() {
            return Err(Error::op(
                op,
                format!(
                    "{what} is a prefix of {} entries but the tree {def} has {} children",
                    entries.len(),
                    kids.len()
                ),
            ));
        }
        for (i, (e, d)) in entries.iter().zip(kids).enumerate() {
            e.resolve(op, d, &format!("{what}[{i}]"), out)?;
        }
        Ok(())
    }
}

/// A function mapped over a batch axis of its inputs. Made by [`vmap`].
pub struct Vmap<A, R, F> {
    f: F,
    in_axes: Axes,
    out_axes: Axes,
    axis_size: Option<usize>,
    axis_name: Option<String>,
    _types: PhantomData<fn(&A) -> R>,
}

/// Vectorises `f` over a batch axis: `vmap(f).call(xs)` is `f` applied to each example of `xs`
/// (slices along the mapped axes), stacked along the output axes, computed as one batched
/// program. By default every input leaf is mapped along axis 0 and every output leaf is
/// stacked along axis 0.
///
/// ```
/// use systolic::{numpy as np, vmap, Array};
/// // A dot product of two vectors, mapped over rows of a matrix.
/// let dot = |(a, b): &(Array, Array)| np::sum(&(a * b), None, false);
/// let m = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
/// let v = Array::from_vec(vec![1.0f32, 0.0, -1.0], &[3]);
/// let rows = vmap(dot).in_axes([Some(0), None]).call(&(m, v)).unwrap();
/// assert_eq!(rows.to_vec::<f32>().unwrap(), vec![-2.0, -2.0]);
/// ```
pub fn vmap<A: Tree, F: Function<A>>(f: F) -> Vmap<A, F::Output, F> {
    Vmap {
        f,
        in_axes: Axes::All(Some(0)),
        out_axes: Axes::All(Some(0)),
        axis_size: None,
        axis_name: None,
        _types: PhantomData,
    }
}

/// An array that stands for a per-example input while the function is staged: staging reads
/// only its type, weak-type flag and device. It names no live trace (ids start at 1), so any
/// other use is reported as a traced array used outside its trace.
fn per_example(a: &Array, axis: usize) -> Array {
    let mut ty = a.aval().clone();
    ty.shape.remove(axis);
    Array::make(
        ty,
        a.weak_type(),
        a.device(),
        Repr::Traced {
            trace: 0,
            value: ValueId(0),
        },
    )
}

struct Prepared<R> {
    func: Func,
    args: Vec<Array>,
    out_weak: Vec<bool>,
    template: R,
}

impl<A: Tree, F: Function<A>> Vmap<A, F::Output, F> {
    /// Which axis of each input leaf is mapped (`None`: not mapped). Default: axis 0 of all.
    ///
    /// ```
    /// use systolic::{vmap, Array};
    /// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// // Map over columns: each example is a column of length 2.
    /// let f = vmap(|c: &Array| c * c).in_axes(1);
    /// let y = f.call(&x).unwrap();
    /// assert_eq!(y.shape(), &[3, 2]);
    /// assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.0, 16.0, 4.0, 25.0, 9.0, 36.0]);
    /// ```
    pub fn in_axes(mut self, axes: impl Into<Axes>) -> Self {
        self.in_axes = axes.into();
        self
    }

    /// Where the batch axis goes in each output leaf (`None`: the output must not depend on a
    /// mapped input and is returned unbatched). Default: axis 0 of all.
    ///
    /// ```
    /// use systolic::{vmap, Array};
    /// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// let f = vmap(|r: &Array| r + 1.0).out_axes(1);
    /// assert_eq!(f.call(&x).unwrap().shape(), &[3, 2]);
    /// ```
    pub fn out_axes(mut self, axes: impl Into<Axes>) -> Self {
        self.out_axes = axes.into();
        self
    }

    /// The batch size, needed only when no input is mapped (every example then gets the same
    /// inputs); when inputs are mapped it must agree with them.
    ///
    /// ```
    /// use systolic::{vmap, Array};
    /// let f = vmap(|x: &Array| x * 2.0).in_axes(None).axis_size(3);
    /// let y = f.call(&Array::scalar(1.5f32)).unwrap();
    /// assert_eq!(y.to_vec::<f32>().unwrap(), vec![3.0, 3.0, 3.0]);
    /// ```
    pub fn axis_size(mut self, size: usize) -> Self {
        self.axis_size = Some(size);
        self
    }

    /// Names the mapped axis (JAX's `axis_name`), so that collectives inside the function
    /// run across the examples: `lax::psum(x, name)` is the sum over the batch,
    /// `lax::axis_index(name)` each example's position, `lax::all_gather(x, name, …)` the
    /// whole batch (also `pmean`, `pmax`, `pmin`, `axis_size`, and `psum_scatter`,
    /// `ppermute` and `all_to_all`, which exchange parts between examples as JAX's batching
    /// rules do); all of them under `grad` and `jit` too.
    ///
    /// ```
    /// use systolic::{lax, vmap, Array};
    /// // Each example minus the batch mean.
    /// let f = vmap(|x: &Array| x - &lax::pmean(x, "b")).axis_name("b");
    /// let y = f.call(&Array::from_vec(vec![1.0f32, 2.0, 6.0], &[3])).unwrap();
    /// assert_eq!(y.to_vec::<f32>().unwrap(), vec![-2.0, -1.0, 3.0]);
    /// ```
    pub fn axis_name(mut self, name: &str) -> Self {
        self.axis_name = Some(name.to_string());
        self
    }

    /// Calls the mapped function on batched arguments.
    ///
    /// ```
    /// use systolic::{jit, numpy as np, vmap, Array};
    /// // Batched matrix-vector products, inside jit.
    /// let mv = |(m, v): &(Array, Array)| np::matmul(m, v);
    /// let f = jit(move |mvs: &(Array, Array)| vmap(mv).call(mvs).unwrap());
    /// let ms = Array::from_vec(vec![1.0f32, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 2.0], &[2, 2, 2]);
    /// let vs = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    /// let out = f.call(&(ms, vs)).unwrap();
    /// assert_eq!(out.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 6.0, 8.0]);
    /// ```
    pub fn call(&self, args: &A) -> Result<F::Output> {
        let p = self.prepare(args)?;
        let outs = call_func(&p.func, &p.args, &p.out_weak)?;
        p.template.rebuild(&mut outs.into_iter())
    }

    /// The batched function as IR (parameters: the input leaves, then arrays the function
    /// captures from outside), as [`call`](Vmap::call) would run it.
    ///
    /// ```
    /// use systolic::{vmap, Array};
    /// let x = Array::from_vec(vec![0.0f32; 12], &[4, 3]);
    /// let func = vmap(|r: &Array| r * 2.0).lower(&x).unwrap();
    /// assert_eq!(func.result_types[0].to_string(), "tensor<4x3xf32>");
    /// ```
    pub fn lower(&self, args: &A) -> Result<Func> {
        Ok(self.prepare(args)?.func)
    }

    fn prepare(&self, args: &A) -> Result<Prepared<F::Output>> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        for l in &leaves {
            l.check()?;
        }
        let in_axes = self
            .in_axes
            .per_leaf_of_tree("vmap", &args.def(), "in_axes")?;
        let mut size = self.axis_size;
        for (i, (l, a)) in leaves.iter().zip(&in_axes).enumerate() {
            let Some(a) = *a else { continue };
            if a >= l.rank() {
                return Err(Error::op(
                    "vmap",
                    format!(
                        "in_axes {a} is out of range for input leaf {i} of shape {:?}",
                        l.dims()
                    ),
                ));
            }
            let s = l.dims()[a] as usize;
            match size {
                Some(prev) if prev != s => {
                    return Err(Error::op(
                        "vmap",
                        format!(
                            "mapped sizes differ: input leaf {i} has size {s} along axis {a}, \
                             expected {prev}"
                        ),
                    ))
                }
                _ => size = Some(s),
            }
        }
        let size = size.ok_or_else(|| {
            Error::op(
                "vmap",
                "no input is mapped: give an axis_size or map an input",
            )
        })?;
        let avals: Vec<Array> = leaves
            .iter()
            .zip(&in_axes)
            .map(|(l, a)| match a {
                Some(a) => per_example(l, *a),
                None => l.clone(),
            })
            .collect();
        let _bound = self
            .axis_name
            .as_deref()
            .map(|name| crate::transforms::shard_map::axis_env::bind_batch_axis(name, size));
        let (staged, template) = stage_function("vmap", args, &avals, true, &self.f)?;
        let out_axes = self
            .out_axes
            .per_leaf_of_tree("vmap", &template.def(), "out_axes")?;
        let mut func_axes = in_axes;
        func_axes.extend(std::iter::repeat_n(None, staged.captures.len()));
        let func = systolic_vmap::vmap_named(
            &staged.func,
            &func_axes,
            size,
            &out_axes,
            self.axis_name.as_deref(),
        )
        .map_err(|e| Error::op("vmap", e.to_string()))?;
        let mut call_args = leaves;
        call_args.extend(staged.captures.iter().cloned());
        Ok(Prepared {
            func,
            args: call_args,
            out_weak: staged.out_weak,
            template,
        })
    }
}

impl<A: Tree, F: Function<A>> Function<A> for Vmap<A, F::Output, F> {
    type Output = F::Output;

    fn call(&self, args: &A) -> Result<F::Output> {
        Vmap::call(self, args)
    }
}
