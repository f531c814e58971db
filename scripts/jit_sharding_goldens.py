#!/usr/bin/env python3
"""Exports the jit-with-shardings JAX goldens `systolic run` is tested on (issue 16).

Run with the JAX venv on 8 host devices (re-runnable and deterministic; it rewrites the folders
it owns):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        /root/.cache/systolic-jax-venv/bin/python scripts/jit_sharding_goldens.py [NAME ...]

Each program is a global function `f` jitted as `jax.jit(f, in_shardings=..., out_shardings=...)`
on a 1D (8), 2D (2x4, 4x2) or 3D (2x2x2) mesh of `Auto` axes, some with
`jax.lax.with_sharding_constraint` in the middle. JAX 0.10.2 lowers it in the Shardy form: an
`sdy.mesh`, `sdy.sharding` on the entry's arguments and results (global shapes),
`sdy.sharding_constraint` ops; nothing is partitioned yet -- that is the work `systolic run`
does (propagation, then the SPMD partitioner). For each program it writes
crates/systolic-cli/tests/data/partitioned/<name>/ with
  module.mlir            -- `jax.jit(f, in_shardings=..., out_shardings=...).lower(...).as_text()`
  module_gspmd.mlir      -- the same lowered with `jax_use_shardy_partitioner=False`: GSPMD's
                            `mhlo.sharding` on arguments and results, `custom_call @Sharding`
                            for constraints (the compiler imports it as Shardy's)
  module_unsharded.mlir  -- `jax.jit(f).lower(...)` on one device (no shardings): the program
                            the per-device memory is compared with
  in0.npy ...            -- the global inputs
  out0.npy ...           -- JAX's global outputs, computed on the 8 devices
  meta.json              -- JAX version, mesh, shardings, tolerances (the CLI goldens' format)

Tolerances: data movement is exact; f32 sums in another order are held to JAX's 1e-6 relative
(1e-5 for dots whose contraction is split, 1e-4 for the model programs, which chain several
contractions, a softmax and its gradient; 1e-2 for bf16 results).
"""

import json
import pathlib
import shutil
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "crates" / "systolic-cli" / "tests" / "data" / "partitioned"

assert jax.device_count() == 8, "run with XLA_FLAGS=--xla_force_host_platform_device_count=8"

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def mesh(shape, names):
    return jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(shape))


def normal(seed, shape, scale=1.0):
    return (np.random.RandomState(seed).standard_normal(shape) * scale).astype(np.float32)


def export(name, f, m, in_specs, out_specs, args, tol=1e-6, why="JAX's f32 test tolerance"):
    folder = DATA / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shard = lambda spec: NamedSharding(m, spec)
    out_shardings = jax.tree_util.tree_map(shard, out_specs, is_leaf=lambda s: isinstance(s, P))
    # An in_spec of None leaves the argument's sharding to the compiler (no sdy.sharding).
    in_shardings = tuple(None if s is None else shard(s) for s in in_specs)
    g = jax.jit(f, in_shardings=in_shardings, out_shardings=out_shardings)
    (folder / "module.mlir").write_text(g.lower(*args).as_text())
    jax.config.update("jax_use_shardy_partitioner", False)
    try:
        (folder / "module_gspmd.mlir").write_text(g.lower(*args).as_text())
    finally:
        jax.config.update("jax_use_shardy_partitioner", True)
    (folder / "module_unsharded.mlir").write_text(jax.jit(f).lower(*args).as_text())
    placed = [a if s is None else jax.device_put(a, shard(s)) for a, s in zip(args, in_specs)]
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
                 for o in outputs if "float" in o["dtype"]}
    meta = {
        "program": name,
        "jax_version": jax.__version__,
        "mesh": dict(zip(m.axis_names, [int(n) for n in m.devices.shape])),
        "in_shardings": ["unspecified" if s is None else str(s) for s in in_specs],
        "out_shardings": [str(s) for s in jax.tree_util.tree_leaves(
            out_specs, is_leaf=lambda s: isinstance(s, P))],
        "inputs": inputs,
        "outputs": outputs,
        "tolerance": {"per_dtype": per_dtype, "why": why,
                      "test": "|got - jax| <= atol + rtol * |jax|; NaN == NaN"},
        "integers_and_bools": "exact",
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{name}: {len(args)} inputs, {len(outs)} outputs")


# --- 1D mesh (8) ---------------------------------------------------------------------------

@case
def elementwise_1d():
    """An elementwise chain on rows split over 8 devices, a result held whole."""
    m = mesh((8,), ("x",))
    def f(x, y):
        z = jnp.tanh(x) * 2.0 + y
        return z, jnp.exp(-z)
    export("elementwise_1d", f, m, (P("x", None), P("x", None)), (P("x", None), P()),
           [normal(1, (16, 8)), normal(2, (16, 8))])


@case
def reductions_1d():
    """Sum, max and mean over the split dimension and the whole one."""
    m = mesh((8,), ("x",))
    def f(x):
        return x.sum(axis=0), x.max(axis=0), x.mean(axis=1), x.min()
    export("reductions_1d", f, m, (P("x", None),), (P(), P(), P("x"), P()),
           [normal(3, (32, 6))], why="sums of 32 f32 values in another order: within 1e-6")


@case
def softmax_1d():
    """Softmax along the split axis (max and sum completed across devices)."""
    m = mesh((8,), ("x",))
    def f(x):
        return jax.nn.softmax(x, axis=-1)
    export("softmax_1d", f, m, (P(None, "x"),), P(None, "x"), [normal(4, (4, 32))])


@case
def uneven_4x2():
    """10x6 on 4 pieces of a 4x2 mesh: 10 does not divide by 4. JAX refuses non-dividing
    argument shardings, so the 10 rows are made inside (a slice of 12) and constrained."""
    m = mesh((4, 2), ("data", "model"))
    def f(x, w):
        y = jax.lax.with_sharding_constraint(x[:10], NamedSharding(m, P("data", None)))
        h = jax.lax.with_sharding_constraint(jnp.tanh(y @ w), NamedSharding(m, P("data", "model")))
        return h, y.sum(axis=0)
    export("uneven_4x2", f, m, (P(), P(None, "model")), (P(), P()),
           [normal(5, (12, 6)), normal(6, (6, 4))], tol=1e-5)


# --- matmuls on 2D meshes --------------------------------------------------------------------

MATMULS = {
    # name: (x spec, w spec, result spec)
    "batch": (P("data", None), P(None, None), P("data", None)),
    "both_free": (P("data", None), P(None, "model"), P("data", "model")),
    "contract_allreduce": (P(None, "model"), P("model", None), P(None, None)),
    "contract_scatter": (P(None, "model"), P("model", None), P("model", None)),
    "contract_scatter_cols": (P("data", "model"), P("model", None), P("data", "model")),
    "gather_other": (P("data", "model"), P(None, "model"), P("data", None)),
    "result_moved": (P("data", None), P(None, "model"), P(None, ("data", "model"))),
    "replicated_in": (P(), P(), P(("model", "data"), None)),
}


@case
def matmuls_4x2():
    """x @ w under many shardings of the operands and the result on a 4x2 mesh."""
    m = mesh((4, 2), ("data", "model"))
    x, w = normal(7, (16, 8)), normal(8, (8, 8))
    for variant, (xs, ws, rs) in MATMULS.items():
        export(f"matmul_{variant}_4x2", lambda x, w: x @ w, m, (xs, ws), rs, [x, w], tol=1e-5,
               why="f32 dot products of 8 terms, partial sums added across devices: 1e-5")


@case
def matmuls_2x4():
    """The same on a 2x4 mesh (the other axis is the larger), and a batched einsum."""
    m = mesh((2, 4), ("data", "model"))
    x, w = normal(9, (8, 16)), normal(10, (16, 8))
    for variant in ("both_free", "contract_allreduce", "contract_scatter", "result_moved"):
        xs, ws, rs = MATMULS[variant]
        export(f"matmul_{variant}_2x4", lambda x, w: x @ w, m, (xs, ws), rs, [x, w], tol=1e-5,
               why="f32 dot products of 16 terms, partial sums added across devices: 1e-5")
    a, b = normal(11, (4, 8, 8)), normal(12, (4, 8, 8))
    export("batched_einsum_2x4", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), m,
           (P("data", None, "model"), P("data", "model", None)), P("data", None, None), [a, b],
           tol=1e-5, why="f32 dot products of 8 terms split over devices: 1e-5")


@case
def reductions_2x4():
    """Reductions over each dimension of an array split over both axes."""
    m = mesh((2, 4), ("a", "b"))
    def f(x):
        return x.sum(axis=0), x.max(axis=1), jnp.sum(x * x)
    export("reductions_2x4", f, m, (P("a", "b"),), (P("b"), P("a"), P()),
           [normal(13, (8, 16))], why="sums of up to 128 f32 values in another order: 1e-6")


@case
def embedding_vocab_4x2():
    """An embedding table split by vocabulary (rows) looked up by ids split by batch."""
    m = mesh((4, 2), ("data", "model"))
    def f(table, ids):
        return table[ids], jnp.take(table, ids[:, 0], axis=0)
    table = normal(14, (32, 8))
    ids = np.random.RandomState(15).randint(0, 32, size=(8, 3)).astype(np.int32)
    export("embedding_vocab_4x2", f, m, (P("model", None), P("data", None)),
           (P("data", None, None), P("data", None)), [table, ids], tol=0.0,
           why="a lookup: exact")


@case
def constraint_2x4():
    """with_sharding_constraint in the middle moves a value between layouts."""
    m = mesh((2, 4), ("x", "y"))
    def f(a, b):
        h = jnp.tanh(a @ b)
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P(None, ("x", "y"))))
        h = h * 2.0 + 1.0
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P("y", "x")))
        return h.sum(axis=1), h
    export("constraint_2x4", f, m, (P("x", None), P(None, "y")), (P(), P("x", "y")),
           [normal(16, (8, 8)), normal(17, (8, 16))], tol=1e-5,
           why="f32 dot products of 8 terms and sums of 16: 1e-5")


@case
def bf16_matmul_4x2():
    """A bf16 product with its contraction split (partial sums in bf16's f32 accumulation)."""
    m = mesh((4, 2), ("data", "model"))
    x = normal(50, (16, 8)).astype(jnp.bfloat16)
    w = normal(51, (8, 8)).astype(jnp.bfloat16)
    export("bf16_matmul_4x2", lambda x, w: x @ w, m, (P("data", "model"), P("model", None)),
           P("data", None), [x, w], tol=1e-2,
           why="bf16 results (8 bits of mantissa) of sums added in another order: 1e-2")


@case
def scans_1d():
    """cumsum and sort along the split dimension."""
    m = mesh((8,), ("x",))
    def f(x):
        return jnp.cumsum(x, axis=1), jnp.sort(x, axis=1)
    export("scans_1d", f, m, (P(None, "x"),), (P(None, "x"), P(None, "x")),
           [normal(52, (4, 16))], tol=1e-6, why="cumulative f32 sums of 16 terms: 1e-6")


@case
def argmax_1d():
    """argmax and max along the split dimension (a reduce of values and indices)."""
    m = mesh((8,), ("x",))
    def f(x):
        return jnp.argmax(x, axis=1), jnp.argmin(x, axis=0)
    export("argmax_1d", f, m, (P(None, "x"),), (P(), P("x")), [normal(57, (4, 16))], tol=0.0,
           why="indices: exact")


@case
def fori_loop_4x2():
    """A fori_loop whose carry is split (rows over data, columns over model)."""
    m = mesh((4, 2), ("data", "model"))
    def f(x, w):
        def body(i, h):
            return jnp.tanh(h @ w) + i.astype(jnp.float32) * 0.1
        return jax.lax.fori_loop(0, 3, body, x)
    export("fori_loop_4x2", f, m, (P("data", "model"), P(None, "model")), P("data", "model"),
           [normal(53, (8, 8)), normal(54, (8, 8), 0.5)], tol=1e-5,
           why="three chained f32 products of 8 terms: 1e-5")


@case
def conv_4x2():
    """A 2D convolution: batch over data, output features over model."""
    m = mesh((4, 2), ("data", "model"))
    def f(x, k):
        return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))
    export("conv_4x2", f, m, (P("data", None, None, None), P(None, None, None, "model")),
           P("data", None, None, "model"), [normal(55, (4, 6, 6, 3)), normal(56, (3, 3, 3, 4))],
           tol=1e-5, why="f32 sums of 27 products: 1e-5")


@case
def partly_manual_4x2():
    """A shard_map manual over model only (data left to the compiler) inside a jit whose
    arguments are split over both axes: a psum over model inside, global ops around it."""
    m = mesh((4, 2), ("data", "model"))
    def inner(x, w):
        return jax.lax.psum(x @ w, "model")
    sm = jax.shard_map(inner, mesh=m, in_specs=(P(None, "model"), P("model", None)),
                       out_specs=P(), axis_names={"model"})
    def f(x, w):
        return jnp.tanh(sm(x * 2.0, w)) + 1.0
    export("partly_manual_4x2", f, m, (P("data", "model"), P("model", None)), P("data", None),
           [normal(70, (16, 8)), normal(71, (8, 8))], tol=1e-5,
           why="f32 dot products of 8 terms summed across devices: 1e-5")


# --- 3D mesh -------------------------------------------------------------------------------

@case
def mesh_2x2x2():
    """A chain of dots on a 2x2x2 mesh: split batch, split contraction, split features."""
    m = mesh((2, 2, 2), ("a", "b", "c"))
    def f(x, w1, w2):
        h = jax.nn.relu(x @ w1)
        return h @ w2, h.sum(axis=0)
    export("mesh_2x2x2", f, m, (P(("a", "b"), "c"), P("c", None), P(None, ("b", "c"))),
           (P("a", None), P("c")), [normal(18, (8, 8)), normal(19, (8, 16)),
                                     normal(20, (16, 8))], tol=1e-5,
           why="f32 dot products of up to 16 terms split over devices: 1e-5")


# --- models with FSDP + tensor parallelism -------------------------------------------------

def mlp(params, x):
    w1, b1, w2, b2 = params
    h = jax.nn.gelu(x @ w1 + b1)
    return h @ w2 + b2


# FSDP on "data" (weights split along the dimension TP leaves whole), TP on "model".
MLP_SPECS = (P("data", "model"), P("model"), P("model", "data"), P(None))


def mlp_params(seed, d, hidden):
    return [normal(seed, (d, hidden), 0.3), normal(seed + 1, (hidden,), 0.1),
            normal(seed + 2, (hidden, d), 0.3), normal(seed + 3, (d,), 0.1)]


@case
def mlp_fsdp_tp():
    """A two-layer MLP forward: batch and FSDP on data=4, hidden features on model=2."""
    m = mesh((4, 2), ("data", "model"))
    def f(w1, b1, w2, b2, x):
        return mlp((w1, b1, w2, b2), x)
    args = mlp_params(21, 8, 16) + [normal(25, (16, 8))]
    export("mlp_fsdp_tp", f, m, MLP_SPECS + (P("data", None),), P("data", None), args,
           tol=1e-5, why="two f32 dots with split contractions and a gelu: 1e-5")


@case
def mlp_open_weight_4x2():
    """The MLP forward with the second weight's sharding left to the compiler
    (`in_shardings` None): propagation chooses it, and the input is split accordingly."""
    m = mesh((4, 2), ("data", "model"))
    def f(w1, b1, w2, b2, x):
        return mlp((w1, b1, w2, b2), x)
    args = mlp_params(26, 8, 16) + [normal(30, (16, 8))]
    specs = (MLP_SPECS[0], MLP_SPECS[1], None, MLP_SPECS[3], P("data", None))
    export("mlp_open_weight_4x2", f, m, specs, P("data", None), args, tol=1e-5,
           why="two f32 dots with split contractions and a gelu: 1e-5")


@case
def train_step_fsdp_tp():
    """One SGD step of the MLP under FSDP + TP: loss, gradients, updated parameters."""
    m = mesh((4, 2), ("data", "model"))
    def step(w1, b1, w2, b2, x, y):
        def loss(params):
            return jnp.mean((mlp(params, x) - y) ** 2)
        params = (w1, b1, w2, b2)
        l, grads = jax.value_and_grad(loss)(params)
        return tuple(p - 0.1 * g for p, g in zip(params, grads)) + (l,)
    args = mlp_params(31, 8, 16) + [normal(35, (16, 8)), normal(36, (16, 8))]
    export("train_step_fsdp_tp", step, m, MLP_SPECS + (P("data", None), P("data", None)),
           MLP_SPECS + (P(),), args, tol=1e-4,
           why="a forward, its gradient and an update: chained split contractions, 1e-4")


def layer_norm(x, g):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g


B, S, D, H, F = 4, 8, 16, 4, 32
Dh = D // H


def block(x, g1, wq, wk, wv, wo, g2, w1, w2):
    """A pre-norm transformer block: causal attention over H heads, then a ReLU MLP."""
    h = layer_norm(x, g1)
    q = jnp.einsum("bsd,dhk->bshk", h, wq)
    k = jnp.einsum("bsd,dhk->bshk", h, wk)
    v = jnp.einsum("bsd,dhk->bshk", h, wv)
    s = jnp.einsum("bshk,bthk->bhst", q, k) / np.sqrt(Dh).astype(np.float32)
    mask = jnp.tril(jnp.ones((S, S), bool))
    s = jnp.where(mask, s, -1e9)
    p = jax.nn.softmax(s, axis=-1)
    a = jnp.einsum("bhst,bthk->bshk", p, v)
    x = x + jnp.einsum("bshk,hkd->bsd", a, wo)
    h = layer_norm(x, g2)
    return x + jax.nn.relu(h @ w1) @ w2


def block_params(seed):
    return [1.0 + normal(seed, (D,), 0.1), normal(seed + 1, (D, H, Dh), 0.25),
            normal(seed + 2, (D, H, Dh), 0.25), normal(seed + 3, (D, H, Dh), 0.25),
            normal(seed + 4, (H, Dh, D), 0.25), 1.0 + normal(seed + 5, (D,), 0.1),
            normal(seed + 6, (D, F), 0.25), normal(seed + 7, (F, D), 0.25)]


# FSDP over data on the model dimension of every weight, heads and hidden features over model.
BLOCK_SPECS = (P(None), P("data", "model", None), P("data", "model", None),
               P("data", "model", None), P("model", None, "data"), P(None), P("data", "model"),
               P("model", "data"))


@case
def transformer_block_fsdp_tp():
    """The transformer block forward: batch and FSDP on data=4; heads and hidden features on
    model=2."""
    m = mesh((4, 2), ("data", "model"))
    args = [normal(41, (B, S, D))] + block_params(42)
    export("transformer_block_fsdp_tp", block, m, (P("data", None, None),) + BLOCK_SPECS,
           P("data", None, None), args, tol=1e-4,
           why="attention and an MLP: chained split contractions, softmax, layer norms; 1e-4")


@case
def transformer_train_step_fsdp_tp():
    """One SGD step of the transformer block (squared error against targets) under FSDP + TP:
    the updated parameters keep their shardings, and the loss."""
    m = mesh((4, 2), ("data", "model"))
    def step(x, y, *params):
        def loss(params):
            return jnp.mean((block(x, *params) - y) ** 2)
        l, grads = jax.value_and_grad(loss)(params)
        return tuple(p - 0.1 * g for p, g in zip(params, grads)) + (l,)
    args = [normal(61, (B, S, D)), normal(62, (B, S, D))] + block_params(63)
    export("transformer_train_step_fsdp_tp", step, m,
           (P("data", None, None), P("data", None, None)) + BLOCK_SPECS, BLOCK_SPECS + (P(),),
           args, tol=1e-4,
           why="attention, an MLP and their gradients: chained split contractions; 1e-4")


if __name__ == "__main__":
    names = sys.argv[1:] or list(CASES)
    for n in names:
        CASES[n]()
