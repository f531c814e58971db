"""Writes the per-example programs the vmap tests batch: each is a JAX function lowered with
`jax.jit(f).lower(...).as_text()` (jax 0.10.2). The tests never need JAX; run this with the JAX
venv to regenerate:  /root/.cache/systolic-jax-venv/bin/python tests/make_programs.py
"""
import os
import jax
import jax.numpy as jnp
from jax import lax


OUT = os.path.join(os.path.dirname(__file__), "programs")
f32, i32 = jnp.float32, jnp.int32


def S(shape, dtype=f32):
    return jax.ShapeDtypeStruct(shape, dtype)


def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def grouped_conv(x, w):
    return lax.conv_general_dilated(x, w, (2,), [(1, 0)], rhs_dilation=(2,),
                                    dimension_numbers=("NCH", "OIH", "NCH"), feature_group_count=2)


def batch_group_conv(x, w):
    return lax.conv_general_dilated(x, w, (1,), [(1, 1)], dimension_numbers=("NCH", "OIH", "NCH"),
                                    batch_group_count=2)


def while_count(x, n):
    def cond(c):
        i, v = c
        return i < n

    def body(c):
        i, v = c
        return i + 1, v * 1.5 + 1.0

    return lax.while_loop(cond, body, (0, x))[1]


def while_data(x):
    # The trip count depends on the data: a batched predicate.
    def cond(c):
        i, v = c
        return (jnp.sum(v) < 20.0) & (i < 6)

    def body(c):
        i, v = c
        return i + 1, v + jnp.abs(v) + 0.5

    return lax.while_loop(cond, body, (0, x))


def fori(x, y):
    return lax.fori_loop(0, 3, lambda i, c: c * y + i.astype(f32), x)


def cond_fn(p, x, y):
    return lax.cond(p > 0, lambda: jnp.sin(x) * y, lambda: x - y)


def switch_fn(i, x):
    return lax.switch(i, [lambda v: v + 1.0, lambda v: v * 2.0, lambda v: -v], x)


def scatter_add(x, idx, u):
    return x.at[idx].add(u)


def gather_take(x, idx):
    return x[idx]


def gather2(x, idx):
    return jnp.take_along_axis(x, idx, axis=1)


def sort2(x, y):
    return lax.sort((x, y), dimension=0, num_keys=1)


def argmax_fn(x):
    return jnp.argmax(x, axis=1)


def maxpool_grad(x):
    def pool(x):
        return jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID") ** 2)

    return jax.grad(pool)(x)


def cumsum_fn(x):
    return jnp.cumsum(x, axis=0)


def rbg(key):
    return jax.random.bits(key, (3,), dtype=jnp.uint32)


PROGRAMS = {
    "unary": (lambda x: jnp.tanh(jnp.exp(x)) + jnp.floor(x) - jnp.sqrt(jnp.abs(x)), [S((3, 4))]),
    "chlo": (lambda x: jax.scipy.special.erf(x) + jnp.sinh(x) + jnp.arctan(x) + lax.lgamma(jnp.abs(x) + 1.0), [S((5,))]),
    "binary": (lambda x, y: x * y - x / (jnp.abs(y) + 1.0) + jnp.maximum(x, y) ** 2, [S((3, 4)), S((3, 4))]),
    "broadcast_bin": (lambda x, y: x + y, [S((3, 4)), S((4,))]),
    "compare_select": (lambda x, y: jnp.where(x > y, x, jnp.clip(y, -1.0, 1.0)), [S((2, 3)), S((2, 3))]),
    "clamp": (lambda lo, x, hi: lax.clamp(lo, x, hi), [S(()), S((4,)), S(())]),
    "select_scalar": (lambda p, x, y: lax.select(p, x, y), [S((), jnp.bool_), S((3,)), S((3,))]),
    "convert": (lambda x: x.astype(i32) + (x > 0).astype(i32), [S((2, 3))]),
    "bitcast": (lambda x: lax.bitcast_convert_type(x, jnp.int32) >> 3, [S((4,))]),
    "bitcast_narrow": (lambda x: lax.bitcast_convert_type(x, jnp.uint16), [S((3,))]),
    "reshape_transpose": (lambda x: jnp.transpose(x.reshape(2, 3, 2), (2, 0, 1)) * 2.0, [S((3, 4))]),
    "slice_pad": (lambda x: jnp.pad(x[1:, ::2], ((1, 2), (0, 1))), [S((4, 6))]),
    "pad_value": (lambda x, v: lax.pad(x, v, [(1, -1, 1), (0, 2, 0)]), [S((3, 4)), S(())]),
    "concat_rev": (lambda x, y: jnp.flip(jnp.concatenate([x, y, x], axis=1), axis=0), [S((2, 3)), S((2, 2))]),
    "iota_const": (lambda x: x * jnp.arange(4.0) + jnp.array([1.0, 2.0, 3.0, 4.0]), [S((4,))]),
    "broadcast_in_dim": (lambda x: jnp.broadcast_to(x[:, None], (3, 5)) + 1.0, [S((3,))]),
    "dynamic_slice": (lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)), [S((4, 5)), S((), i32), S((), i32)]),
    "dynamic_update_slice": (lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 1)), [S((4, 5)), S((2, 3)), S((), i32)]),
    "reduce_sum": (lambda x: jnp.sum(x, axis=1) + jnp.max(x), [S((3, 4))]),
    "argmax": (argmax_fn, [S((3, 4))]),
    "cumsum": (cumsum_fn, [S((5, 2))]),
    "reduce_window": (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), [(1, 0), (0, 1)]), [S((4, 5))]),
    "maxpool_grad": (maxpool_grad, [S((4, 4))]),
    "matmul": (lambda a, b: a @ b, [S((3, 4)), S((4, 2))]),
    "matvec": (lambda a, v: jnp.dot(a, v), [S((3, 4)), S((4,))]),
    "batched_dot": (lambda a, b: jnp.einsum("bij,bjk->bik", a, b), [S((2, 3, 4)), S((2, 4, 5))]),
    "dot_t": (lambda a, b: jnp.einsum("ji,kj->ik", a, b), [S((4, 3)), S((5, 4))]),
    "conv": (conv, [S((1, 5, 5, 2)), S((3, 3, 2, 3))]),
    "grouped_conv": (grouped_conv, [S((2, 4, 7)), S((6, 2, 3))]),
    "batch_group_conv": (batch_group_conv, [S((4, 3, 5)), S((4, 3, 2))]),
    "gather": (gather_take, [S((5, 3)), S((2,), i32)]),
    "gather2": (gather2, [S((3, 4)), S((3, 2), i32)]),
    "scatter_add": (scatter_add, [S((5, 3)), S((2,), i32), S((2, 3))]),
    "sort": (sort2, [S((5,)), S((5,), i32)]),
    "top_k": (lambda x: lax.top_k(x, 2), [S((3, 5))]),
    "while_count": (while_count, [S((3,)), S((), i32)]),
    "while_data": (while_data, [S((3,))]),
    "fori": (fori, [S((2,)), S((2,))]),
    "cond": (cond_fn, [S(()), S((3,)), S((3,))]),
    "switch": (switch_fn, [S((), i32), S((2,))]),
    "rng_bit_generator": (lambda k: lax.rng_bit_generator(k, (2, 3), dtype=jnp.uint32), [S((4,), jnp.uint32)]),
    "mlp_loss_grad": (
        lambda w, b, x, y: jax.grad(lambda w, b: jnp.mean((jnp.tanh(x @ w + b) - y) ** 2), argnums=(0, 1))(w, b),
        [S((4, 3)), S((3,)), S((4,)), S((3,))],
    ),
}

os.makedirs(OUT, exist_ok=True)
for name, (f, args) in PROGRAMS.items():
    text = jax.jit(f).lower(*args).as_text(debug_info=False)
    with open(os.path.join(OUT, name + ".mlir"), "w") as fh:
        fh.write(text)
    print(name, "func.call" in text)
