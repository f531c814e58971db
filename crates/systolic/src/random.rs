//! `jax.random`: JAX's threefry2x32 PRNG in its default "partitionable" mode, as ordinary ops,
//! so draws run eagerly and inside `jit` alike and match JAX bit for bit.
//!
//! A key is a `uint32[2]` array (`jax.random.PRNGKey`'s raw form). Element `i` of any draw
//! hashes the counter `(i >> 32, i & 0xFFFFFFFF)` with the key, so draws are shape-independent
//! and prefix-stable.
//!
//! Samplers, each JAX 0.10.2's algorithm with its defaults (parameters are [`Param`]s:
//! numbers weakly typed as Python scalars, or arrays that broadcast against the shape):
//! - bits and integers: [`bits`], [`randint`] (two draws, the span/multiplier modulus,
//!   bounds clipped to the dtype), [`bernoulli`], [`rademacher`], [`geometric`];
//! - orderings and picks: [`permutation`], [`permutation_array`] (rounds of sorts by random
//!   keys), [`choice`], [`categorical`], [`categorical_without_replacement`] (Gumbel-max and
//!   Gumbel-top-k);
//! - floats: [`uniform`], [`normal`], [`truncated_normal`], [`gumbel`], [`exponential`],
//!   [`laplace`], [`logistic`], [`cauchy`], [`pareto`], [`rayleigh`], [`weibull_min`],
//!   [`lognormal`], [`maxwell`], [`double_sided_maxwell`], [`wald`], [`triangular`];
//! - the gamma family: [`gamma`], [`loggamma`], [`beta`], [`dirichlet`], [`chisquare`],
//!   [`student_t`], [`f`], [`generalized_normal`];
//! - counts by rejection loops: [`poisson`], [`binomial`], [`multinomial`].
//!
//! The rejection samplers (gamma, poisson, binomial) run JAX's `while` loops as traced
//! [`lax::while_loop`](crate::lax::while_loop)s, batched as JAX batches them, so they trace under `jit` and `vmap`
//! and every element equals JAX's however many rounds it takes.
//!
//! Integer, boolean, ordering, count and `uniform` draws equal JAX's bit for bit (tests/
//! `prng_golden.rs`, `prng_dists.rs`); so do the bf16/f16 float draws tested. f32 draws that
//! go through a transcendental (log, log1p, tan, exp, pow, erf, erf_inv) may differ from JAX
//! in the last place or few, since Systolic's kernels are not XLA:CPU's polynomials.
//!
//! ```
//! use systolic::random;
//! let key = random::key(0);
//! assert_eq!(key.to_vec::<u32>().unwrap(), vec![0, 0]);
//! let ks = random::split(&key, 2);
//! assert_eq!(ks[0].to_vec::<u32>().unwrap(), vec![1797259609, 2579123966]);
//! let u = random::uniform(&key, &[3], systolic_ir::DType::F32, 0.0, 1.0);
//! assert_eq!(u.to_vec::<f32>().unwrap()[0], 0.9476670026779175);
//! ```
//!
//! This module only re-exports; the implementation is in `ops/random/`.

pub use crate::ops::random::{
    bernoulli, beta, binomial, bits, categorical, categorical_without_replacement, cauchy,
    chisquare, choice, dirichlet, double_sided_maxwell, exponential, f, fold_in, gamma,
    generalized_normal, geometric, gumbel, key, laplace, loggamma, logistic, lognormal, maxwell,
    multinomial, normal, orthogonal, pareto, permutation, permutation_array, poisson, rademacher,
    randint, rayleigh, split, split_array, student_t, triangular, truncated_normal, uniform, wald,
    weibull_min, FoldInData, Param,
};
