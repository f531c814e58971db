"""Exports forward functions as StableHLO text and JAX's VJP/JVP values for them, for the
systolic-autodiff tests (run with the JAX venv:
`/root/.cache/systolic-jax-venv/bin/python make_grad_goldens.py`).

Each case: the text of `jax.jit(f).lower(*args).as_text()`, the arguments, a cotangent per
output, JAX's cotangents of every float argument (`jax.vjp`), a tangent per float argument and
JAX's output tangents (`jax.jvp`). Cases run in f64 (the tests also check the transformed
programs against central finite differences) except a few f32 end-to-end programs."""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(0)


def rand(*shape, dtype=np.float64, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def pos(*shape, dtype=np.float64):
    return rand(*shape, dtype=dtype, lo=0.5, hi=2.0)


CASES = {}


def case(name, *args, tol=None):
    def deco(f):
        CASES[name] = (f, args, tol)
        return f

    return deco


# ---- elementwise
for name, fn, gen in [
    ("add", lambda x, y: x + y, rand),
    ("sub", lambda x, y: x - y, rand),
    ("mul", lambda x, y: x * y, rand),
    ("div", lambda x, y: x / y, pos),
    ("max", jnp.maximum, rand),
    ("min", jnp.minimum, rand),
    ("pow", lambda x, y: x**y, pos),
    ("atan2", jnp.arctan2, rand),
    ("rem", lambda x, y: lax.rem(x, y), pos),
]:
    case(name, gen(3, 4), gen(3, 4))(fn)

for name, fn, gen in [
    ("neg", lambda x: -x, rand),
    ("exp", jnp.exp, rand),
    ("log", jnp.log, pos),
    ("log1p", jnp.log1p, pos),
    ("expm1", jnp.expm1, rand),
    ("tanh", jnp.tanh, rand),
    ("logistic", jax.nn.sigmoid, rand),
    ("sqrt", jnp.sqrt, pos),
    ("rsqrt", lax.rsqrt, pos),
    ("cbrt", jnp.cbrt, pos),
    ("abs", jnp.abs, rand),
    ("sign", lambda x: jnp.sign(x) * x, rand),
    ("sin", jnp.sin, rand),
    ("cos", jnp.cos, rand),
    ("tan", jnp.tan, rand),
    ("erf", lax.erf, rand),
    ("erf_inv", lax.erf_inv, rand),
    ("square", jnp.square, rand),
    ("atan", jnp.arctan, rand),
    ("asin", jnp.arcsin, lambda *s: rand(*s) * 0.8),
    ("acos", jnp.arccos, lambda *s: rand(*s) * 0.8),
    ("sinh", jnp.sinh, rand),
    ("cosh", jnp.cosh, rand),
    ("asinh", jnp.arcsinh, rand),
    ("acosh", jnp.arccosh, lambda *s: pos(*s) + 1.0),
    ("atanh", jnp.arctanh, lambda *s: rand(*s) * 0.8),
    ("lgamma", lax.lgamma, pos),
    ("floor", lambda x: jnp.floor(x) + x, rand),
    ("convert", lambda x: x.astype(jnp.float32).astype(jnp.float64) * x, rand),
    ("integer_pow", lambda x: x**3, rand),
    ("relu", jax.nn.relu, rand),
    ("gelu", jax.nn.gelu, rand),
    ("softplus", jax.nn.softplus, rand),
]:
    case("u_" + name, gen(3, 4))(fn)

case("select", rand(3, 4), rand(3, 4), rand(3, 4))(lambda p, x, y: jnp.where(p > 0, x, y))
case("clamp", rand(3, 4) * 2)(lambda x: jnp.clip(x, -0.5, 0.5))
case("clamp_all", rand(4) * 0.2 - 0.5, rand(4) * 2, rand(4) * 0.2 + 0.5)(
    lambda lo, x, hi: lax.clamp(lo, x, hi)
)

# ---- shapes
case("broadcast", rand(3))(lambda x: jnp.broadcast_to(x[:, None], (3, 4)) * jnp.arange(4.0))
case("reshape", rand(3, 4))(lambda x: x.reshape(2, 6) * jnp.arange(6.0))
case("transpose", rand(2, 3, 4))(lambda x: jnp.transpose(x, (2, 0, 1)) * jnp.arange(3.0))
case("slice", rand(5, 6))(lambda x: x[1:4, ::2])
case("pad", rand(3, 4))(lambda x: lax.pad(x, 0.5, [(1, 2, 1), (-1, 1, 0)]))
case("pad_value", rand(3, 4), rand())(lambda x, v: lax.pad(x, v, [(1, 2, 1), (0, 1, 0)]))
case("concat", rand(2, 3), rand(4, 3))(lambda x, y: jnp.concatenate([x, y * 2, x], axis=0))
case("reverse", rand(3, 4))(lambda x: jnp.flip(x, (0, 1)) * jnp.arange(4.0))
case("dynamic_slice", rand(5, 6), np.int32(2))(
    lambda x, i: lax.dynamic_slice(x, (i, i + np.int32(1)), (2, 3))
)
case("dynamic_update_slice", rand(5, 6), rand(2, 3), np.int32(1))(
    lambda x, u, i: lax.dynamic_update_slice(x, u * u, (i, np.int32(2)))
)
case("gather", rand(5, 3), np.array([0, 4, 2, 2, 1], np.int32))(lambda x, i: x[i])
# Out of range: the gather clamps, JAX's transpose (a scatter) drops the window (so its VJP
# and JVP disagree there; the tests skip their consistency check for `_oob` cases).
case("gather_oob", rand(5, 3), np.array([0, 4, 2, 2, 7], np.int32))(lambda x, i: x[i])
case("gather_2d", rand(4, 5), np.array([[0, 1], [3, 4], [3, 4]], np.int32))(
    lambda x, i: x[i[:, 0], i[:, 1]]
)
case("take_along", rand(3, 5), np.array([[0, 4], [1, 1], [3, 2]], np.int32))(
    lambda x, i: jnp.take_along_axis(x, i, axis=1)
)
case("scatter_add", rand(5, 3), rand(4, 3), np.array([0, 2, 2, 4], np.int32))(
    lambda x, u, i: x.at[i].add(u * u)
)
case("scatter_set", rand(5, 3), rand(3, 3), np.array([0, 3, 2], np.int32))(
    lambda x, u, i: x.at[i].set(u * 2.0) * x
)

# ---- reductions
case("reduce_sum", rand(3, 4))(lambda x: jnp.sum(x * x, axis=1))
case("reduce_max", rand(3, 4))(lambda x: jnp.max(x, axis=0))
case("reduce_min", rand(3, 4, 2))(lambda x: jnp.min(x, axis=(0, 2)))
case("reduce_max_ties", np.array([1.0, 3.0, 3.0]))(lambda x: jnp.max(x))
case("reduce_prod", rand(3, 4))(lambda x: jnp.prod(x, axis=1))
case("reduce_prod_zeros", np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]]))(
    lambda x: jnp.prod(x, axis=1)
)
case("argmax", rand(3, 4))(lambda x: x[jnp.arange(3), jnp.argmax(x, axis=1)])
case("mean_var", rand(4, 5))(lambda x: jnp.var(x, axis=1) + jnp.mean(x))
case("cumsum", rand(3, 5))(lambda x: jnp.cumsum(x, axis=1))
case("cumprod", rand(3, 5))(lambda x: jnp.cumprod(x, axis=1))
case("cummax", rand(3, 5))(lambda x: lax.cummax(x, axis=1))
# JAX has no reverse mode for a general windowed product (only jvp values are compared).
case("jvponly_window_prod", np.array([[0.0, 1.5, -2.0, 0.5], [1.0, 0.0, 0.0, 2.0], [0.7, 1.2, -0.4, 3.0]]))(
    lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 2), [(1, 0), (0, 1)])
)
case("cumprod_free", rand(6))(lambda x: jnp.cumsum(x * x))
case("logsumexp", rand(3, 4))(lambda x: jax.nn.logsumexp(x, axis=1))
case("avg_pool", rand(1, 6, 6, 2))(
    lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
)
case("max_pool", rand(1, 6, 6, 2))(
    lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
)
case("max_pool_pad", rand(1, 5, 5, 1))(
    lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
)
case("window_dilated", rand(7, 6))(
    lambda x: lax.reduce_window(
        x, 0.0, lax.add, (2, 2), (1, 2), [(1, 0), (0, 1)], window_dilation=(2, 1)
    )
)

# ---- products
case("matmul", rand(3, 4), rand(4, 5))(lambda a, b: a @ b)
case("matvec", rand(3, 4), rand(4))(lambda a, b: a @ b)
case("einsum_batch", rand(2, 3, 4), rand(2, 4, 5))(lambda a, b: jnp.einsum("bij,bjk->bki", a, b))
case("einsum_odd", rand(4, 2, 3), rand(3, 5, 2))(lambda a, b: jnp.einsum("kbi,ijb->jbk", a, b))
case("conv", rand(2, 6, 6, 3), rand(3, 3, 3, 4))(
    lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
)
case("conv_strided", rand(2, 3, 7, 7), rand(4, 3, 3, 2))(
    lambda x, w: lax.conv_general_dilated(x, w, (2, 2), [(1, 0), (2, 1)], rhs_dilation=(1, 2))
)
case("conv_lhs_dilated", rand(1, 2, 4, 4), rand(3, 2, 3, 3))(
    lambda x, w: lax.conv_general_dilated(x, w, (1, 1), [(1, 1), (2, 2)], lhs_dilation=(2, 2))
)
case("conv_grouped", rand(2, 4, 5, 5), rand(6, 2, 3, 3))(
    lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2)
)
case("conv_depthwise", rand(1, 5, 5, 3), rand(3, 3, 1, 3))(
    lambda x, w: lax.conv_general_dilated(
        x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=3
    )
)
case("conv1d", rand(2, 3, 9), rand(5, 3, 4))(
    lambda x, w: lax.conv_general_dilated(x, w, (3,), [(2, 1)])
)

# ---- permutations
case("sort", rand(3, 5))(lambda x: jnp.sort(x, axis=1) * jnp.arange(5.0))
case("sort_pair", rand(6), rand(6))(lambda k, v: lax.sort((k, v), num_keys=1)[1] * k)
case("top_k", rand(3, 6))(lambda x: lax.top_k(x, 3)[0] * jnp.arange(3.0))

# ---- control flow
case("cond", rand(3), np.int32(1))(lambda x, p: lax.cond(p > 0, lambda x: jnp.sin(x) * x, jnp.cos, x))
case("cond_capture", rand(3), rand(3), np.int32(0))(
    lambda x, y, p: lax.cond(p > 0, lambda v: v * y, lambda v: jnp.exp(v) * y, x)
)
case("switch", rand(3), np.int32(2))(
    lambda x, i: lax.switch(i, [jnp.sin, jnp.cos, lambda v: v * v * x[0]], x)
)
case("fori", rand(3))(lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * x + i, x))
case("scan", rand(5), rand(2))(
    lambda xs, w: lax.scan(lambda c, x: (jnp.tanh(c * w[0] + x), c * x * w[1]), 0.3, xs)
)
case("scan_cond", rand(4), rand(3))(
    lambda xs, w: lax.scan(
        lambda c, x: (lax.cond(x > 0, lambda: jnp.sin(c * w), lambda: c * x), None), w, xs
    )[0]
)
case("fori_cos", rand(3))(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.cos(c) + x * c, x))
case("fori_nested", rand(3))(
    lambda x: lax.fori_loop(
        0, 2, lambda i, c: lax.fori_loop(0, 3, lambda j, d: jnp.sin(d) * c + x, c) * 0.5, x
    )
)
# Forward mode only: a loop with a data-dependent trip count.
case("fwd_while", rand(3))(
    lambda x: lax.while_loop(lambda c: c[1] < 3.0, lambda c: (jnp.sin(c[0]) * x, c[1] + jnp.sum(x * x) + 1.0), (x, 0.0))[0]
)
case("remat", rand(4))(lambda x: jax.checkpoint(lambda v: jnp.sin(jnp.sin(v)) * 2.0)(x))


# ---- programs (f32, as JAX runs them)
def mlp_loss(w1, b1, w2, b2, x, y):
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return jnp.mean((logits - y) ** 2)


f32 = np.float32
case(
    "prog_mlp",
    rand(8, 16, dtype=f32) * 0.3,
    rand(16, dtype=f32) * 0.1,
    rand(16, 4, dtype=f32) * 0.3,
    rand(4, dtype=f32) * 0.1,
    rand(5, 8, dtype=f32),
    rand(5, 4, dtype=f32),
    tol=1e-4,
)(mlp_loss)


def softmax_xent(logits, labels):
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 6), axis=-1))


case("prog_softmax_xent", rand(4, 6, dtype=f32) * 3, np.array([0, 5, 2, 2], np.int32), tol=1e-4)(
    softmax_xent
)


def layer_norm(x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return jnp.sum(((x - m) * lax.rsqrt(v + 1e-5) * g + b) ** 2)


case("prog_layer_norm", rand(3, 8, dtype=f32), rand(8, dtype=f32), rand(8, dtype=f32), tol=1e-4)(
    layer_norm
)


def conv_net(w1, w2, x):
    h = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jax.nn.relu(h)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = lax.conv_general_dilated(h, w2, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.sum(jnp.tanh(h))


case(
    "prog_conv_net",
    rand(3, 3, 2, 4, dtype=f32) * 0.5,
    rand(2, 2, 4, 3, dtype=f32) * 0.5,
    rand(2, 6, 6, 2, dtype=f32),
    tol=1e-4,
)(conv_net)


def attention(q, k, v, wo):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / np.float32(np.sqrt(q.shape[-1]))
    mask = jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool))
    s = jnp.where(mask, s, -1e9)
    p = jax.nn.softmax(s, axis=-1)
    o = jnp.einsum("bqk,bkd->bqd", p, v)
    return jnp.sum(jnp.tanh(o @ wo))


case(
    "prog_attention",
    rand(2, 4, 8, dtype=f32),
    rand(2, 4, 8, dtype=f32),
    rand(2, 4, 8, dtype=f32),
    rand(8, 8, dtype=f32) * 0.3,
    tol=1e-4,
)(attention)


# ---- low precision (bf16/f16 programs, tolerance as JAX's own tests)
bf16 = jnp.bfloat16
case("bf16_mlp", rand(4, 8).astype(bf16), rand(8, 6).astype(bf16), rand(6).astype(bf16), tol=2e-2)(
    lambda x, w, b: jnp.sum(jnp.tanh(jnp.dot(x, w, preferred_element_type=jnp.float32) + b))
)
case("f16_softmax", rand(3, 5).astype(np.float16), tol=2e-3)(
    lambda x: jnp.sum(jax.nn.softmax(x, axis=-1) * jnp.arange(5.0, dtype=np.float16))
)
case("bf16_to_f32", rand(6).astype(bf16), tol=1e-2)(
    lambda x: jnp.sum(jnp.sin(x.astype(jnp.float32)) * 2.0)
)


# ---- second order: JAX's own backward programs, differentiated again (f64)
case("hvp_mlp", *[rand(*a.shape) for a in CASES["prog_mlp"][1]])(
    lambda *a: jax.grad(mlp_loss, argnums=(0, 2))(*a)
)
case("hvp_softmax_xent", rand(4, 6) * 3, np.array([0, 5, 2, 2], np.int32))(
    jax.grad(softmax_xent)
)
case("hvp_layer_norm", rand(3, 8), rand(8), rand(8))(jax.grad(layer_norm, argnums=(0, 1)))
case("hvp_conv_net", rand(3, 3, 2, 4) * 0.5, rand(2, 2, 4, 3) * 0.5, rand(2, 6, 6, 2))(
    jax.grad(conv_net, argnums=(0, 1))
)
case("hvp_attention", rand(2, 4, 8), rand(2, 4, 8), rand(2, 4, 8), rand(8, 8) * 0.3)(
    jax.grad(attention, argnums=(0, 3))
)
case("hvp_scan", rand(5), rand(2))(
    jax.grad(
        lambda xs, w: jnp.sum(
            lax.scan(lambda c, x: (jnp.tanh(c * w[0] + x), c * x * w[1]), 0.3, xs)[1]
        ),
        argnums=(0, 1),
    )
)
case("hvp_max_pool", rand(1, 6, 6, 2))(
    jax.grad(
        lambda x: jnp.sum(
            jnp.sin(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"))
        )
    )
)
case("hvp_cumsum_pad", rand(3, 5))(
    jax.grad(lambda x: jnp.sum(jnp.sin(jnp.cumsum(jnp.pad(x, ((1, 0), (2, 1))), axis=1))))
)


case("conv_batch_group", rand(4, 3, 5, 5), rand(6, 3, 3, 3))(
    lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", batch_group_count=2)
)
case("hvp_conv_grouped", rand(2, 4, 5, 5), rand(6, 2, 3, 3))(
    jax.grad(
        lambda x, w: jnp.sum(
            jnp.sin(lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2))
        ),
        argnums=(0, 1),
    )
)
case("hvp_conv_strided", rand(2, 3, 7, 7), rand(4, 3, 3, 2))(
    jax.grad(
        lambda x, w: jnp.sum(
            jnp.tanh(
                lax.conv_general_dilated(x, w, (2, 2), [(1, 0), (2, 1)], rhs_dilation=(1, 2))
            )
        ),
        argnums=(0, 1),
    )
)

# ---- replacing scatters whose indices repeat. Arguments come from their own generator so
# that the cases above keep their data. JAX leaves the winner of duplicate indices
# unspecified, so these cases are the ones where its gradients do not depend on it: unique
# indices, or duplicates whose updates are equal (one scalar, or the same row gathered
# twice). Distinct updates at duplicate indices are checked against central differences in
# tests/scatter.rs.
srng = np.random.default_rng(1)


def srand(*shape, dtype=np.float64):
    return srng.uniform(-1.0, 1.0, size=shape).astype(dtype)


case("scatter_set_window", srand(4, 6), srand(2, 3), np.array([3, 1], np.int32))(
    lambda x, u, i: x.at[i, 1:4].set(u * u) * x
)
case("scatter_set_dup_scalar", srand(5), srand(), np.array([1, 3, 1, 1], np.int32))(
    lambda x, v, i: x.at[i].set(v) * x
)
dup_rows = (np.array([0, 2, 0, 4], np.int32), np.array([1, 0, 1, 2], np.int32))
case("scatter_set_dup_rows", srand(5, 3), srand(3, 3), *dup_rows)(
    lambda x, u, i, j: x.at[i].set(u[j] * 2.0) * x
)
case("scatter_set_dup_rows_f32", srand(5, 3, dtype=f32), srand(3, 3, dtype=f32), *dup_rows, tol=1e-5)(
    lambda x, u, i, j: x.at[i].set(u[j] * 2.0) * x
)
case("scatter_set_dup_window", srand(4, 6), srand(3), np.array([2, 0, 2], np.int32))(
    lambda x, u, i: x.at[i, 1:4].set(jnp.broadcast_to(u * u, (3, 3))) * x
)
# Out of bounds: the scatter drops the update, so it gets no cotangent (the transpose's gather
# would clamp it back into bounds).
case("scatter_add_dropped", srand(5, 3), srand(4, 3), np.array([0, 7, 2, 2], np.int32))(
    lambda x, u, i: x.at[i].add(u * u) * x
)
case("scatter_set_dropped", srand(5, 3), srand(3, 3), np.array([5, 3, 2], np.int32))(
    lambda x, u, i: x.at[i].set(u * 2.0) * x
)
# vmap of a scatter: the batch is a batching dimension of the scatter.
case(
    "scatter_set_dup_batched",
    srand(2, 5),
    srand(2),
    np.array([[4, 1, 4], [0, 0, 2]], np.int32),
)(lambda x, v, i: jax.vmap(lambda x, v, i: x.at[i].set(v) * x)(x, v, i))


# Scatter with maximum/minimum: the tangent of a location is the average over the values that
# tie for it (JAX's _scatter_extremal_jvp), whatever the order of the updates.
case("scatter_max_dup", srand(5, 3), srand(4, 3), np.array([1, 3, 1, 7], np.int32))(
    lambda x, u, i: x.at[i].max(u * 2.0) * x
)
case("scatter_min_window", srand(4, 6), srand(3, 2, 2), np.array([[0, 1], [2, 4], [0, 2]], np.int32))(
    lambda x, u, i: jnp.sin(
        lax.scatter_min(
            x,
            i,
            u,
            lax.ScatterDimensionNumbers(
                update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0, 1)
            ),
        )
    )
)
# Ties (f32, so no central differences, which a tie is not differentiable for): equal updates
# at one index, and an update equal to the operand element it meets.
case(
    "scatter_max_ties_f32",
    np.array([0.5, -1.0, 2.0, 0.25], f32),
    np.array([1.5, 1.5, 2.0, -3.0], f32),
    np.array([0, 0, 2, 3], np.int32),
    tol=1e-6,
)(lambda x, u, i: x.at[i].max(u) * jnp.arange(1.0, 5.0, dtype=f32))

# Scatter with multiply: the operand's gradient for any indices; the updates' only with
# unique_indices (JAX refuses otherwise, and so do we: tests/scatter.rs).
mul_factors = srand(4, 3) + 1.5
case("scatter_mul_dup_operand", srand(5, 3), np.array([1, 3, 1, 7], np.int32))(
    lambda x, i: x.at[i].multiply(mul_factors) * x
)
case("scatter_mul_unique", srand(5, 3), srand(3, 3), np.array([4, 0, 2], np.int32))(
    lambda x, u, i: jnp.sin(x.at[i].multiply(u * u, unique_indices=True))
)


def tolist(a):
    a = np.asarray(a)
    data = a.astype(np.float64) if a.dtype in (jnp.bfloat16, np.float16) else a
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": data.ravel().tolist()}


def is_float(a):
    return jnp.issubdtype(np.asarray(a).dtype, jnp.floating)


out = []
for name, (f, args, tol) in CASES.items():
    args = [np.asarray(a) for a in args]
    text = jax.jit(f).lower(*args).as_text()
    forward_only = name.startswith("fwd_") or name.startswith("jvponly_")
    if forward_only:
        y, pull = f(*args), None
    else:
        y, pull = jax.vjp(f, *args)
    ys = y if isinstance(y, (tuple, list)) else (y,)
    cts = [rand(*np.shape(o), dtype=np.asarray(o).dtype) for o in ys]
    if forward_only:
        grads = [None] * len(args)  # JAX refuses reverse mode here too
    else:
        grads = pull(tuple(cts) if isinstance(y, (tuple, list)) else cts[0])
    tangents = [
        rand(*a.shape, dtype=a.dtype) if is_float(a) else np.zeros(a.shape, jax.dtypes.float0)
        for a in args
    ]
    _, tout = jax.jvp(f, tuple(args), tuple(tangents))
    touts = tout if isinstance(tout, (tuple, list)) else (tout,)
    out.append(
        {
            "name": name,
            "mlir": text,
            "args": [tolist(a) for a in args],
            "outputs": [tolist(o) for o in ys],
            "cts": [tolist(c) for c in cts],
            "grads": [
                tolist(g) if g is not None and is_float(a) else None for g, a in zip(grads, args)
            ],
            "tangents": [tolist(t) if is_float(a) else None for t, a in zip(tangents, args)],
            "tangent_outs": [tolist(t) for t in touts],
            "tol": tol or 1e-9,
        }
    )

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_goldens.json")
with open(path, "w") as fh:
    json.dump(out, fh)
print(f"wrote {len(out)} cases to {path}")
