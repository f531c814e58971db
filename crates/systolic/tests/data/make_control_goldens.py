"""Goldens for tests/control_flow.rs: jax.lax control flow (while_loop, fori_loop, scan, cond,
switch), grads through them and vmap of cond. Inputs are generated here and stored with the
outputs. Run with /root/.cache/systolic-jax-venv/bin/python; writes control_jax<version>.json."""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

out = {"jax_version": jax.__version__}


def f32(a):
    return np.asarray(a, dtype=np.float32).ravel().tolist()


def i32(a):
    return np.asarray(a, dtype=np.int32).ravel().tolist()


# Newton iteration for sqrt(a), until converged; also counts steps.
a = np.float32(10.0)


def newton(a):
    def c(s):
        x, n = s
        return (jnp.abs(x * x - a) > 1e-4) & (n < 50)

    def b(s):
        x, n = s
        return (0.5 * (x + a / x), n + 1)

    return lax.while_loop(c, b, (jnp.float32(1.0), jnp.int32(0)))


x, n = newton(a)
out["newton"] = {"a": float(a), "x": f32(x), "n": i32(n)}


# Collatz: steps from 27 to 1.
def collatz(n0):
    def c(s):
        return s[0] != 1

    def b(s):
        n, k = s
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        return (n, k + 1)

    return lax.while_loop(c, b, (n0, jnp.int32(0)))


out["collatz"] = {"n0": 27, "steps": i32(collatz(jnp.int32(27))[1])}

# fori_loop sum: sum_{i=2}^{9} i * x + i*i
xv = np.array([0.5, -1.25, 2.0], np.float32)


def fori_sum(x):
    return lax.fori_loop(2, 10, lambda i, acc: acc + i * x + i * i, jnp.zeros(3, jnp.float32))


out["fori_sum"] = {"x": f32(xv), "out": f32(fori_sum(xv))}
# grad through fori_loop: repeated sin(y) * x, 4 times.


def fori_loss(x):
    return jnp.sum(lax.fori_loop(0, 4, lambda i, y: jnp.sin(y) * x + 0.1 * i, x))


out["fori_grad"] = {"x": f32(xv), "loss": f32(fori_loss(xv)), "grad": f32(jax.grad(fori_loss)(xv))}

# scan cumulative ops
xs = np.array([1.5, -2.0, 0.25, 3.0, -0.5, 2.0], np.float32)
(s, p), (cs, cp) = lax.scan(lambda c, x: ((c[0] + x, c[1] * x), (c[0] + x, c[1] * x)),
                            (jnp.float32(0), jnp.float32(1)), xs)
rs, rcs = lax.scan(lambda c, x: (c + x, c + x), jnp.float32(0), xs, reverse=True)
out["scan_cum"] = {"xs": f32(xs), "sum": f32(s), "prod": f32(p), "cumsum": f32(cs),
                   "cumprod": f32(cp), "rev_cumsum": f32(rcs)}

# RNN-style scan
rng = np.random.RandomState(0)
W = (rng.randn(3, 3) * 0.5).astype(np.float32)
U = (rng.randn(3, 2) * 0.5).astype(np.float32)
bias = (rng.randn(3) * 0.1).astype(np.float32)
seq = rng.randn(5, 2).astype(np.float32)
h0 = np.zeros(3, np.float32)


def rnn(W, U, bias, seq):
    def step(h, x):
        h = jnp.tanh(W @ h + U @ x + bias)
        return h, (h, jnp.sum(h))
    return lax.scan(step, jnp.asarray(h0), seq)


hT, (hs, sums) = rnn(W, U, bias, seq)


def rnn_loss(W, U, bias, seq):
    hT, (hs, sums) = rnn(W, U, bias, seq)
    return jnp.sum(hs ** 2) + jnp.sum(sums)


gW, gU, gb = jax.grad(rnn_loss, argnums=(0, 1, 2))(W, U, bias, seq)
out["rnn"] = {"W": f32(W), "U": f32(U), "b": f32(bias), "seq": f32(seq), "hT": f32(hT),
              "hs": f32(hs), "sums": f32(sums), "loss": f32(rnn_loss(W, U, bias, seq)),
              "gW": f32(gW), "gU": f32(gU), "gb": f32(gb)}

# cond
cx = np.array([1.0, 2.0, 3.0], np.float32)


def cond_f(x, t):
    return lax.cond(jnp.sum(x) > t, lambda x: jnp.sin(x) * 2.0, lambda x: x * x - 1.0, x)


out["cond"] = {"x": f32(cx)}
for name, t in (("true", 5.0), ("false", 7.0)):
    out["cond"][name] = {
        "t": t,
        "out": f32(cond_f(cx, t)),
        "grad": f32(jax.grad(lambda x: jnp.sum(cond_f(x, t)))(cx)),
    }

# switch with out-of-range indices
branches = [lambda x: x + 1.0, lambda x: x * 10.0, lambda x: -x]
out["switch"] = {"x": f32(cx), "cases": [
    {"index": i, "out": f32(lax.switch(i, branches, cx))} for i in (-4, 0, 1, 2, 9)]}

# vmap of cond over the predicate's batch
vx = np.array([-2.0, -0.5, 0.0, 1.5, 3.0], np.float32)
vmapped = jax.vmap(lambda x: lax.cond(x > 0, lambda x: x * x, lambda x: -3.0 * x, x))(vx)
out["vmap_cond"] = {"x": f32(vx), "out": f32(vmapped)}

path = os.path.join(os.path.dirname(__file__), f"control_jax{jax.__version__}.json")
with open(path, "w") as fh:
    json.dump(out, fh, indent=1)
print("wrote", path)
