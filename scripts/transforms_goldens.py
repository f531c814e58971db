"""Goldens for the transformation tests of issue 18 (crates/systolic/tests/transforms_*.rs):
jacfwd, jacrev, hessian and linearize of a few functions, computed by JAX.

Run with the JAX venv: /root/.cache/systolic-jax-venv/bin/python scripts/transforms_goldens.py
Writes crates/systolic/tests/data/transforms_jax0.10.2.json: {case: {name: {shape, data}}}.
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic", "tests", "data",
                   f"transforms_jax{jax.__version__}.json")


def arr(x):
    x = np.asarray(x)
    return {"shape": list(x.shape), "dtype": str(x.dtype),
            "data": [float(v) for v in x.reshape(-1)]}


x3 = jnp.array([0.3, -1.2, 0.8], jnp.float32)
t3 = jnp.array([1.0, 0.5, -2.0], jnp.float32)
w = jnp.array([[0.1, -0.4, 0.7], [1.1, 0.2, -0.3]], jnp.float32)
b = jnp.array([0.05, -0.5], jnp.float32)
xin = jnp.array([1.0, 2.0, -1.0], jnp.float32)
a2 = jnp.array([0.7, -1.3], jnp.float32)
s = jnp.float32(1.5)


def vec_fn(x):
    # R^3 -> R^2
    return jnp.stack([jnp.sum(jnp.sin(x) * x), x[0] * jnp.exp(x[1]) + jnp.tanh(x[2])])


def layer(p):
    # {w: [2,3], b: [2]} -> [2]
    return jnp.tanh(p["w"] @ xin + p["b"])


def softplus_sq(x):
    # R^3 -> R
    return jnp.sum(jnp.log1p(jnp.exp(x)) * x ** 2)


def pair(ab):
    a, c = ab
    return jnp.sum(a ** 2 * c) + c ** 3 * jnp.sum(jnp.cos(a))


def two_out(x):
    return (x * x, jnp.sum(jnp.exp(x)))


out = {}
out["vec_fn"] = {"x": arr(x3), "jacfwd": arr(jax.jacfwd(vec_fn)(x3)),
                 "jacrev": arr(jax.jacrev(vec_fn)(x3))}
y, f_jvp = jax.linearize(vec_fn, x3)
out["vec_fn"]["linearize_y"] = arr(y)
out["vec_fn"]["linearize_t"] = arr(t3)
out["vec_fn"]["linearize_dy"] = arr(f_jvp(t3))
p = {"w": w, "b": b}
jf, jr = jax.jacfwd(layer)(p), jax.jacrev(layer)(p)
out["layer"] = {"w": arr(w), "b": arr(b), "xin": arr(xin),
                "jacfwd_w": arr(jf["w"]), "jacfwd_b": arr(jf["b"]),
                "jacrev_w": arr(jr["w"]), "jacrev_b": arr(jr["b"])}
out["softplus_sq"] = {"x": arr(x3), "hessian": arr(jax.hessian(softplus_sq)(x3)),
                      "grad": arr(jax.grad(softplus_sq)(x3))}
h = jax.hessian(pair)((a2, s))
out["pair"] = {"a": arr(a2), "c": arr(s),
               "h00": arr(h[0][0]), "h01": arr(h[0][1]),
               "h10": arr(h[1][0]), "h11": arr(h[1][1])}
j2 = jax.jacrev(two_out)(x3)
out["two_out"] = {"x": arr(x3), "j0": arr(j2[0]), "j1": arr(j2[1])}

with open(OUT, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", OUT)
