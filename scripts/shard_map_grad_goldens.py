"""Expected values for crates/systolic/tests/shard_map_grad.rs: gradients (under jit) and a
vmap of functions that call jax.shard_map, on 8 host CPU devices.

Run with the JAX venv (JAX 0.10.2):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        /root/.cache/systolic-jax-venv/bin/python scripts/shard_map_grad_goldens.py

It prints each expected array as a flat list of float32 values (shortest round-trip
decimals), which the test embeds. The inputs are written the same way in the test (small closed forms).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

AUTO = jax.sharding.AxisType.Auto


def show(name, a):
    a = np.asarray(a, dtype=np.float32)
    print(f"{name} shape={list(a.shape)}")
    # The shortest decimal that reads back as the same float32.
    text = [np.format_float_positional(v, unique=True, trim="0") for v in a.reshape(-1)]
    print("  [" + ", ".join(text) + "]")


def inputs_1d():
    # w = [0.5, -1.0]; x[i, j] = (2i + j) / 8 - 1, shape [8, 2].
    w = jnp.array([0.5, -1.0], dtype=jnp.float32)
    x = (jnp.arange(16, dtype=jnp.float32).reshape(8, 2) / 8.0) - 1.0
    return w, x


def mesh_1d():
    mesh = jax.make_mesh((4,), ("i",), axis_types=(AUTO,))
    perm = [(j, (j + 1) % 4) for j in range(4)]

    def body(w, x):
        h = jnp.sin(x * w)
        s = jax.lax.psum(jnp.sum(h * h, axis=0), "i")
        p = jax.lax.ppermute(h, "i", perm=perm)
        return s, p * x

    sm = jax.shard_map(body, mesh=mesh, in_specs=(P(), P("i")), out_specs=(P(), P("i")))

    def loss(args):
        w, x = args
        s, q = sm(w, x)
        return jnp.sum(s * s) + jnp.sum(jnp.cos(q))

    w, x = inputs_1d()
    show("loss_1d", jax.jit(loss)((w, x)))
    gw, gx = jax.jit(jax.grad(loss))((w, x))
    show("grad_1d_w", gw)
    show("grad_1d_x", gx)

    # vmap over a batch of x (w shared) of a function that calls shard_map.
    xs = jnp.stack([x, 2.0 * x, x * x])
    s, q = jax.vmap(lambda x: sm(w, x))(xs)
    show("vmap_1d_s", s)
    show("vmap_1d_q", q)


def inputs_2x2():
    # x[i, j] = (4i + j) / 16 - 0.5, shape [4, 4]; v = [1.0, -0.5, 0.25, 2.0].
    x = jnp.arange(16, dtype=jnp.float32).reshape(4, 4) / 16.0 - 0.5
    v = jnp.array([1.0, -0.5, 0.25, 2.0], dtype=jnp.float32)
    return x, v


def mesh_2x2():
    mesh = jax.make_mesh((2, 2), ("a", "b"), axis_types=(AUTO, AUTO))

    def body(x, v):
        e = jnp.tanh(x * v[None, :])
        g = jax.lax.all_gather(e, "a", axis=0, tiled=True)
        t = jax.lax.psum(jnp.sum(g * g, axis=0), ("a", "b"))
        return jax.lax.psum(e, "b"), t

    sm = jax.shard_map(
        body, mesh=mesh, in_specs=(P("a", "b"), P("b")), out_specs=(P("a", None), P())
    )

    def loss(args):
        x, v = args
        r, t = sm(x, v)
        return jnp.sum(r * r) + jnp.sum(jnp.sin(t))

    x, v = inputs_2x2()
    show("loss_2x2", jax.jit(loss)((x, v)))
    gx, gv = jax.jit(jax.grad(loss))((x, v))
    show("grad_2x2_x", gx)
    show("grad_2x2_v", gv)


if __name__ == "__main__":
    print("jax", jax.__version__, "devices", jax.device_count())
    mesh_1d()
    mesh_2x2()
