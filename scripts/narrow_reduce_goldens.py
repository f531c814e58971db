"""JAX exports of long reductions in narrow float types, for
crates/systolic-cpu/tests/narrow_reduce_goldens.rs.

A bf16 or f16 `reduce` rounds to its type after every addition, so the order of the additions
decides the answer: XLA:CPU folds windows of 32 elements and then their partials (its
tree-reduction rewrite), while a plain left fold over 2048 bf16 terms drifts by tens of percent.
Each case is a folder under crates/systolic-cpu/tests/data/narrow_reduce/<name>/ with
`module.mlir` (what `jax.jit(f).lower(*args).as_text()` printed), the inputs `in<i>.npy` and
JAX's outputs on CPU `out<i>.npy`. Names ending in `_multi` reduce several dimensions at once,
where the compiled CPU path folds the flattened dimensions (same accuracy, another order);
names ending in `_approx` have bf16 ops before the reduce (sin, rsqrt) that may round an ulp
apart from XLA's, so only the sums' accuracy is compared.

    /root/.cache/systolic-jax-venv/bin/python scripts/narrow_reduce_goldens.py
"""
import os

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-cpu", "tests", "data",
                   "narrow_reduce")
rng = np.random.default_rng(28)


def data(*shape, dtype=jnp.bfloat16, shift=0.5):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32) + shift, dtype=dtype)


def save(name, f, *args):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.mlir"), "w") as fh:
        fh.write(jax.jit(f).lower(*args).as_text())
    results = jax.jit(f)(*args)
    if not isinstance(results, (tuple, list)):
        results = (results,)
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
    for i, r in enumerate(results):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(r))


def lax_sum(dims, dtype):
    return lambda x: lax.reduce(x, jnp.zeros((), dtype), lax.add, dims)


save("bf16_columns", lax_sum((0,), jnp.bfloat16), data(2048, 8))
save("bf16_rows", lax_sum((1,), jnp.bfloat16), data(6, 1500))
save("bf16_uneven", lax_sum((0,), jnp.bfloat16), data(1000, 3))
save("f16_vector", lax_sum((0,), jnp.float16), data(3000, dtype=jnp.float16))
save("bf16_max", lambda x: lax.reduce(x, jnp.array(-jnp.inf, jnp.bfloat16), lax.max, (0,)),
     data(4096, 2))
save("bf16_two_dims_multi", lax_sum((0, 2), jnp.bfloat16), data(40, 3, 50))
# The case that found the bug: a bias gradient in bf16 is the transpose of a broadcast, a
# bf16 reduce over the batch (lm_train_step_bf16's LayerNorm bias).
save("bf16_bias_grad",
     jax.grad(lambda b, x: jnp.sum(jnp.tanh(x + b).astype(jnp.float32))),
     data(8, shift=0.0), data(2048, 8, shift=0.0))


def layer_norm(x, g, b):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * g + b


def layer_norm_param_grads(x, g, b):
    # Scale and bias gradients are two sibling reduces over the same positions, which the
    # CPU backend fuses into one kernel (lm_train_step_bf16's LayerNorm parameters).
    return jax.grad(lambda g, b: jnp.sum(jnp.sin(layer_norm(x, g, b)).astype(jnp.float32)),
                    argnums=(0, 1))(g, b)


save("bf16_layer_norm_grads_approx", layer_norm_param_grads, data(2048, 16, shift=0.0),
     data(16), data(16, shift=0.0))
save("bf16_layer_norm_grads_3d_approx", layer_norm_param_grads, data(4, 512, 32, shift=0.0),
     data(32), data(32, shift=0.0))
