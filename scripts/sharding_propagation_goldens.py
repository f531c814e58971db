"""Shardy's propagated shardings for the programs of
crates/systolic-compiler/tests/sharding_propagation.rs, on 8 host CPU devices.

Run with the JAX venv (JAX 0.10.2):

    /root/.cache/systolic-jax-venv/bin/python scripts/sharding_propagation_goldens.py

For each program it jits with in/out shardings on an Auto mesh, compiles with XLA's dump on,
and copies the two modules Shardy's propagation pipeline dumps (`shardy/<module>/`):

- `NAME.mlir`: the module as Shardy's propagation received it (`01.before_propagation.mlir`:
  `sdy.sharding` on arguments and some results, `sdy.sharding_constraint`s);
- `NAME.propagated.mlir`: the same module after propagation (`02.after_propagation.mlir`),
  every op annotated `{sdy.sharding = #sdy.sharding_per_value<[...]>}` and every result
  sharded.

into crates/systolic-compiler/tests/data/sharding_propagation/ (with `sdy.constant`, Shardy's
unfoldable constant, written as `stablehlo.constant`, and `sdy.reshard`, which propagation's
import makes of each `sdy.sharding_constraint`, written as the constraint again). The test parses `NAME.mlir`,
runs Systolic's `propagate_shardings` on it and compares each op result's sharding with
Shardy's in `NAME.propagated.mlir` (ops in the same order: propagation adds attributes only).
It also prints a summary of each program's propagated shardings.
"""

import glob
import os
import re
import shutil
import sys
import tempfile

DUMP = tempfile.mkdtemp(prefix="sdy_dump_")
os.environ["XLA_FLAGS"] = (
    f"--xla_force_host_platform_device_count=8 --xla_dump_to={DUMP} "
    "--xla_dump_hlo_pass_re=shardy"
)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "crates",
    "systolic-compiler",
    "tests",
    "data",
    "sharding_propagation",
)
AUTO = jax.sharding.AxisType.Auto
MESH = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AUTO, AUTO))
U = P.UNCONSTRAINED


def S(*spec):
    return NamedSharding(MESH, P(*spec))


def f32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def mlp(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def elementwise_forward(x):
    return jnp.exp(x) * 2.0 + 1.0


def elementwise_backward(x, y):
    return jnp.sin(x) * y


def reduce_sharded(x):
    return jnp.sum(x, axis=1), jnp.max(x, axis=0)


def reshape_split(x):
    return jnp.reshape(x, (4, 4, 8)) * 2.0


def reshape_subaxes(x):
    return jnp.reshape(x, (2, 8, 8)) + 1.0


def reshape_merge(x):
    return jnp.reshape(jnp.cos(x), (64, 8))


def transpose(x):
    return jnp.transpose(x) + 1.0


def broadcast(x, y):
    return x[:, None] + y


def constraint_middle(x):
    h = jnp.sin(x)
    h = jax.lax.with_sharding_constraint(h, S(None, "model"))
    return jnp.cos(h)


def open_constraint(x, w):
    h = jax.lax.with_sharding_constraint(x @ w, S("data", U))
    return jnp.tanh(h)


def conflict(x, y):
    return x + y


def dot_batch(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


def dot_axis_conflict(a, b):
    return a @ b


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def slice_concat(x):
    return jnp.concatenate([x[:, :4], x[:, 4:] * 2.0], axis=1)


# name -> (function, argument shapes, in_shardings, out_shardings or None)
PROGRAMS = {
    "mlp": (
        mlp,
        [f32(16, 8), f32(8, 32), f32(32, 8)],
        (S("data", None), S(None, "model"), S("model", None)),
        None,
    ),
    "elementwise_forward": (elementwise_forward, [f32(16, 32)], (S("data", "model"),), None),
    "elementwise_backward": (
        elementwise_backward,
        [f32(16, 32), f32(16, 32)],
        None,
        S("data", "model"),
    ),
    "reduce_sharded": (reduce_sharded, [f32(16, 32)], (S("data", "model"),), None),
    "reshape_split": (reshape_split, [f32(16, 8)], (S("data", None),), None),
    "reshape_subaxes": (reshape_subaxes, [f32(16, 8)], (S("data", None),), None),
    "reshape_merge": (reshape_merge, [f32(8, 8, 8)], (S("data", "model", None),), None),
    "transpose": (transpose, [f32(16, 32)], (S("data", "model"),), None),
    "broadcast": (broadcast, [f32(16), f32(16, 32)], (S("data"), S(None, "model")), None),
    "constraint_middle": (constraint_middle, [f32(16, 32)], (S("data", None),), None),
    "open_constraint": (
        open_constraint,
        [f32(16, 8), f32(8, 32)],
        (S(None, None), S(None, "model")),
        None,
    ),
    "conflict": (conflict, [f32(16, 32), f32(16, 32)], (S("data", None), S("model", None)), None),
    "dot_batch": (
        dot_batch,
        [f32(4, 8, 16), f32(4, 16, 32)],
        (S("data", None, None), S(None, None, "model")),
        None,
    ),
    "slice_concat": (slice_concat, [f32(16, 8)], (S("data", "model"),), None),
    # Both free factors of the product want "data": the larger operand's wins.
    "dot_axis_conflict": (
        dot_axis_conflict,
        [f32(16, 8), f32(8, 32)],
        (S("data", None), S(None, "data")),
        None,
    ),
    "softmax": (softmax, [f32(16, 32)], (S("data", "model"),), None),
}


def export(name, fn, shapes, ins, outs):
    before = set(glob.glob(os.path.join(DUMP, "shardy", "*")))
    kwargs = {}
    if ins is not None:
        kwargs["in_shardings"] = ins
    if outs is not None:
        kwargs["out_shardings"] = outs
    jax.jit(fn, **kwargs).lower(*shapes).compile()
    new = sorted(set(glob.glob(os.path.join(DUMP, "shardy", "*"))) - before)
    if len(new) != 1:
        sys.exit(f"{name}: expected one new Shardy dump, found {new}")
    src = new[0]
    for dumped, saved in [("01.before_propagation", name), ("02.after_propagation", f"{name}.propagated")]:
        text = open(os.path.join(src, f"{dumped}.mlir")).read()
        # Shardy's import turns constants into `sdy.constant` (a constant no pass folds); it
        # means what `stablehlo.constant` means, which is what Systolic's parser knows.
        text = text.replace("sdy.constant dense", "stablehlo.constant dense")
        # Propagation's import turns each constraint into `sdy.reshard` (the same syntax: a
        # constraint the partitioner must honour); Systolic's IR has the constraint.
        text = text.replace("sdy.reshard %", "sdy.sharding_constraint %")
        with open(os.path.join(OUT, f"{saved}.mlir"), "w") as f:
            f.write(text)
    after = os.path.join(OUT, f"{name}.propagated.mlir")
    print(f"== {name}")
    for line in open(after):
        m = re.search(r"(%\S+) = (\S+).*sdy.sharding = #sdy.sharding_per_value<\[(.*?)\]>", line)
        if m:
            print(f"  {m.group(1)} = {m.group(2)}: {m.group(3)}")
        elif "func.func" in line:
            for s in re.findall(r"sdy.sharding = (#sdy.sharding<[^>]*>)", line):
                print(f"  func: {s}")


def main():
    os.makedirs(OUT, exist_ok=True)
    print(f"JAX {jax.__version__}, mesh {dict(MESH.shape)}")
    for name, (fn, shapes, ins, outs) in PROGRAMS.items():
        export(name, fn, shapes, ins, outs)
    shutil.rmtree(DUMP)


if __name__ == "__main__":
    main()
