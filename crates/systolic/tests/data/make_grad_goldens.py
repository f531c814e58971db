"""JAX values for the front end's grad tests (crates/systolic/tests/grad.rs): an MLP trained
with value_and_grad + SGD, grad of grad, jvp, vjp, has_aux and checkpoint. Inputs are
generated here and stored, so the test does not depend on the PRNG.
Run: /root/.cache/systolic-jax-venv/bin/python make_grad_goldens.py"""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(1)


def arr(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def normal(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


out = {}

# ---- MLP: value_and_grad + SGD (the porting_mlp model, small)
sizes = [(16, 32), (32, 32), (32, 10)]
params = [(normal(m, n, scale=0.3), normal(n, scale=0.1)) for m, n in sizes]
x = normal(8, 16)
labels = np.arange(8, dtype=np.int32) % 10


def forward(params, x):
    h = x
    for w, b in params[:-1]:
        h = jax.nn.relu(h @ w + b)
    w, b = params[-1]
    return h @ w + b


def loss(params, x, labels):
    logits = forward(params, x)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits, axis=-1) * jax.nn.one_hot(labels, 10), -1))


out["mlp"] = {
    "params": [[arr(w), arr(b)] for w, b in params],
    "x": arr(x),
    "labels": arr(labels),
    "lr": 0.5,
}
l0, g0 = jax.value_and_grad(loss)(params, x, labels)
out["mlp"]["loss0"] = float(l0)
out["mlp"]["grads0"] = [[arr(gw), arr(gb)] for gw, gb in g0]
step = jax.jit(
    lambda p, x, y: jax.tree.map(lambda a, g: a - 0.5 * g, p, jax.grad(loss)(p, x, y))
)
p = params
losses = []
for _ in range(3):
    losses.append(float(loss(p, x, labels)))
    p = step(p, x, labels)
out["mlp"]["losses"] = losses
out["mlp"]["final"] = [[arr(w), arr(b)] for w, b in p]

# ---- grad of grad
f = lambda x: jnp.sin(x) * x**3
out["d2"] = {"x": 0.7, "d1": float(jax.grad(f)(np.float32(0.7))), "d2": float(jax.grad(jax.grad(f))(np.float32(0.7)))}

# ---- jvp / vjp
gx, gy = normal(3, 4), normal(4)
g = lambda x, y: (jnp.tanh(x @ y), jnp.sum(x * x))
tx, ty = normal(3, 4), normal(4)
(p1, p2), (t1, t2) = jax.jvp(g, (gx, gy), (tx, ty))
_, pull = jax.vjp(g, gx, gy)
c1, c2 = normal(3), np.float32(1.5)
vx, vy = pull((c1, c2))
out["jvp_vjp"] = {
    "x": arr(gx), "y": arr(gy), "tx": arr(tx), "ty": arr(ty),
    "out1": arr(p1), "out2": arr(p2), "t1": arr(t1), "t2": arr(t2),
    "c1": arr(c1), "c2": float(c2), "vx": arr(vx), "vy": arr(vy),
}

# ---- has_aux and checkpoint
w = normal(4, 4, scale=0.5)
h = lambda x: (jnp.sum(jnp.tanh(x @ w) ** 2), jnp.tanh(x @ w))
(v, aux), ga = jax.value_and_grad(h, has_aux=True)(gx)
block = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x @ w)))
gc = jax.grad(lambda x: jnp.sum(block(block(x)) ** 2))(gx)
out["aux_remat"] = {"w": arr(w), "x": arr(gx), "value": float(v), "aux": arr(aux), "grad": arr(ga), "remat_grad": arr(gc)}

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_jax0.10.2.json")
with open(path, "w") as fh:
    json.dump(out, fh)
print("wrote", path)
