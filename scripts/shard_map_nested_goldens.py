"""JAX exports of shard_map where JAX users put it: inside `fori_loop`, `scan`, `cond` and
`switch` (so `sdy.manual_computation` in while bodies, in case branches and in the private
functions JAX stages loop bodies as) and nested (a shard_map over "y" inside one over "x", with
collectives over both axes), with inputs and JAX's outputs on 8 host devices, for
crates/systolic-compiler/tests/shard_map_nested.rs and the CLI's `systolic run` tests.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python scripts/shard_map_nested_goldens.py
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-compiler", "tests",
                   "data", "shard_map_nested")
AUTO = jax.sharding.AxisType.Auto


def save(name, f, args, ins=None, outs=None):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    kw = {}
    if ins is not None:
        kw = dict(in_shardings=ins, out_shardings=outs)
    jitted = jax.jit(f, **kw)
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
    normal = lambda *shape: rng.standard_normal(shape, dtype=np.float32)

    # A shard_map step (psum over "y") in a fori_loop: the carry stays split across iterations.
    def step(w):
        return jnp.tanh(w * 0.5 + 0.25 * jax.lax.psum(w, "y"))
    sm = jax.shard_map(step, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    save("fori_loop", lambda w: jax.lax.fori_loop(0, 3, lambda i, w: sm(w), w),
         (normal(8, 8),))

    # The same loop, its argument and result split by jit (the carry enters split already).
    save("fori_loop_sharded", lambda w: jax.lax.fori_loop(0, 3, lambda i, w: sm(w), w) * 2.0,
         (normal(8, 8),), (s("x", None),), s(None, "y"))

    # A scan whose body runs a shard_map on the carry and the scanned slice (a per-step sum out).
    def scan_step(w, x):
        return w * 0.5 + jax.lax.psum(x, "y")
    ssm = jax.shard_map(scan_step, mesh=mesh, in_specs=(P("x", "y"), P("x", "y")),
                        out_specs=P("x", "y"))

    def scanned(w, xs):
        def body(w, x):
            w = ssm(w, x)
            return w, w.sum()
        return jax.lax.scan(body, w, xs)
    save("scan", scanned, (normal(8, 8), normal(3, 8, 8)))

    # cond: a shard_map in one branch, a global op in the other.
    for flag in (True, False):
        save(f"cond_{str(flag).lower()}", lambda p, w: jax.lax.cond(p, sm, lambda w: w + 1.0, w),
             (np.array(flag), normal(8, 8)))

    # switch: shard_maps with different splits (and collectives) in two of three branches.
    def rows(w):
        return jax.lax.all_gather(w, "x", axis=0, tiled=True)[: w.shape[0]] * 3.0
    sm_rows = jax.shard_map(rows, mesh=mesh, in_specs=P("x", None), out_specs=P("x", None))

    def switched(i, w):
        return jax.lax.switch(i, [sm, sm_rows, lambda w: -w], w)
    for i in range(3):
        save(f"switch_{i}", switched, (np.int32(i), normal(8, 8)))

    # Nested: shard_map over "x" whose body runs a shard_map over "y" with psums over both.
    def inner(w):
        return w * 2.0 + jax.lax.psum(w, "y") + jax.lax.psum(w, "x")

    def outer(w):
        g = jax.shard_map(inner, in_specs=P(None, "y"), out_specs=P(None, "y"),
                          axis_names={"y"})
        return g(w) + 1.0
    nested = jax.shard_map(outer, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                           axis_names={"x"})
    save("nested", nested, (normal(8, 8),))

    # Nested, the outer body computing around the inner one (a reduction over its rows, a
    # ppermute over "y" inside), under jit shardings.
    def inner2(w):
        n = 4
        return jax.lax.ppermute(w, "y", [(i, (i + 1) % n) for i in range(n)]) - jax.lax.pmean(w, "x")

    def outer2(w, b):
        g = jax.shard_map(inner2, in_specs=P("y"), out_specs=P("y"), axis_names={"y"})
        h = g(jnp.tanh(w))
        return h * b, jnp.sum(h, axis=0, keepdims=True)
    nested2 = jax.shard_map(outer2, mesh=mesh, in_specs=(P(None, "x"), P(None, "x")),
                            out_specs=(P(None, "x"), P(None, "x")), axis_names={"x"})
    save("nested_under_jit", nested2, (normal(8, 8), normal(1, 8)),
         (s("y", None), s()), (s(None, "x"), s()))

    # A nested shard_map in a fori_loop.
    save("nested_in_loop", lambda w: jax.lax.fori_loop(0, 2, lambda i, w: nested(w), w),
         (normal(8, 8),))


if __name__ == "__main__":
    main()
