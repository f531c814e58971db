//! Vectorising map as an IR→IR transformation.
//!
//! [`vmap`] takes a function over unbatched values and returns the function over batched values:
//! every parameter with an `in_axes` entry gets a batch dimension of size `axis_size` at that
//! position, and every result gets one at its `out_axes` position.
//!
//! The transformation walks the function once, op by op, and keeps for every value whether it is
//! batched and along which dimension. Each op has one batching rule (in `rules/`, one
//! file per op family) that moves the batch dimension where the rule wants it and emits the
//! batched op. Values that do not depend on a batched input stay unbatched: their ops are copied
//! unchanged. The approach follows JAX's batching interpreter (`jax/_src/interpreters/batching.py`
//! and the per-primitive rules), done on the IR instead of on a trace.
//!
//! | family (file in `rules/`) | ops | how |
//! |---|---|---|
//! | `elementwise` | unary/binary (StableHLO and CHLO), compare, select, clamp, convert, reduce_precision, map, bitcast_convert | batch dim where the first batched operand has it; unbatched full-rank operands broadcast, scalar select/clamp operands kept |
//! | `shape` | broadcast_in_dim, broadcast, reshape, transpose, slice, concatenate, pad (batched pad value: pad + mask select), reverse, get_dimension_size | batch dim kept or moved to the front |
//! | `indexing` | dynamic_slice, dynamic_update_slice, gather, scatter | batched start indices → gather/scatter with batching dims (indices clamped as the dynamic ops do) |
//! | `reduce` | reduce, reduce_window, select_and_scatter, sort, top_k | batch dim kept out of reduced dims and windows; batched init values: error |
//! | `dot` | dot_general, dot | both batched: new batch dim; one side: a free dim of that side |
//! | `conv` | convolution | input batched: folded into N; kernel: into output features; both: feature (or batch) groups |
//! | `linalg` | cholesky, triangular_solve, fft | leading batch dim |
//! | `control` | while, if, case, optimization_barrier | batched predicate: while runs while any example runs and selects carries; if/case run every branch and select |
//! | `rng` | rng_bit_generator | as JAX: one generator on the first example's state draws every example's bits; only that state advances |
//! | `collective` | all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute, collective_broadcast, `custom_call @systolic.pvary` | the same collective on the batched arrays, batch dim at 0, dimension attributes shifted; unbatched operands broadcast; batched broadcast roots: error (replica_id/partition_id stay unbatched) |
//! | `shardy` | sharding_constraint, manual_computation | the constraint with an open batch dimension; a manual computation over the batched body, batch dimensions unsharded (an empty dimension sharding at their position) |
//! | `custom_rule` | optimization_barriers tagged with a custom differentiation rule (`systolic_autodiff::CUSTOM_RULE_ATTR`) | the rule's IR functions batched too and registered under a new id that tags the batched barriers; values crossing the barriers batched at 0 |
//! | `custom` | custom_call | annotations (Sharding, placement, layout) pass through; other targets: error |
//!
//! Which op has which rule is decided in one place, the router in `rules/mod.rs`: an exhaustive
//! `match` over `OpKind`, so a new op does not compile until it is decided there; the table says
//! how the families' rules behave. Ops with no rule (there, in one explicit arm: send/recv,
//! infeed/outfeed, batch_norm_*, the deprecated rng, tuples; opaque custom calls in `custom`)
//! are copied when none of their inputs is batched and are an error naming the op otherwise.
//! [`vmap_module`] first inlines calls and composites.
//!
//! ```
//! use systolic_ir::text::parse_module;
//! let m = parse_module(
//!     "func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
//!        %0 = stablehlo.multiply %x, %y : tensor<3xf32>
//!        return %0 : tensor<3xf32>
//!      }",
//!     "ex",
//! )
//! .unwrap();
//! // Map over the first dimension of x (size 5); y is shared by every example.
//! let f = systolic_vmap::vmap(&m.funcs[0], &[Some(0), None], 5, &[Some(1)]).unwrap();
//! let text = systolic_ir::text::print_module(&systolic_ir::Module {
//!     funcs: vec![f],
//!     ..Default::default()
//! });
//! assert!(text.contains("tensor<5x3xf32>"), "{text}");
//! assert!(text.contains("-> tensor<3x5xf32>"), "{text}");
//! ```

#![warn(missing_docs)]

mod builder;
mod inline;
mod rules;
mod transform;

pub use inline::inline_calls;
pub use transform::{vmap, vmap_module, vmap_named};

/// Why a function could not be batched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("vmap: {op}: {message}")]
pub struct VmapError {
    /// The op (e.g. `stablehlo.custom_call`) or `func` for signature problems.
    pub op: String,
    /// What went wrong.
    pub message: String,
}

impl VmapError {
    /// An error about `op`.
    pub(crate) fn new(op: impl Into<String>, message: impl Into<String>) -> Self {
        VmapError {
            op: op.into(),
            message: message.into(),
        }
    }
}

/// The result of the transformation.
pub type Result<T> = std::result::Result<T, VmapError>;
