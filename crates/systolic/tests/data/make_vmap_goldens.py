"""Goldens for crates/systolic/tests/vmap.rs: programs batched by JAX's vmap, with their inputs
and JAX's outputs, plus each program's per-example StableHLO (so the test can batch the same IR
with systolic_vmap and compare). Run with the JAX venv:

    /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_vmap_goldens.py
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

rng = np.random.RandomState(0)


def arr(shape, dtype=np.float32, lo=-2.0, hi=2.0):
    if np.dtype(dtype).kind == "i":
        return rng.randint(int(lo), int(hi), size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def enc(x):
    x = np.asarray(x)
    return {"shape": list(x.shape), "dtype": str(x.dtype), "data": x.reshape(-1).tolist()}


def loss(w, b, x, y):
    return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)


def while_fn(x):
    def cond(c):
        i, v = c
        return (jnp.sum(v) < 10.0) & (i < 8)

    def body(c):
        i, v = c
        return i + 1, v * 1.5 + 0.25

    return lax.while_loop(cond, body, (0, x))


def cond_fn(x):
    return lax.cond(jnp.sum(x) > 0, jnp.sin, jnp.cos, x)


def dyn_slice(x, i):
    return lax.dynamic_slice(x, (i,), (2,))


def take(x, idx):
    return x[idx] * 2.0


def rows_update(x, i, u):
    return lax.dynamic_update_slice(x, u, (i, 0))


CASES = [
    # name, per-example function, batched inputs, in_axes, out_axes
    ("per_example_grads", jax.grad(loss, argnums=(0, 1)),
     [arr((4, 3)), arr((3,)), arr((6, 4)), arr((6, 3))], (None, None, 0, 0), 0),
    ("batched_matmul", jnp.matmul, [arr((5, 3, 4)), arr((4, 2))], (0, None), 0),
    ("batched_matmul_both", jnp.matmul, [arr((5, 3, 4)), arr((4, 5, 2))], (0, 1), 1),
    ("while_loop", while_fn, [arr((4, 3), lo=-1.0, hi=3.0)], (0,), 0),
    ("cond", cond_fn, [arr((5, 3))], (0,), 0),
    ("dynamic_slice", dyn_slice, [arr((4, 6)), arr((4,), np.int32, -2, 7)], (0, 0), 0),
    ("take", take, [arr((5, 3)), arr((4, 2), np.int32, 0, 5)], (None, 0), 1),
    ("dynamic_update_slice", rows_update,
     [arr((3, 4, 2)), arr((3,), np.int32, -1, 5), arr((2, 2))], (0, 0, None), 0),
]


def per_example_struct(x, axis):
    x = np.asarray(x)
    if axis is None:
        return jax.ShapeDtypeStruct(x.shape, x.dtype)
    shape = list(x.shape)
    del shape[axis]
    return jax.ShapeDtypeStruct(tuple(shape), x.dtype)


out = {"jax_version": jax.__version__, "cases": []}
for name, f, inputs, in_axes, out_axes in CASES:
    outs = jax.vmap(f, in_axes=in_axes, out_axes=out_axes)(*[jnp.asarray(x) for x in inputs])
    leaves = jax.tree_util.tree_leaves(outs)
    structs = [per_example_struct(x, a) for x, a in zip(inputs, in_axes)]
    mlir = jax.jit(f).lower(*structs).as_text(debug_info=False)
    out["cases"].append({
        "name": name,
        "mlir": mlir,
        "in_axes": list(in_axes),
        "out_axes": out_axes,
        "inputs": [enc(x) for x in inputs],
        "outputs": [enc(x) for x in leaves],
    })

path = os.path.join(os.path.dirname(__file__), f"vmap_jax{jax.__version__}.json")
with open(path, "w") as fh:
    json.dump(out, fh, indent=1)
print("wrote", path)
