"""JAX exports of jit-with-shardings programs that exercise the SPMD partitioner's control
flow, gather/scatter and uneven pieces — a scan over FSDP/TP-sharded stacked layer weights, its
gradient, an embedding lookup by a vocabulary-sharded table and its gradient (scatter-add), a
loop with a cond inside, uneven rows — with inputs and JAX's outputs on 8 host devices, for
crates/systolic-compiler/tests/spmd_partitioner_jax.rs.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        /root/.cache/systolic-jax-venv/bin/python scripts/partitioner_ops_goldens.py
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-compiler", "tests",
                   "data", "partitioner_ops")
AUTO = jax.sharding.AxisType.Auto


def save(name, f, args, ins, outs):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    jitted = jax.jit(f, in_shardings=ins, out_shardings=outs)
    with open(os.path.join(d, "module.mlir"), "w") as fh:
        fh.write(jitted.lower(*args).as_text())
    results = jitted(*args)
    if not isinstance(results, (tuple, list)):
        results = (results,)
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
    for i, r in enumerate(results):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(r))


def main():
    rng = np.random.default_rng(0)
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AUTO, AUTO))
    s = lambda *spec: NamedSharding(mesh, P(*spec))
    normal = lambda *shape: (0.3 * rng.standard_normal(shape)).astype(np.float32)

    # A 3-layer residual MLP scanned over stacked weights: FSDP over "data" on D, tensor
    # parallelism over "model" on the hidden dimension; per-layer row sums stacked as ys.
    def layer(h, ws):
        a, b = ws
        h2 = h + jnp.tanh(h @ a) @ b
        return h2, jnp.sum(h2, axis=1)

    def scan_mlp(x, w1, w2):
        return jax.lax.scan(layer, x, (w1, w2))

    x, w1, w2 = normal(16, 16), normal(3, 16, 32), normal(3, 32, 16)
    weights = (s(None, "data", "model"), s(None, "model", "data"))
    save("scan_fsdp_tp", scan_mlp, (x, w1, w2), (s("data", None),) + weights,
         (s("data", None), s(None, "data")))

    # Its gradient with a rematerialised layer: the backward scan runs in reverse, the
    # weights' gradients stacked by dynamic_update_slice.
    def loss(w1, w2, x):
        h, ys = jax.lax.scan(jax.checkpoint(layer), x, (w1, w2))
        return jnp.sum(h * h) + jnp.sum(ys)

    save("scan_grad_fsdp_tp", jax.grad(loss, argnums=(0, 1)), (w1, w2, x),
         weights + (s("data", None),), weights)

    # An embedding lookup from a table split by vocabulary over "model" (ids split over
    # "data"), and the table's gradient: a scatter-add into the vocabulary-split table.
    table = normal(64, 16)
    ids = rng.integers(0, 64, size=(16,)).astype(np.int32)
    y = normal(16, 16)

    def embed(table, ids, y):
        e = table[ids]
        return jnp.tanh(e) * y

    save("embedding_vocab", embed, (table, ids, y),
         (s("model", None), s("data"), s("data", None)), s("data", None))

    def embed_loss(table, ids, y):
        return jnp.sum(embed(table, ids, y))

    save("embedding_grad_vocab", jax.grad(embed_loss), (table, ids, y),
         (s("model", None), s("data"), s("data", None)), s("model", None))

    # A fori_loop whose body takes one of two branches by the counter's parity.
    def loop_cond(x, w):
        def body(i, h):
            return jax.lax.cond(i % 2 == 0, lambda h: jnp.tanh(h @ w), lambda h: h * 0.5, h)
        return jax.lax.fori_loop(0, 5, body, x)

    save("loop_cond", loop_cond, (normal(16, 8), normal(8, 8)),
         (s("data", "model"), s("model", None)), s("data", None))

    # Rows that do not divide: 10 rows over "data" (pieces of 3, 3, 3, 1). JAX's jit takes
    # only dividing argument and result shardings, so constraints split the values inside.
    def uneven(x, w):
        x = jax.lax.with_sharding_constraint(x, s("data", None))
        h = jax.lax.with_sharding_constraint(jnp.exp(x @ w), s("data", "model"))
        return h, jnp.sum(h, axis=0), jnp.max(h, axis=1), jnp.argmax(h, axis=0)

    save("uneven_rows", uneven, (normal(10, 6), normal(6, 8)), (s(), s()), None)

if __name__ == "__main__":
    main()
