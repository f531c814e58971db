"""JAX exports of jit-with-shardings programs whose reshards move pieces rather than gather
them — a sort along a sharded axis (its split moved onto the other axis and back), a
constraint that only reorders a dimension's mesh axes (one collective permute), and one from
P("x", None) to P("y", None) on a 2x4 mesh — with inputs and JAX's outputs on 8 host devices,
for crates/systolic-compiler/tests/spmd_partitioner_permute.rs.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        /root/.cache/systolic-jax-venv/bin/python scripts/permute_goldens.py
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-compiler", "tests",
                   "data", "permute")
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
    normal = lambda *shape: rng.standard_normal(shape).astype(np.float32)

    # jnp.sort along an axis split over all 8 devices, the result held split the same way.
    line = jax.make_mesh((8,), ("x",), axis_types=(AUTO,))
    s = lambda *spec: NamedSharding(line, P(*spec))
    save("sort_sharded_axis", lambda a: jnp.sort(a, axis=1), (normal(8, 64),),
         (s(None, "x"),), s(None, "x"))

    grid = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AUTO, AUTO))
    g = lambda *spec: NamedSharding(grid, P(*spec))

    # Rows over ("x", "y") constrained to ("y", "x"): each device's rows are another's.
    def reorder(a):
        b = jax.lax.with_sharding_constraint(a, g(("y", "x"), None))
        return jnp.tanh(b) * 2.0

    save("constraint_reorder", reorder, (normal(16, 8),), (g(("x", "y"), None),),
         g(("y", "x"), None))

    # Rows over "x" (2 tiles) constrained to "y" (4 tiles).
    def x_to_y(a):
        b = jax.lax.with_sharding_constraint(a, g("y", None))
        return jnp.sin(b) + 1.0

    save("constraint_x_to_y", x_to_y, (normal(16, 8),), (g("x", None),), g("y", None))


if __name__ == "__main__":
    main()
