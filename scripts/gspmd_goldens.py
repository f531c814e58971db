"""GSPMD-form (`mhlo.sharding`) exports of jit-with-shardings programs, with the Shardy export of
the same program beside each, for crates/systolic-compiler/tests/gspmd_import.rs.

The test imports the GSPMD form (`import_gspmd_shardings`), checks that every argument and
result lands on the same devices as in the Shardy form, and runs the partitioned program against
the interpreter. Run with the JAX venv (JAX 0.10.2):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python scripts/gspmd_goldens.py
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-compiler", "tests",
                   "data", "gspmd")
AUTO = jax.sharding.AxisType.Auto


def mesh(shape, names):
    devs = np.array(jax.devices()[:int(np.prod(shape))])
    return Mesh(devs.reshape(shape), names, axis_types=(AUTO,) * len(shape))


def export(name, f, args, ins, outs):
    text = {}
    for shardy in (False, True):
        jax.config.update("jax_use_shardy_partitioner", shardy)
        lowered = jax.jit(f, in_shardings=ins, out_shardings=outs).lower(*args)
        text[shardy] = lowered.as_text()
    for shardy, suffix in ((False, "gspmd"), (True, "shardy")):
        with open(os.path.join(OUT, f"{name}.{suffix}.mlir"), "w") as fh:
            fh.write(text[shardy])


def main():
    os.makedirs(OUT, exist_ok=True)
    m24 = mesh((2, 4), ("x", "y"))
    s = lambda m, *spec: NamedSharding(m, P(*spec))

    def matmul_constraint(a, b):
        c = a @ b
        c = jax.lax.with_sharding_constraint(c, s(m24, "y", None))
        return jnp.tanh(c)

    export("matmul_2x4", matmul_constraint,
           (jnp.ones((8, 16)), jnp.ones((16, 8))),
           (s(m24, "x", "y"), s(m24, "y", None)), s(m24, None, "x"))

    # Axes named minor first, so tiles interleave the device ids (`<=[2,4]T(1,0)`).
    mt = m24

    def mlp(x, w1, w2):
        h = jax.nn.relu(x @ w1)
        return jnp.sum(h @ w2, axis=1)

    export("mlp_interleaved", mlp,
           (jnp.ones((8, 16)), jnp.ones((16, 32)), jnp.ones((32, 4))),
           (s(mt, ("y", "x"), None), s(mt, None, "y"), s(mt, "y", None)), s(mt, "x"))

    m3 = mesh((2, 2, 2), ("x", "y", "z"))

    def reduce3(a, b):
        return jnp.sum(a * b, axis=0), jnp.max(a, axis=1)

    export("reduce_2x2x2", reduce3,
           (jnp.ones((8, 12)), jnp.ones((8, 12))),
           (s(m3, ("x", "z"), None), s(m3, None, "y")), (s(m3, "y"), s(m3, ("z", "x"))))

    m8 = mesh((8,), ("d",))

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    export("softmax_1d", softmax, (jnp.ones((4, 16)),), (s(m8, None, "d"),), s(m8, None, "d"))


if __name__ == "__main__":
    main()
