//! Automatic differentiation as IR→IR transformations on [`systolic_ir::Func`].
//!
//! - [`jvp`]: forward mode. `f(x₁…xₙ) -> (y₁…yₘ)` becomes
//!   `f_jvp(x₁…xₙ, ẋ₁…ẋₙ) -> (y₁…yₘ, ẏ₁…ẏₘ)`.
//! - [`vjp`]: reverse mode. `f` becomes `f_vjp(x₁…xₙ, ȳ₁…ȳₘ) -> (y₁…yₘ, x̄ᵢ for i in wrt)`.
//!
//! Reverse mode is built as JAX builds it: the function is *linearized* (JVP rules emit the
//! primal ops and, separately, ops linear in the tangents), the primal ops form the forward
//! sweep (their values used by linear ops are the residuals), and the linear ops are
//! *transposed* in reverse order (one transpose rule per linear op) into the backward sweep;
//! cotangents of values used several times are summed. Control flow (`if`/`case`, `while`
//! with a static trip count) and rematerialised groups have their own backward rules that
//! recompute what they need. A final local DCE removes what the result does not use.
//!
//! One rule per op, by family, under `rules/`. Which op has which rule is decided in one place,
//! the router in `rules/mod.rs`: an exhaustive `match` over `OpKind` in which every op without a
//! rule is named in an explicit "no rule" arm, so a new op does not compile until it is decided
//! there. The table says how the families' rules behave (it is not the list of ops):
//!
//! | family | rules |
//! |---|---|
//! | `elementwise` | add, subtract, multiply, divide, remainder, negate, abs (complex: Re(conj(x)/\|x\|·ẋ)), sign/floor/ceil/round (zero), maximum/minimum (ties split), power, atan2, exponential, exponential_minus_one, log, log_plus_one, logistic, tanh, sqrt, rsqrt, cbrt, sine, cosine, tan; real, imag, complex, chlo conj; chlo erf, erfc, erf_inv, square, atan, asin, acos, sinh, cosh, asinh, acosh, atanh, tan, lgamma, digamma; select, clamp, convert (among floats and complex; integers carry no tangent), reduce_precision; compare, iota, constant, rng ops, bitcast (no tangent) |
//! | `shape` | broadcast_in_dim, broadcast, reshape, transpose, slice, pad (operand and padding value), concatenate, reverse |
//! | `indexing` | dynamic_slice, dynamic_update_slice, gather, scatter (add; set, with duplicate indices through the winner of each location; max/min, ties averaged; multiply, in its updates only with unique indices; all as JAX; updates the scatter drops get no cotangent), sort (through the permutation), chlo.top_k |
//! | `reduce` | reduce with add, multiply (division-free), max/min (ties split, as JAX) |
//! | `window` | reduce_window add (transposed as a padded strided window sum), multiply (division-free) and max/min (first maximum of each window), select_and_scatter |
//! | `dot`, `conv` | dot_general (any dimension numbers, mixed precision), dot, convolution (strides, padding, lhs/rhs dilation, feature and batch groups) |
//! | `linalg` | triangular_solve (all forms), cholesky (real and complex: Hermitian factors) |
//! | `fft` | fft: FFT ↔ FFT, IFFT ↔ IFFT, RFFT ↔ real part of the FFT of the zero-padded cotangent, IRFFT ↔ conjugated, weighted RFFT (JAX's) |
//! | `collective` | all_reduce (sum: tangent all_reduce, transpose the identity — JAX's psum ↔ pvary under `check_vma`; max/min/product: no rule, as JAX), `custom_call @systolic.pvary` (tangent pvary, transpose all_reduce sum over its groups), all_gather ↔ reduce_scatter (sum), all_to_all (split/concat swapped), collective_permute (inverse pairs), collective_broadcast (group sum on the root, by one all_to_all), replica_id/partition_id (no tangent); channel handles made unique |
//! | `batch_collective` | `custom_call @systolic.batch_collective` (a collective over a named vmap axis, before `vmap` lowers it): psum ↔ psum, all_gather ↔ psum_scatter, ppermute ↔ the inverse pairs, all_to_all ↔ split/concat swapped, axis_index no tangent, pmax/pmin no rule (as JAX) |
//! | `manual_computation` (forward and reverse) | sdy.manual_computation (JAX's shard_map): a manual computation over primals and tangents whose body is the body's JVP; reverse mode a backward manual computation over the operands and the results' cotangents whose body recomputes the body and transposes it (no residuals cross the boundary: their global type would need the mesh's size) |
//! | `control` (forward and reverse) | if/case (both modes), while (forward mode; reverse mode with a static trip count), optimization_barrier; `func.call`/composites are inlined first |
//!
//! Complex values carry complex tangents, with JAX's conventions: holomorphic functions have
//! their real rules with complex coefficients, and transposes do not conjugate, so a
//! cotangent pairs with a tangent as Re Σ c·t and the cotangent of a real loss of a complex
//! input is the conjugate of its steepest-ascent direction (what `jax.grad` returns).
//!
//! Integer and boolean values carry no tangent: the
//! cotangent of an integer input is zero (of its own dtype, where JAX would use `float0`), and
//! cotangents passed for integer outputs are ignored.
//!
//! Custom rules (`custom.rs`, JAX's `custom_jvp`/`custom_vjp`): a function staged between two
//! `optimization_barrier`s tagged [`CUSTOM_RULE_ATTR`]/[`CUSTOM_RULE_END_ATTR`] is
//! differentiated by the rule registered under the tag ([`register_custom_rule`]) instead of
//! through its ops: a JVP rule is inlined in both modes (transposed in reverse mode), a VJP
//! rule's forward function is inlined and its backward function runs at transposition.
//! `systolic_vmap` batches such a function's rule with it and registers the batched rule under
//! a new id ([`custom_rule`] reads a registered rule), so `grad` of a `vmap` applies it too.
//!
//! Rematerialisation ([`REMAT_ATTR`]): ops carrying the attribute `systolic.remat = <group>`
//! (or calls to a function carrying it, when differentiating a module) are recomputed in the
//! backward sweep from their inputs, passed through an `optimization_barrier` so CSE cannot
//! merge the recomputation back into the forward sweep (XLA's approach).
//!
//! ```
//! use systolic_ir::text::parse_module;
//! let m = parse_module(
//!     "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n\
//!        %0 = stablehlo.multiply %x, %x : tensor<3xf32>\n\
//!        return %0 : tensor<3xf32>\n\
//!      }",
//!     "doc",
//! ).unwrap();
//! let df = systolic_autodiff::vjp(&m.funcs[0], &[0]).unwrap();
//! // (x, ȳ) -> (x·x, 2·x·ȳ)
//! assert_eq!(df.param_types().len(), 2);
//! assert_eq!(df.result_types.len(), 2);
//! ```

#![warn(missing_docs)]

mod ad;
mod builder;
mod custom;
mod dce;
mod inline;
mod rules;
mod vjp;

pub use custom::{
    custom_rule, register_custom_rule, tag as custom_rule_tag, CustomRule, CUSTOM_RULE_ATTR,
    CUSTOM_RULE_END_ATTR,
};
pub use dce::dce;
pub use inline::inline_calls;

use systolic_ir::{Func, Module};

/// The attribute that marks an op (or a function, for calls to it) as rematerialised: its
/// values are recomputed in the backward sweep instead of being saved. The value is an integer
/// group id; ops of one group are recomputed together.
pub const REMAT_ATTR: &str = "systolic.remat";

/// Why a function could not be differentiated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("autodiff: {message}")]
pub struct Error {
    /// What went wrong (names the op when an op has no rule).
    pub message: String,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
        }
    }
}

/// Forward mode: `f(x…) -> y…` becomes `f_jvp(x…, ẋ…) -> (y…, ẏ…)`; the tangent parameters and
/// results have the types of the primal ones (integer ones are accepted and ignored as inputs,
/// zero as outputs).
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n\
///        %0 = stablehlo.sine %x : tensor<f32>\n\
///        return %0 : tensor<f32>\n\
///      }",
///     "doc",
/// ).unwrap();
/// let f = systolic_autodiff::jvp(&m.funcs[0]).unwrap();
/// assert_eq!(f.param_types().len(), 2);
/// let m2 = systolic_ir::Module { funcs: vec![f], ..Default::default() };
/// let text = systolic_ir::text::print_module(&m2);
/// assert!(text.contains("stablehlo.cosine"), "{text}");
/// ```
pub fn jvp(func: &Func) -> Result<Func, Error> {
    let mut f = ad::jvp_func(func)?;
    rules::collective::unique_channels(&mut f);
    Ok(f)
}

/// Reverse mode: `f(x…) -> y…` becomes `f_vjp(x…, ȳ…) -> (y…, x̄ᵢ for i in wrt)`. `wrt` lists
/// parameter positions; the cotangent parameters have the types of the results.
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {\n\
///        %0 = stablehlo.add %x, %y : tensor<2xf32>\n\
///        return %0 : tensor<2xf32>\n\
///      }",
///     "doc",
/// ).unwrap();
/// let f = systolic_autodiff::vjp(&m.funcs[0], &[1]).unwrap();
/// assert_eq!(f.result_types.len(), 2); // x + y and ȳ
/// ```
pub fn vjp(func: &Func, wrt: &[usize]) -> Result<Func, Error> {
    let mut f = vjp::vjp_func(func, wrt)?;
    rules::collective::unique_channels(&mut f);
    Ok(f)
}

/// [`jvp`] of function `name` of `module`, with its `func.call`s inlined first.
pub fn jvp_in_module(module: &Module, name: &str) -> Result<Func, Error> {
    jvp(&inline_calls(module, name)?)
}

/// [`vjp`] of function `name` of `module`, with its `func.call`s inlined first (calls to a
/// function carrying [`REMAT_ATTR`] are rematerialised).
///
/// ```
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n\
///        %0 = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>\n\
///        return %0 : tensor<f32>\n\
///      }\n\
///      func.func private @sq(%a: tensor<f32>) -> tensor<f32> {\n\
///        %0 = stablehlo.multiply %a, %a : tensor<f32>\n\
///        return %0 : tensor<f32>\n\
///      }",
///     "doc",
/// ).unwrap();
/// let f = systolic_autodiff::vjp_in_module(&m, "main", &[0]).unwrap();
/// assert_eq!(f.result_types.len(), 2);
/// ```
pub fn vjp_in_module(module: &Module, name: &str, wrt: &[usize]) -> Result<Func, Error> {
    vjp(&inline_calls(module, name)?, wrt)
}

/// Marks every op of `func` (nested ones included) as one rematerialisation group `group`
/// (see [`REMAT_ATTR`]).
pub fn mark_remat(func: &mut Func, group: i64) {
    systolic_ir::walk::walk_ops_mut(&mut func.body, &mut |op, _| {
        if !op.kind.is_terminator() {
            op.attrs.retain(|a| a.name != REMAT_ATTR);
            op.attrs.push(systolic_ir::NamedAttr::new(
                REMAT_ATTR,
                systolic_ir::Attribute::Int(group, None),
            ));
        }
    });
}
