"""Goldens for `debug::print!`: the exact lines `jax.debug.print` writes under eager execution,
jit, vmap, grad, fori_loop and their compositions (order, count and formatting).

Every print is `ordered=True`: Systolic's prints always run in program order, and JAX's
unordered ones may not (XLA reorders them: a jitted vmap printed its examples 0, 2, 1).

Writes crates/systolic/tests/data/debug_print/lines.json: for each case its name and the lines
printed (each callback's message, which may hold newlines for arrays of rank 2 or more), in
the order they were printed. The programs are mirrored one for one in
crates/systolic/tests/debug_print.rs. Run with the JAX venv:
`/root/.cache/systolic-jax-venv/bin/python scripts/debug_print_golden.py`.
"""
import contextlib
import io
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

cases = []


def record(name, run):
    """Runs `run`, waits for every callback, and records the lines it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = run()
        jax.block_until_ready(out)
        jax.effects_barrier()
    text = buf.getvalue()
    assert text.endswith("\n") or text == "", text
    cases.append({"name": name, "text": text, "jax": jax.__version__})


x3 = jnp.array([0.5, -1.0, 2.0], jnp.float32)
x32 = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], jnp.float32)


def prints_twice(x):
    y = jnp.sin(x) * 2.0
    jax.debug.print("y = {y}", y=y, ordered=True)
    jax.debug.print("sum {} of {}", jnp.sum(y), x, ordered=True)
    return y


record("eager", lambda: prints_twice(x3))
record("jit", lambda: jax.jit(prints_twice)(x3))
# A second call of the compiled function prints again.
record("jit_twice", lambda: [jax.jit(prints_twice)(x3), jax.jit(prints_twice)(x3 + 1.0)])


def row(x):
    jax.debug.print("row {} doubled {}", x, x * 2.0, ordered=True)
    return jnp.sum(x)


record("vmap", lambda: jax.vmap(row)(x32))
record("jit_vmap", lambda: jax.jit(jax.vmap(row))(x32))


def scaled(x, s):
    jax.debug.print("x={x} s={s}", x=x, s=s, ordered=True)
    return x * s


record("vmap_unbatched", lambda: jax.vmap(scaled, in_axes=(0, None))(x3, jnp.float32(3.0)))


def loss(w):
    jax.debug.print("w = {}", w, ordered=True)
    l = jnp.sum(jnp.tanh(w) ** 2)
    jax.debug.print("loss = {}", l, ordered=True)
    return l


record("grad", lambda: jax.grad(loss)(x3))
record("jit_grad", lambda: jax.jit(jax.grad(loss))(x3))
record("value_and_grad", lambda: jax.value_and_grad(loss)(x3))
record("vmap_grad", lambda: jax.vmap(jax.grad(loss))(x32))


def looped(x):
    def body(i, c):
        jax.debug.print("i = {i}, c = {c}", i=i, c=c, ordered=True)
        return c * 2.0 + 1.0

    return jax.lax.fori_loop(0, 3, body, x)


record("fori_loop", lambda: jax.jit(looped)(x3))
record("fori_loop_eager", lambda: looped(x3))
record("grad_fori_loop", lambda: jax.jit(jax.grad(lambda x: jnp.sum(looped(x))))(x3))
record("vmap_fori_loop", lambda: jax.jit(jax.vmap(looped))(x32))


def kinds(x):
    jax.debug.print("ints {} bools {}", jnp.arange(6, dtype=jnp.int32).reshape(2, 3), x > 0, ordered=True)
    jax.debug.print("matrix\n{}", x32 / 3.0, ordered=True)
    # 0-d values format as Python numbers (str.format calls ndarray.__format__, which formats
    # x.item()): an f32 prints as the float64 it widens to.
    jax.debug.print("scalars {} {} {} {}", jnp.float32(0.1), jnp.sum(x) * 1e-6, jnp.int32(-3), x[0] > 0, ordered=True)
    return x


record("kinds", lambda: jax.jit(kinds)(x3))

path = pathlib.Path(__file__).resolve().parent.parent / "crates/systolic/tests/data/debug_print/lines.json"
path.parent.mkdir(parents=True, exist_ok=True)
path.write_text(json.dumps(cases, indent=1) + "\n")
print(f"wrote {len(cases)} cases to {path}")
