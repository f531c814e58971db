"""Goldens for crates/systolic/tests/vmap_collectives.rs: every jax.lax collective over a named
vmap axis (`jax.vmap(f, axis_name="b")`), and gradients through them in both orders —
`jax.vmap(jax.grad(f), axis_name="b")` and `jax.grad` of the vmapped function summed.

Run with the JAX venv (JAX 0.10.2):

    /root/.cache/systolic-jax-venv/bin/python scripts/vmap_collective_goldens.py

It writes crates/systolic/tests/data/vmap_collectives_jax0.10.2.json: for each case its name
(which the test maps to the same function), inputs and JAX's outputs (float32, flat, with
shapes). What JAX 0.10.2 does that the test relies on, checked here:
- vmap(grad) and grad(vmap) agree for every linear collective (psum's transpose is psum).
- pmax/pmin have no differentiation rule in either order (asserted below).
- ppermute under vmap asserts a full permutation (len(perm) == axis size).
- vmap(grad) of an untiled all_to_all with split_axis != concat_axis fails inside JAX 0.10.2
  ("Expected cotangent type float32[4,3,1] but got float32[4,1,3]": its transpose swaps the
  axes of the primitive but not the squeezed axis around it); grad(vmap) works, and is what
  the test checks both orders against (asserted below, so a JAX that fixes it is noticed).
- all_to_all of an unmapped operand under vmap gives JAX 0.10.2 a wrongly shaped result
  (float32[4,3,4,4,3,1] for a [4,3] operand with split 0, concat 1: its batching rule
  broadcasts the operand but then treats it as mapped at the wrong dimension); the golden is
  JAX's result for the operand explicitly broadcast over the examples (asserted different).
"""
import json
import os

# Two host devices for the case that mixes a shard_map mesh axis with a vmap axis.
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

jax.config.update("jax_enable_x64", False)
rng = np.random.RandomState(15)
N = 4  # examples


def arr(shape):
    return rng.uniform(-1.5, 1.5, size=shape).astype(np.float32)


def enc(x):
    x = np.asarray(x, dtype=np.float32)
    return {"shape": list(x.shape), "data": [float(v) for v in x.reshape(-1)]}


# name -> (per-example function of x, per-example input shape). Same names in the Rust test.
COLLECTIVES = {
    "psum": (lambda x: lax.psum(x, "b"), (3,)),
    "pmean": (lambda x: lax.pmean(x, "b"), (3,)),
    "pmax": (lambda x: lax.pmax(x, "b"), (3,)),
    "pmin": (lambda x: lax.pmin(x, "b"), (2, 3)),
    "all_gather_0": (lambda x: lax.all_gather(x, "b", axis=0), (3,)),
    "all_gather_1": (lambda x: lax.all_gather(x, "b", axis=1), (2, 3)),
    "all_gather_tiled": (lambda x: lax.all_gather(x, "b", axis=1, tiled=True), (2, 3)),
    "psum_scatter_tiled": (
        lambda x: lax.psum_scatter(x, "b", scatter_dimension=0, tiled=True),
        (8,),
    ),
    "psum_scatter_1": (
        lambda x: lax.psum_scatter(x, "b", scatter_dimension=1, tiled=False),
        (3, 4),
    ),
    "ppermute_cycle": (
        lambda x: lax.ppermute(x, "b", perm=[(i, (i + 1) % N) for i in range(N)]),
        (3,),
    ),
    "ppermute_swap": (
        lambda x: lax.ppermute(x, "b", perm=[(0, 3), (3, 0), (1, 2), (2, 1)]),
        (2, 2),
    ),
    "all_to_all_00": (lambda x: lax.all_to_all(x, "b", 0, 0), (4, 3)),
    "all_to_all_01": (lambda x: lax.all_to_all(x, "b", 0, 1), (4, 3)),
    "all_to_all_10": (lambda x: lax.all_to_all(x, "b", 1, 0), (3, 4)),
    "all_to_all_tiled": (lambda x: lax.all_to_all(x, "b", 1, 0, tiled=True), (3, 8)),
    "axis_index": (lambda x: x * lax.axis_index("b").astype(jnp.float32), (3,)),
}

NOT_DIFFERENTIABLE = {"pmax", "pmin"}
JAX_VMAP_GRAD_FAILS = {"all_to_all_01", "all_to_all_10"}


def loss(coll):
    # Nonlinear on both sides of the collective, weighted per example by c.
    return lambda x, c: jnp.sum(c * jnp.sin(coll(jnp.tanh(x))))


cases = []
for name, (coll, shape) in COLLECTIVES.items():
    x = arr((N, *shape))
    y = jax.vmap(coll, axis_name="b")(x)
    cases.append({"name": name, "kind": "forward", "inputs": [enc(x)], "outputs": [enc(y)]})
    c = arr((N, *y.shape[1:]))
    f = loss(coll)
    vg = lambda x, c: jax.vmap(jax.grad(f), axis_name="b")(x, c)
    gv = lambda x, c: jax.grad(lambda x: jax.vmap(f, axis_name="b")(x, c).sum())(x)
    if name in NOT_DIFFERENTIABLE:
        for g in (vg, gv):
            try:
                g(x, c)
                raise SystemExit(f"{name}: JAX differentiated it")
            except NotImplementedError as e:
                assert "Differentiation rule" in str(e), e
        continue
    b = gv(x, c)
    if name in JAX_VMAP_GRAD_FAILS:
        try:
            vg(x, c)
            raise SystemExit(f"{name}: JAX's vmap(grad) works now; store it")
        except ValueError as e:
            assert "Expected cotangent type" in str(e), e
        a = b
    else:
        a = vg(x, c)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jax.jit(gv)(x, c), a, rtol=1e-5, atol=1e-6)
    cases.append(
        {"name": name, "kind": "grad", "inputs": [enc(x), enc(c)], "outputs": [enc(a), enc(b)]}
    )

# Unmapped operands (the same value in every example): vmap with in_axes=None.
UNMAPPED = {
    "psum": (3,),
    "psum_scatter_tiled": (8,),
    "ppermute_cycle": (3,),
    "all_to_all_01": (4, 3),
    "all_to_all_tiled": (3, 8),
    "all_gather_0": (3,),
}
for name, shape in UNMAPPED.items():
    coll = COLLECTIVES[name][0]
    w = arr(shape)
    y = jax.vmap(coll, in_axes=None, axis_size=N, axis_name="b")(w)
    if name.startswith("all_to_all"):
        mapped = jax.vmap(coll, axis_name="b")(np.broadcast_to(w, (N, *shape)))
        assert y.shape != mapped.shape, f"{name}: JAX's unmapped all_to_all is fixed"
        y = mapped
    cases.append(
        {"name": name, "kind": "unmapped", "inputs": [enc(w)], "outputs": [enc(y)]}
    )


# Nested vmaps: collectives over the outer axis "o" inside the inner vmap over "i".
def nested(x):
    return (
        lax.psum(x, "o")
        - lax.pmean(x, "i")
        + lax.axis_index("o").astype(jnp.float32)
        + 10.0 * lax.axis_index("i").astype(jnp.float32)
        + jnp.sum(lax.all_gather(x, "o", axis=0), axis=0) * 0.5
    )


x = arr((3, N, 2))
y = jax.vmap(jax.vmap(nested, axis_name="i"), axis_name="o")(x)


# And grad inside both: the inner vmap passes the outer axis's psum (and its transpose) through.
def nested_loss(x):
    return jnp.sum(jnp.sin(lax.psum(x, "o") + lax.pmean(x * x, "i")) * x)


g = jax.vmap(jax.vmap(jax.grad(nested_loss), axis_name="i"), axis_name="o")(x)
cases.append(
    {"name": "nested", "kind": "nested", "inputs": [enc(x)], "outputs": [enc(y), enc(g)]}
)



# Collectives over several vmap axes at once (row-major over the axes as listed).
def multi(x):
    f32 = lambda a: a.astype(jnp.float32)
    return (
        lax.psum(x, ("o", "i")),
        lax.pmax(x, ("i", "o")),
        f32(lax.axis_index(("o", "i"))),
        lax.pmean(x, ("o", "i")),
    )


def multi_loss(x):
    return jnp.sum(jnp.sin(lax.psum(x * x, ("o", "i"))) * x)


ys = jax.vmap(jax.vmap(multi, axis_name="i"), axis_name="o")(x)
g = jax.vmap(jax.vmap(jax.grad(multi_loss), axis_name="i"), axis_name="o")(x)
# all_gather over two vmap axes fails inside JAX 0.10.2 ("axis size doesn't match"); the
# expected values are what it means inside a shard_map: every example gets the whole batch,
# row-major over the axes as listed.
for axes in (("o", "i"), ("i", "o")):
    try:
        jax.vmap(jax.vmap(lambda v: lax.all_gather(v, axes, axis=0), axis_name="i"), axis_name="o")(x)
        raise SystemExit("JAX gathers over two vmap axes now; store its result")
    except AssertionError as e:
        assert "axis size" in str(e), e
oi = np.broadcast_to(x.reshape(12, 2), (3, 4, 12, 2))
io_tiled = np.broadcast_to(x.transpose(1, 0, 2).reshape(24), (3, 4, 24))
cases.append(
    {
        "name": "multi",
        "kind": "multi",
        "inputs": [enc(x)],
        "outputs": [enc(y) for y in ys] + [enc(g), enc(oi), enc(io_tiled)],
    }
)

# A shard_map mesh axis "d" (2 devices) and a vmap axis "b" in one collective.
mesh = jax.make_mesh((2,), ("d",), axis_types=(jax.sharding.AxisType.Auto,))


def mixed(x):
    return (
        lax.psum(x, ("d", "b"))
        + 100.0 * lax.axis_index(("d", "b")).astype(jnp.float32)
        + lax.pmean(x, ("b", "d")) * 0.5
    )


xm = arr((2 * 3, 2))
ym = jax.shard_map(
    lambda xb: jax.vmap(mixed, axis_name="b")(xb),
    mesh=mesh,
    in_specs=P("d"),
    out_specs=P("d"),
    # With check_vma, JAX 0.10.2 refuses a psum over ("d", "b") of a value varying over "d"
    # only (the vmap axis has no variance); without it the collective runs over both.
    check_vma=False,
)(xm)
cases.append({"name": "mixed", "kind": "mixed", "inputs": [enc(xm)], "outputs": [enc(ym)]})

# Integer operands: pmax/pmin reduce from the integer range's ends (stored as float32, exact).
xi = rng.randint(-1000, 1000, size=(N, 3)).astype(np.int32)
yi = jax.vmap(lambda v: (lax.pmax(v, "b"), lax.pmin(v, "b"), lax.psum(v, "b")), axis_name="b")(xi)
cases.append(
    {"name": "int32", "kind": "int", "inputs": [enc(xi)], "outputs": [enc(y) for y in yi]}
)

# A collective over the vmap axis inside a cond whose predicate and operand are unmapped.
def in_cond(x, w):
    def branch(w):
        return w + lax.axis_index("b").astype(jnp.float32) + lax.psum(w, "b")

    return x + lax.cond(w > 0, branch, lambda w: w, w)


xc, wc = arr((N, 3)), np.float32(1.5)
yc = jax.vmap(in_cond, in_axes=(0, None), axis_name="b")(xc, wc)
cases.append({"name": "cond", "kind": "cond", "inputs": [enc(xc), enc(wc)], "outputs": [enc(yc)]})

# Gradients through a loop whose body holds a psum over the vmap axis, in both orders.
def loop_loss(x):
    y = lax.fori_loop(0, 3, lambda i, v: jnp.sin(lax.psum(v, "b")) * 0.5, x)
    return jnp.sum(y * x)


xl = arr((N, 3))
vgl = jax.vmap(jax.grad(loop_loss), axis_name="b")(xl)
gvl = jax.grad(lambda x: jax.vmap(loop_loss, axis_name="b")(x).sum())(xl)
np.testing.assert_allclose(vgl, gvl, rtol=1e-5, atol=1e-6)
cases.append({"name": "loop", "kind": "loop", "inputs": [enc(xl)], "outputs": [enc(vgl), enc(gvl)]})

out = os.path.join(
    os.path.dirname(__file__), "..", "crates", "systolic", "tests", "data",
    "vmap_collectives_jax0.10.2.json",
)
with open(out, "w") as fh:
    json.dump({"jax": jax.__version__, "examples": N, "cases": cases}, fh, indent=None)
    fh.write("\n")
print(f"wrote {len(cases)} cases to {os.path.normpath(out)}")
