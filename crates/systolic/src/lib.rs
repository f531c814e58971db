//! Systolic's front end: what a Rust user of the system touches, shaped like JAX.
//!
//! - [`Array`]: shape, dtype, weak-type flag, device; Rust operators with numpy broadcasting
//!   and JAX's type promotion ([`promote`]).
//! - [`numpy`] and [`lax`]: the two op namespaces.
//! - [`jit`]: trace a function over pytrees ([`Tree`](trait@Tree), `#[derive(Tree)]`) into the
//!   IR, compile, cache per signature; [`Static`] values are static arguments. Calls dispatch
//!   asynchronously, like eager ops.
//! - Transformations ([`grad`], [`vmap`], [`jacfwd`], [`checkpoint`], [`shard_map`], …) take
//!   and are [`Function`]s (a closure `Fn(&A) -> R`, or another transformation), so they
//!   compose as JAX's do: `jit(vmap(grad(loss)))`, `grad(jit(f))`, with the inner failures
//!   returned by the outer `call`.
//! - [`random`]: JAX's threefry2x32 PRNG, bit-exact, as traceable ops.
//! - Eager execution: ops on concrete arrays run at once as cached single-op executables.
//!
//! ```
//! use systolic::{jit, numpy as np, Array};
//! let x = Array::from_vec(vec![1.0f32, -2.0, 3.0], &[3]);
//! let relu_sum = |x: &Array| np::sum(&np::maximum(x, &np::zeros(&[], systolic_ir::DType::F32)), None, false);
//! let eager = relu_sum(&x).to_vec::<f32>().unwrap();
//! let jitted = jit(relu_sum).call(&x).unwrap().to_vec::<f32>().unwrap();
//! assert_eq!(eager, vec![4.0]);
//! assert_eq!(jitted, eager);
//! // Transformations compose without closures: the gradient of relu_sum, compiled.
//! let g = systolic::jit(systolic::grad(relu_sum)).call(&x).unwrap();
//! assert_eq!(g.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 1.0]);
//! ```

#![warn(missing_docs)]

// `#[derive(Tree)]` expands to `::systolic::…` paths; this makes them resolve inside the crate too.
extern crate self as systolic;

mod array;
pub mod checkpoint;
pub mod config;
mod core;
pub mod data;
pub mod debug;
mod device;
mod display;
mod element;
mod error;
pub mod lax;
pub mod nn;
pub mod numpy;
mod operators;
mod ops;
pub mod optim;
pub mod profiler;
pub mod random;
pub mod scipy;
mod sharding;
mod transforms;
pub mod tree;

pub use crate::core::eager::eager_cache_len;
pub use crate::core::promote;
pub use crate::core::scope::{named_scope, NamedScope};
pub use array::Array;
pub use device::{client, default_device, device, devices, set_cpu_devices, set_tpus};
pub use element::Element;
pub use error::{Error, Result};
/// The host elements of `complex<f32>` and `complex<f64>` arrays.
pub use num_complex::{Complex32, Complex64};
pub use operators::WeakScalar;
pub use ops::elementwise::{weak_complex, weak_float, weak_int};
pub use ops::linalg::DotOptions;
pub use sharding::{
    device_put, make_mesh, make_mesh_of, visualize_sharding, DimSpec, Mesh, NamedSharding,
    PartitionSpec, Placement, Shard, Shardings, Unconstrained,
};
/// Derives [`Tree`](trait@Tree) for a struct or enum; fields marked `#[tree(static)]` are part
/// of the structure (and the jit cache key), `#[tree(skip)]` ones are neither leaves nor
/// structure.
///
/// ```
/// use systolic::{jit, Array, Tree};
/// #[derive(Tree, Clone)]
/// struct Layer { w: Array, b: Array, #[tree(static)] act: &'static str }
/// let layer = Layer { w: Array::scalar(2.0f32), b: Array::scalar(1.0f32), act: "relu" };
/// assert_eq!(layer.structure(), r#"Layer{w:*,b:*,act:static "relu"}"#);
/// let f = jit(|l: &Layer| &l.w + &l.b);
/// assert_eq!(f.call(&layer).unwrap().to_vec::<f32>().unwrap(), vec![3.0]);
/// ```
pub use systolic_derive::Tree;
/// The IR's types a user of the front end touches (dtypes, host tensors, the `lax` dimension
/// numbers and windows), so `systolic` is the one crate to depend on.
pub use systolic_ir::{
    DType, DTypeKind, DotDimensionNumbers, GatherDimensionNumbers, Precision,
    ScatterDimensionNumbers, Tensor, TensorType, Window,
};
pub use transforms::aot::Compiled;
pub use transforms::custom::{custom_jvp, custom_vjp, CustomJvp, CustomVjp};
pub use transforms::fallible::{jit_fallible, JitFallible};
pub use transforms::function::{fallible, Fallible, Function};
pub use transforms::grad::{
    checkpoint, grad, jvp, value_and_grad, value_and_grad_with_aux, vjp, Arg, ArgNums, Checkpoint,
    Grad, GradArgnums, ValueAndGrad, ValueAndGradAux, Vjp,
};
pub use transforms::jac::{hessian, jacfwd, jacrev, linearize, Hessian, Jacobian, Linearized};
pub use transforms::jit::{jit, Jit, Lowered};
pub use transforms::remat::{checkpoint_name, RematPolicy};
pub use transforms::shard_map::{pmap, shard_map, CompiledSpmd, Pmap, ShardMap, Specs};
pub use transforms::vmap::{vmap, Axes, Vmap};
pub use tree::{
    tree_flatten, tree_flatten_with_path, tree_leaves, tree_map, tree_map2, tree_map3, tree_map_n,
    tree_map_with_path, tree_reduce, tree_structure, tree_transpose, tree_unflatten,
    tree_unflatten_as, DynTree, KeyPath, PathKey, Static, Tree, TreeDef,
};
