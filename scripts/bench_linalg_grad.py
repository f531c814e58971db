"""JAX's side of crates/systolic/examples/linalg_grad_bench.rs: steady-state time of
jit(grad(loss)) through eigh, svd, solve and slogdet on the same 128×128 float64 matrix, and
the Hessian-vector products jvp(grad(loss)) along a direction of ones (`*_hvp`).

Run: /root/.cache/systolic-jax-venv/bin/python scripts/bench_linalg_grad.py
"""
import time

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
import numpy as np

n = 128
i, j = np.divmod(np.arange(n * n), n)
a = ((i * 7 + j * 13) % 17) / 17.0 - 0.5 + np.where(i == j, n, 0.0)
a = jnp.asarray(a.reshape(n, n), jnp.float64)


def eigh_loss(a):
    w, v = jnp.linalg.eigh(a)
    return jnp.sum(w * w) + jnp.sum(v * v)


cases = {
    "eigh": eigh_loss,
    "svd": lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)),
    "solve": lambda a: jnp.sum(jnp.linalg.solve(a, jnp.ones((n,), a.dtype))),
    "slogdet": lambda a: jnp.linalg.slogdet(a)[1],
}
d = jnp.ones((n, n), jnp.float64)


def hvp(f):
    return lambda a: jax.jvp(jax.grad(f), (a,), (d,))[1]


programs = {name: jax.jit(jax.grad(f)) for name, f in cases.items()}
programs.update({f"{name}_hvp": jax.jit(hvp(f)) for name, f in cases.items()})
for name, g in programs.items():
    t0 = time.perf_counter()
    g(a).block_until_ready()
    first = time.perf_counter() - t0
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        g(a).block_until_ready()
    step = (time.perf_counter() - t0) / reps
    print(f"{name:12} compile+first {first * 1e3:8.2f} ms   step {step * 1e3:8.3f} ms")
