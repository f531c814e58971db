"""Runs the tour's training stage in JAX and records its numbers.

The program is the one `crates/systolic-cli/src/tour/training.rs` runs with the Rust front end,
op for op: a synthetic classification data set drawn from PRNGKey(0), an MLP initialised from
the same key, `jit(value_and_grad)` SGD over fixed mini-batches, then per-example gradient norms
with `vmap(grad)`. The losses at every printed step, the final full-data loss and accuracy, and
the per-example gradient norms go to crates/systolic-cli/tests/data/tour_training.json, which
the tour embeds and compares against. Deterministic; run from the repository root:

    /root/.cache/systolic-jax-venv/bin/python scripts/export_tour_training.py
"""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np

assert jax.config.jax_threefry_partitionable
assert not jax.config.jax_enable_x64

# Keep these in step with the constants of training.rs (the JSON records them and the tour
# checks that they agree).
SIZES = [8, 64, 64, 4]  # features, hidden, hidden, classes
EXAMPLES = 512
BATCH = 64
STEPS = 120
LR = 0.1
PRINT_EVERY = 10
CENTER_SCALE = 0.6
PER_EXAMPLE = 16

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "crates",
    "systolic-cli",
    "tests",
    "data",
    "tour_training.json",
)


def make_data(key):
    """Gaussian blobs: a random centre per class, a random label per example, unit noise."""
    k_centers, k_labels, k_noise = jax.random.split(key, 3)
    features, classes = SIZES[0], SIZES[-1]
    centers = jax.random.normal(k_centers, (classes, features)) * CENTER_SCALE
    labels = jax.random.randint(k_labels, (EXAMPLES,), 0, classes)
    x = jnp.take(centers, labels, axis=0) + jax.random.normal(k_noise, (EXAMPLES, features))
    return x, labels


def init_mlp(key):
    """He-normal weights (normal * sqrt(2 / fan_in)) and zero biases, one key per layer."""
    keys = jax.random.split(key, len(SIZES) - 1)
    return [
        {"w": jax.random.normal(k, (m, n)) * float(np.sqrt(2.0 / m)), "b": jnp.zeros((n,))}
        for k, m, n in zip(keys, SIZES[:-1], SIZES[1:])
    ]


def logits_of(params, x):
    h = x
    for layer in params[:-1]:
        h = jax.nn.relu(h @ layer["w"] + layer["b"])
    return h @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    """Mean softmax cross-entropy."""
    ll = jax.nn.log_softmax(logits_of(params, x), axis=-1) * jax.nn.one_hot(y, SIZES[-1])
    return -jnp.mean(jnp.sum(ll, axis=-1))


@jax.jit
def train_step(params, x, y):
    loss, g = jax.value_and_grad(loss_fn)(params, x, y)
    return loss, jax.tree.map(lambda p, d: p - LR * d, params, g)


@jax.jit
def evaluate(params, x, y):
    logits = logits_of(params, x)
    ll = jax.nn.log_softmax(logits, axis=-1) * jax.nn.one_hot(y, SIZES[-1])
    loss = -jnp.mean(jnp.sum(ll, axis=-1))
    correct = jnp.sum((jnp.argmax(logits, axis=-1) == y).astype(jnp.int32))
    return loss, correct


@jax.jit
def per_example_grad_norms(params, x, y):
    def one(params, x, y):
        return loss_fn(params, x[None], y[None])

    g = jax.vmap(jax.grad(one), in_axes=(None, 0, 0))(params, x, y)
    sq = sum(jnp.sum(leaf * leaf, axis=tuple(range(1, leaf.ndim))) for leaf in jax.tree.leaves(g))
    return jnp.sqrt(sq)


def main():
    key = jax.random.PRNGKey(0)
    k_data, k_init = jax.random.split(key)
    x, y = make_data(k_data)
    params = init_mlp(k_init)
    batches = EXAMPLES // BATCH
    xs = [x[i * BATCH : (i + 1) * BATCH] for i in range(batches)]
    ys = [y[i * BATCH : (i + 1) * BATCH] for i in range(batches)]

    norms = per_example_grad_norms(params, x[:PER_EXAMPLE], y[:PER_EXAMPLE])
    init_loss, init_correct = evaluate(params, x, y)

    losses = []
    for step in range(STEPS):
        i = step % batches
        loss, params = train_step(params, xs[i], ys[i])
        if step % PRINT_EVERY == 0 or step == STEPS - 1:
            losses.append({"step": step, "loss": float(loss)})
    final_loss, final_correct = evaluate(params, x, y)

    record = {
        "what": "scripts/export_tour_training.py: the tour's training stage run in JAX",
        "jax_version": jax.__version__,
        "config": {
            "sizes": SIZES,
            "examples": EXAMPLES,
            "batch": BATCH,
            "steps": STEPS,
            "lr": LR,
            "print_every": PRINT_EVERY,
            "center_scale": CENTER_SCALE,
            "per_example": PER_EXAMPLE,
        },
        "data_checksum": {
            "x_sum": float(jnp.sum(x)),
            "label_counts": [int(c) for c in np.bincount(np.asarray(y), minlength=SIZES[-1])],
        },
        "initial": {"loss": float(init_loss), "correct": int(init_correct)},
        "losses": losses,
        "final": {"loss": float(final_loss), "correct": int(final_correct)},
        "per_example_grad_norms": [float(v) for v in np.asarray(norms)],
    }
    with open(OUT, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(json.dumps(record["losses"]))
    print("final", record["final"], "norms", record["per_example_grad_norms"][:4])
    print("wrote", os.path.relpath(OUT))


if __name__ == "__main__":
    main()
