"""Goldens of jax.lax.ragged_dot (crates/systolic/tests/ragged_dot.rs): float32 grouped
products of lhs [m, k] with rhs [g, k, n] for several group sizes (groups of zero rows, rows
in no group, everything in one group), with the value and gradients of a weighted sum of the
result, and the derivative of those gradients along a random direction (jvp of grad, which
differentiates the transposed products again).

Each case's inputs are [lhs, rhs, group_sizes, weights, lhs direction, rhs direction]; its
outputs are [ragged_dot, loss, d lhs, d rhs, jvp of d lhs, jvp of d rhs].

Run: /root/.cache/systolic-jax-venv/bin/python scripts/ragged_dot_goldens.py
Writes crates/systolic/tests/data/ragged_dot_jax0.10.2.json.
"""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates",
                                "systolic", "tests", "data"))
from golden_cases import Cases  # noqa: E402

cases = Cases()
rng = np.random.default_rng(1821)


def f32(x):
    return jnp.asarray(x, jnp.float32)


def record(name, m, k, n, sizes):
    g = len(sizes)
    lhs = f32(rng.normal(size=(m, k)))
    rhs = f32(rng.normal(size=(g, k, n)))
    gs = jnp.asarray(sizes, jnp.int32)
    c = f32(rng.uniform(0.5, 1.5, size=(m, n)))
    dl = f32(rng.normal(size=(m, k)))
    dr = f32(rng.normal(size=(g, k, n)))

    def loss(lhs, rhs):
        return jnp.sum(c * jnp.sin(jax.lax.ragged_dot(lhs, rhs, gs)))

    out = jax.lax.ragged_dot(lhs, rhs, gs)
    value, (gl, gr) = jax.value_and_grad(loss, argnums=(0, 1))(lhs, rhs)
    _, (hl, hr) = jax.jvp(jax.grad(loss, argnums=(0, 1)), (lhs, rhs), (dl, dr))
    cases.case(name, [lhs, rhs, gs, c, dl, dr], [out, value, gl, gr, hl, hr])


record("three_groups", 7, 3, 4, [2, 1, 4])
record("empty_group_and_rows_in_none", 7, 3, 4, [2, 0, 4])
record("one_group", 5, 2, 3, [5])
record("many_groups", 9, 4, 2, [1, 3, 0, 2, 3])

cases.write(f"ragged_dot_jax{jax.__version__}.json")
