"""JAX exports of shard_map programs that leave mesh axes free (`axis_names` a subset of the
mesh, so `sdy.manual_computation` with free axes) under jit with shardings, with inputs and
JAX's outputs on 8 host devices, for crates/systolic-compiler/tests/partly_manual.rs.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python scripts/partly_manual_goldens.py
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-compiler", "tests",
                   "data", "partly_manual")
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
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AUTO, AUTO))
    s = lambda *spec: NamedSharding(mesh, P(*spec))

    # Row-parallel matmul manual over "x" (psum), "y" left to the partitioner around it.
    def row_parallel(a, w):
        def inner(a, w):
            return jax.lax.psum(a @ w, "x")
        g = jax.shard_map(inner, mesh=mesh, in_specs=(P(None, "x"), P("x", None)),
                          out_specs=P(), axis_names={"x"})
        return jnp.tanh(g(a, w))

    a = rng.standard_normal((8, 16), dtype=np.float32)
    w = rng.standard_normal((16, 8), dtype=np.float32)
    save("row_parallel", row_parallel, (a, w), (s("y", "x"), s("x", "y")), s("y", None))

    # A manual-over-"y" ring step: each device's block rotated by ppermute, the free "x"
    # sharding of the batch kept by the partitioner.
    def ring(x):
        def inner(b):
            n = 4
            return jax.lax.ppermute(b * 2.0, "y", [(i, (i + 1) % n) for i in range(n)])
        g = jax.shard_map(inner, mesh=mesh, in_specs=P(None, "y"), out_specs=P(None, "y"),
                          axis_names={"y"})
        return g(x) + 1.0

    x = rng.standard_normal((4, 8), dtype=np.float32)
    save("ring_y", ring, (x,), (s("x", "y"),), s("x", "y"))

    # A tensor-parallel MLP block manual over "y" (the model axis); the batch's "x" split
    # is free: the partitioner splits the body over "x" too.
    def tp_mlp(x, w1, w2):
        def inner(x, w1, w2):
            h = jax.nn.gelu(x @ w1)
            return jax.lax.psum(h @ w2, "y")
        g = jax.shard_map(inner, mesh=mesh, in_specs=(P(), P(None, "y"), P("y", None)),
                          out_specs=P(), axis_names={"y"})
        return g(x, w1, w2) * 0.5

    x = rng.standard_normal((16, 8), dtype=np.float32)
    w1 = rng.standard_normal((8, 32), dtype=np.float32)
    w2 = rng.standard_normal((32, 8), dtype=np.float32)
    save("tp_mlp_free_batch", tp_mlp, (x, w1, w2), (s("x", None), s(None, "y"), s("y", None)),
         s("x", None))

    # axis_index and an all_gather over the manual axis inside a body split over the free
    # axis: each device's block gathered along the columns, plus its position.
    def gather_index(x):
        def inner(b):
            i = jax.lax.axis_index("y").astype(jnp.float32)
            return jax.lax.all_gather(b, "y", axis=1, tiled=True) + i
        g = jax.shard_map(inner, mesh=mesh, in_specs=P(None, "y"), out_specs=P(None, "y"),
                          axis_names={"y"})
        return g(x)

    x = rng.standard_normal((8, 8), dtype=np.float32)
    save("gather_index_free_rows", gather_index, (x,), (s("x", "y"),), s("x", "y"))


if __name__ == "__main__":
    main()
