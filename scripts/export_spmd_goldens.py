#!/usr/bin/env python3
"""Exports the multi-device (SPMD) JAX goldens `systolic run` is tested on.

Run with the JAX venv on 8 host devices (re-runnable and deterministic; it rewrites the folders
it owns):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        /root/.cache/systolic-jax-venv/bin/python scripts/export_spmd_goldens.py

Each program is `jax.jit(jax.shard_map(f, mesh=..., in_specs=..., out_specs=...))` on a 1D (8),
2D (2x4, 4x2) or 3D (2x2x2) mesh, with inputs placed by `NamedSharding(mesh, in_spec)`. For
each it writes crates/systolic-cli/tests/data/spmd/<name>/ with
  module.mlir         -- the GSPMD form (lowered with jax_use_shardy_partitioner=False)
  module_shardy.mlir  -- the Shardy form (JAX's default)
  in0.npy ...         -- the global inputs
  out0.npy ...        -- JAX's global outputs
  meta.json           -- JAX version, mesh, specs, tolerances (the CLI goldens' format)

What JAX 0.10.2 exports for a shard_map (`jax.jit(...).lower(...).as_text()`), and what runs:

- Shardy (default): module attributes `mhlo.num_partitions = 8`, an `sdy.mesh`, arguments and
  results with `sdy.sharding = #sdy.sharding<@mesh, [...]>` in *global* shapes, and the body
  inside `sdy.manual_computation(...) in_shardings=[...] out_shardings=[...]
  manual_axes={...} (%local: <local type>) { ... sdy.return }`; collectives inside use
  `replica_groups` over global device ids with `use_global_device_ids`. Runs: the compiler's
  `lower_manual_computations` inlines the bodies into the per-device program (`systolic run`
  does this for Shardy modules).
- GSPMD (`jax.config.update("jax_use_shardy_partitioner", False)`): arguments and results with
  `mhlo.sharding = "{devices=[...]...}"` in global shapes; the entry crosses into the body
  through `custom_call @Sharding` + `@SPMDFullToShardShape` (to `{manual}`), calls
  `@shmap_body` (per-device shapes) and returns through `@Sharding {manual}` +
  `@SPMDShardToFullShape`. Runs: `systolic run` strips those boundary calls from the entry's
  arguments and results (which is all the SPMD partitioner would do for a shard_map over every
  mesh axis), runs the body on 8 devices, splits inputs and assembles outputs by the shardings.
- `jax.jit(...).lower(...).compile().as_text()` is XLA's post-partitioning HLO (not StableHLO):
  not usable here. There is no option that prints per-device StableHLO directly.
"""

import json
import pathlib
import shutil

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "crates" / "systolic-cli" / "tests" / "data" / "spmd"

assert jax.device_count() == 8, "run with XLA_FLAGS=--xla_force_host_platform_device_count=8"


def normal(seed, shape, scale=1.0):
    return (np.random.RandomState(seed).standard_normal(shape) * scale).astype(np.float32)


def lower_text(f, mesh, in_specs, out_specs, args, shardy, check_vma):
    jax.config.update("jax_use_shardy_partitioner", shardy)
    try:
        g = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                                  check_vma=check_vma))
        return g.lower(*args).as_text()
    finally:
        jax.config.update("jax_use_shardy_partitioner", True)


def export(name, f, mesh, in_specs, out_specs, args, tol=1e-6, why="JAX's f32 test tolerance",
           check_vma=True):
    folder = DATA / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    placed = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(args, in_specs)]
    (folder / "module.mlir").write_text(lower_text(f, mesh, in_specs, out_specs, placed, False, check_vma))
    (folder / "module_shardy.mlir").write_text(
        lower_text(f, mesh, in_specs, out_specs, placed, True, check_vma))
    g = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                              check_vma=check_vma))
    outs = jax.tree_util.tree_leaves(g(*placed))
    inputs, outputs = [], []
    for i, a in enumerate(args):
        a = np.asarray(a)
        np.save(folder / f"in{i}.npy", a)
        inputs.append({"file": f"in{i}.npy", "shape": list(a.shape), "dtype": str(a.dtype)})
    for i, o in enumerate(outs):
        o = np.asarray(o)
        np.save(folder / f"out{i}.npy", o)
        outputs.append({"file": f"out{i}.npy", "shape": list(o.shape), "dtype": str(o.dtype)})
    per_dtype = {o["dtype"]: {"rtol": tol, "atol": tol}
                 for o in outputs if o["dtype"].startswith("float")}
    meta = {
        "program": name,
        "jax_version": jax.__version__,
        "mesh": dict(zip(mesh.axis_names, [int(n) for n in mesh.devices.shape])),
        "in_specs": [str(s) for s in in_specs],
        "out_specs": [str(s) for s in jax.tree_util.tree_leaves(
            out_specs, is_leaf=lambda s: isinstance(s, P))],
        "inputs": inputs,
        "outputs": outputs,
        "tolerance": {"per_dtype": per_dtype, "why": why,
                      "test": "|got - jax| <= atol + rtol * |jax|; NaN == NaN"},
        "integers_and_bools": "exact",
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{name}: {len(args)} inputs, {len(outs)} outputs")


def mesh1d():
    return jax.make_mesh((8,), ("i",))


def export_reductions_1d():
    """psum, pmean, pmax over 8 devices."""
    def f(x):
        return lax.psum(x, "i"), lax.pmean(x, "i"), lax.pmax(x, "i")
    export("reductions_1d", f, mesh1d(), (P("i"),), (P(), P(), P()), [normal(1, (16, 4))],
           why="a sum of 8 f32 values in another order: within JAX's 1e-6")


def export_all_gather_2x4():
    """all_gather over y, tiled and not, on a 2x4 mesh."""
    mesh = jax.make_mesh((2, 4), ("x", "y"))
    def f(x):
        return (lax.all_gather(x, "y", axis=1, tiled=True),
                lax.all_gather(x, "y", axis=0, tiled=False))
    export("all_gather_2x4", f, mesh, (P("x", "y"),), (P("x", None), P(None, "x", None)),
           [normal(2, (4, 8))], tol=0.0, why="data movement: exact",
           # all_gather's result is not typed as invariant over y (all_gather_invariant is).
           check_vma=False)


def export_psum_scatter_4x2():
    """psum_scatter over x on a 4x2 mesh, and the axis index of y."""
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    def f(x):
        s = lax.psum_scatter(x, "x", scatter_dimension=0, tiled=True)
        return s * (lax.axis_index("y") + 1).astype(jnp.float32)
    export("psum_scatter_4x2", f, mesh, (P(None, "y"),), P("x", "y"),
           [normal(3, (8, 4))], why="a sum of 4 f32 values in another order: within 1e-6")


def export_ppermute_1d():
    """A ring shift plus each device's index."""
    def f(x):
        shifted = lax.ppermute(x, "i", perm=[(j, (j + 1) % 8) for j in range(8)])
        return shifted + lax.axis_index("i").astype(jnp.float32), lax.axis_index("i")[None]
    export("ppermute_1d", f, mesh1d(), (P("i"),), (P("i"), P("i")), [normal(4, (8, 3))],
           tol=0.0, why="data movement and exact small sums")


def export_all_to_all_2x4():
    """all_to_all over y (split rows, concatenate columns) on a 2x4 mesh."""
    mesh = jax.make_mesh((2, 4), ("x", "y"))
    def f(x):
        return lax.all_to_all(x, "y", split_axis=0, concat_axis=1, tiled=True)
    export("all_to_all_2x4", f, mesh, (P("x", "y"),), P(("x", "y"), None),
           [normal(5, (8, 8))], tol=0.0, why="data movement: exact")


def export_mesh_2x2x2():
    """A 3D mesh: psum over c, axis_index of b, pmax over (a, b), pmean over all three."""
    mesh = jax.make_mesh((2, 2, 2), ("a", "b", "c"))
    def f(x):
        r = lax.psum(x, "c") * (lax.axis_index("b") + 1).astype(jnp.float32)
        return r, lax.pmax(x, ("a", "b")), lax.pmean(x, ("a", "b", "c"))
    export("mesh_2x2x2", f, mesh, (P("a", "b", "c"),),
           (P("a", "b", None), P(None, None, "c"), P()), [normal(6, (4, 4, 2))],
           why="sums of up to 8 f32 values in another order: within 1e-6")


def export_fori_loop_1d():
    """Collectives inside lax.fori_loop: each step shifts the ring and adds the mean."""
    def f(x):
        def body(k, c):
            c = lax.ppermute(c, "i", perm=[(j, (j + 1) % 8) for j in range(8)])
            return c * 0.5 + lax.pmean(c, "i") + k.astype(jnp.float32)
        return lax.fori_loop(0, 3, body, x)
    export("fori_loop_1d", f, mesh1d(), (P("i"),), P("i"), [normal(7, (8, 4))],
           why="means of 8 f32 values over 3 steps: within 1e-6")


def export_mlp_dp_step():
    """One SGD step of a small MLP, data-parallel over 8 devices (gradients pmean'd)."""
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        logits = h @ w2 + b2
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.sum(logp * y, axis=-1))

    def step(w1, b1, w2, b2, x, y):
        params = (w1, b1, w2, b2)
        l, grads = jax.value_and_grad(loss)(params, x, y)
        grads = jax.tree_util.tree_map(lambda g: lax.pmean(g, "batch"), grads)
        new = tuple(p - 0.1 * g for p, g in zip(params, grads))
        return new + (lax.pmean(l, "batch"),)

    mesh = jax.make_mesh((8,), ("batch",))
    labels = np.eye(4, dtype=np.float32)[np.random.RandomState(12).randint(0, 4, 32)]
    args = [normal(8, (6, 16), 0.4), normal(9, (16,), 0.1), normal(10, (16, 4), 0.4),
            normal(11, (4,), 0.1), normal(13, (32, 6)), labels]
    specs = (P(), P(), P(), P(), P("batch"), P("batch"))
    export("mlp_dp_step", step, mesh, specs, (P(), P(), P(), P(), P()), args, tol=1e-5,
           why="f32 dots, tanh and log-softmax forward and backward, then means over 8 "
               "devices in another order: within 1e-5")


if __name__ == "__main__":
    DATA.mkdir(parents=True, exist_ok=True)
    export_reductions_1d()
    export_all_gather_2x4()
    export_psum_scatter_4x2()
    export_ppermute_1d()
    export_all_to_all_2x4()
    export_mesh_2x2x2()
    export_fori_loop_1d()
    export_mlp_dp_step()
