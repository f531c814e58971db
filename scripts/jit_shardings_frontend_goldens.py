#!/usr/bin/env python3
"""Writes the JAX goldens of the front end's `jit` with shardings (issue 16) to
crates/systolic/tests/data/jit_shardings/jax0.10.2.json, read by
crates/systolic/tests/jit_shardings.rs.

Run with the JAX venv on 8 host devices (deterministic: inputs are formulas, no randomness):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        /root/.cache/systolic-jax-venv/bin/python scripts/jit_shardings_frontend_goldens.py

What it records, on a 4x2 mesh ("data", "model") of Auto axes:
  lowered      -- `jax.jit(f, in_shardings, out_shardings).lower(x, w).as_text()` and the same
                  without shardings on a committed argument: the annotations the front end's
                  `lower().as_text()` must print (sdy.mesh, sdy.sharding, sdy.sharding_constraint)
  out_specs    -- the PartitionSpecs of the results JAX returns (asked for or propagated)
  mlp          -- three SGD steps of a two-layer MLP with FSDP + TP shardings: the losses and
                  the final parameters' sums (the inputs are the formulas in `mlp_inputs`, which
                  the Rust test writes the same way); without out_shardings, the result specs
"""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "crates" / "systolic" / "tests" / "data" / "jit_shardings" / "jax0.10.2.json"

assert jax.device_count() == 8, "run with XLA_FLAGS=--xla_force_host_platform_device_count=8"

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)


def ns(*spec):
    return NamedSharding(mesh, P(*spec))


def spec_text(s):
    """PartitionSpec as the Rust side prints it: PartitionSpec('data', None)."""
    parts = []
    for d in s.spec:
        if d is None:
            parts.append("None")
        elif isinstance(d, tuple):
            parts.append("(" + ", ".join(f"'{a}'" for a in d) + ")")
        else:
            parts.append(f"'{d}'")
    return "PartitionSpec(" + ", ".join(parts) + ")"


def grid(shape, a, b, m, c, div):
    i, j = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
    return (((i * a + j * b) % m - c) / div).astype(np.float32)


def f(x, w):
    y = x @ w
    y = jax.lax.with_sharding_constraint(y, ns("data", None))
    return jnp.tanh(y), y.sum()


x = grid((8, 16), 7, 3, 11, 5, 8.0)
w = grid((16, 4), 3, 5, 13, 6, 32.0)
asked = jax.jit(f, in_shardings=(ns("data", None), ns(None, "model")),
                out_shardings=(ns("data", "model"), None))
plain = jax.jit(f)
xs = jax.device_put(x, ns("data", None))
lowered = {
    "in_out": asked.lower(x, w).as_text(),
    "committed": plain.lower(xs, w).as_text(),
}
out_specs = {
    "in_out": [spec_text(o.sharding) for o in asked(x, w)],
    "committed": [spec_text(o.sharding) for o in plain(xs, w)],
}


def mlp_inputs():
    x = grid((16, 16), 7, 3, 11, 5, 8.0)
    y = grid((16, 16), 5, 1, 7, 3, 4.0)
    w1 = grid((16, 32), 3, 5, 13, 6, 32.0)
    b1 = ((np.arange(32) % 5 - 2) / 16.0).astype(np.float32)
    w2 = grid((32, 16), 11, 2, 9, 4, 32.0)
    return (w1, b1, w2), (x, y)


def loss(params, batch):
    w1, b1, w2 = params
    x, y = batch
    h = jnp.tanh(x @ w1 + b1)
    r = h @ w2 - y
    return jnp.mean(r * r)


def step(params, batch):
    l, g = jax.value_and_grad(loss)(params, batch)
    return tuple(p - 0.1 * d for p, d in zip(params, g)), l


param_s = (ns("data", "model"), ns("model"), ns("model", "data"))
batch_s = (ns("data", None), ns("data", None))
sharded_step = jax.jit(step, in_shardings=(param_s, batch_s), out_shardings=(param_s, None))
params, batch = mlp_inputs()
losses = []
for _ in range(3):
    params, l = sharded_step(params, batch)
    losses.append(float(l))
# The same step without out_shardings: the shardings propagation gives the results.
free_step = jax.jit(step, in_shardings=(param_s, batch_s))
free_params, free_loss = free_step(*mlp_inputs())
mlp = {
    "free_out_specs": [spec_text(o.sharding) for o in (*free_params, free_loss)],
    "losses": losses,
    "param_sums": [float(jnp.sum(p)) for p in params],
    "param_specs": [spec_text(p.sharding) for p in params],
}

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({
    "jax": jax.__version__,
    "mesh": {"shape": [4, 2], "names": ["data", "model"]},
    "lowered": lowered,
    "out_specs": out_specs,
    "mlp": mlp,
}, indent=1) + "\n")
print(f"wrote {OUT}")
