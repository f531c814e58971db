"""Goldens for crates/systolic/tests/optim_golden.rs: optax's optimizers and schedules.

Run with the JAX venv (JAX 0.10.2, optax 0.2.8):

    /root/.cache/systolic-jax-venv/bin/python scripts/optim_goldens.py

Each optimizer runs a few steps on a small params dict with fixed gradients; the params after
every step are recorded. Params and gradients are small dyadic rationals from integer formulas
(below, and the same in the Rust test), so both sides start from bit-identical inputs without
storing them:

    param[leaf l, flat index i]         = ((5 i + 11 l) % 13 - 6) / 8
    grad[leaf l, flat index i, step t]  = ((7 i + 5 t + 3 l) % 17 - 8) / 4      (t = 1, 2, ...)

Leaves are in sorted key order (JAX flattens dicts by sorted key), l counting from 0.

Written to crates/systolic/tests/data/optim/:
- optax0.2.8.json: per case its name (the test maps it to the same optimizer), the leaf
  shapes, the key paths of optax's state (`jax.tree_util.keystr`, which the test compares with
  the paths of its own state: same named tuples, same fields, same order), and per step the
  params (flat float32 values). Cases on the "big" params (Adafactor with factored second
  moments: both sides of a matrix >= 128) keep their steps in .npy files named in the JSON,
  so that the JSON stays small.
- schedules: each schedule's values at steps 0..N (float32).
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import optax

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic", "tests", "data", "optim")
os.makedirs(OUT, exist_ok=True)

SMALL = {"b": (3,), "s": (), "w": (4, 3)}
BIG = {"b": (5,), "m": (128, 136), "n": (132, 128)}


def params_of(shapes):
    out = {}
    for l, (k, shape) in enumerate(sorted(shapes.items())):
        i = np.arange(int(np.prod(shape)), dtype=np.int64)
        out[k] = jnp.asarray((((5 * i + 11 * l) % 13 - 6) / 8).astype(np.float32).reshape(shape))
    return out


def grads_of(shapes, t):
    out = {}
    for l, (k, shape) in enumerate(sorted(shapes.items())):
        i = np.arange(int(np.prod(shape)), dtype=np.int64)
        out[k] = jnp.asarray((((7 * i + 5 * t + 3 * l) % 17 - 8) / 4).astype(np.float32).reshape(shape))
    return out


def small_mask(p):
    return {k: v.ndim >= 2 for k, v in p.items()}


CASES = [
    # name, params, steps, optimizer
    ("sgd", SMALL, 6, optax.sgd(0.1)),
    ("sgd_momentum", SMALL, 6, optax.sgd(0.1, momentum=0.9)),
    ("sgd_nesterov", SMALL, 6, optax.sgd(0.1, momentum=0.9, nesterov=True)),
    ("sgd_schedule", SMALL, 6, optax.sgd(optax.piecewise_constant_schedule(0.1, {2: 0.5, 4: 0.1}))),
    ("adam", SMALL, 6, optax.adam(1e-2)),
    ("adam_nesterov", SMALL, 6, optax.adam(1e-2, b1=0.8, b2=0.99, nesterov=True)),
    ("adamw_masked", SMALL, 6, optax.adamw(1e-2, weight_decay=0.1, mask=small_mask)),
    (
        "adamw_warmup_cosine",
        SMALL,
        6,
        optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-2, 2, 10, 1e-4), weight_decay=1e-2),
    ),
    ("lion", SMALL, 6, optax.lion(1e-2)),
    ("rmsprop", SMALL, 6, optax.rmsprop(1e-2)),
    ("rmsprop_centered_momentum", SMALL, 6, optax.rmsprop(1e-2, centered=True, momentum=0.9)),
    (
        "rmsprop_bias_corrected",
        SMALL,
        6,
        optax.rmsprop(1e-2, eps_in_sqrt=False, bias_correction=True, initial_scale=0.1),
    ),
    ("clip_adam", SMALL, 6, optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-2))),
    # Every 2 steps for the mean: with 3, some means are exactly 0 on our side but a few ulps off
    # zero under XLA (its division is not exact), and Adam scales that noise up to a full step.
    ("multi_steps_adam", SMALL, 6, optax.MultiSteps(optax.adam(1e-2), every_k_schedule=2).gradient_transformation()),
    (
        "multi_steps_sum_sgd",
        SMALL,
        6,
        optax.MultiSteps(optax.sgd(0.1, momentum=0.5), every_k_schedule=3, use_grad_mean=False).gradient_transformation(),
    ),
    ("adafactor_small", SMALL, 6, optax.adafactor(1e-2)),
    ("adafactor", BIG, 3, optax.adafactor(1e-2)),
    (
        "adafactor_momentum_decay",
        BIG,
        3,
        optax.adafactor(1e-2, momentum=0.9, weight_decay_rate=1e-3, clipping_threshold=None),
    ),
]


def run(name, shapes, steps, opt, big):
    params = params_of(shapes)
    state = opt.init(params)
    paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_flatten_with_path(state)[0]]
    update = jax.jit(opt.update)
    record = []
    for t in range(1, steps + 1):
        grads = grads_of(shapes, t)
        updates, state = update(grads, state, params)
        params = optax.apply_updates(params, updates)
        step = {}
        for k in sorted(params):
            v = np.asarray(params[k], dtype=np.float32)
            if big and v.size > 100:
                fname = f"{name}_step{t}_{k}.npy"
                np.save(os.path.join(OUT, fname), v)
                step[k] = fname
            else:
                step[k] = [float(x) for x in v.reshape(-1)]
        record.append(step)
    return {
        "name": name,
        "shapes": {k: list(s) for k, s in sorted(shapes.items())},
        "state_paths": paths,
        "steps": record,
    }


SCHEDULES = [
    ("constant", optax.constant_schedule(0.3)),
    ("linear", optax.linear_schedule(1.0, 0.1, 50, 10)),
    ("polynomial_2", optax.polynomial_schedule(1.0, 0.0, 2, 80, 5)),
    # 64 steps, not 80: XLA divides by a constant as a multiplication by its reciprocal, so
    # 1 - 80/80 is -1.5e-8 there and its square root NaN; 1/64 is exact.
    ("polynomial_half", optax.polynomial_schedule(1.0, 0.2, 0.5, 64)),
    ("cosine_decay", optax.cosine_decay_schedule(1.0, 100, alpha=0.1)),
    ("cosine_decay_exp2", optax.cosine_decay_schedule(0.5, 90, exponent=2.0)),
    ("warmup_cosine_decay", optax.warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100, 1e-5)),
    ("piecewise_constant", optax.piecewise_constant_schedule(0.1, {20: 0.5, 50: 0.1, 80: 2.0})),
    (
        "join",
        optax.join_schedules([optax.constant_schedule(1.0), optax.linear_schedule(1.0, 0.0, 30)], [40]),
    ),
    ("exponential_decay", optax.exponential_decay(1.0, 10, 0.5, transition_begin=5)),
    ("exponential_decay_staircase", optax.exponential_decay(2.0, 7, 0.8, staircase=True, end_value=0.7)),
]
SCHEDULE_STEPS = 121


def main():
    # Only the steps of the big cases that the test reads are kept (the first and the last),
    # so the golden set stays well under 1 MB.
    cases = []
    for name, shapes, steps, opt in CASES:
        big = shapes is BIG
        cases.append(run(name, shapes, steps, opt, big))
    for case in cases:
        if case["name"].startswith("adafactor") and case["shapes"] == {k: list(s) for k, s in BIG.items()}:
            keep = {1, len(case["steps"])}
            for t, step in enumerate(case["steps"], start=1):
                if t not in keep:
                    for k, v in list(step.items()):
                        if isinstance(v, str):
                            os.remove(os.path.join(OUT, v))
                            step[k] = None
    # Each schedule is evaluated as an optimizer does: one scalar count at a time, jitted.
    # (XLA's CPU code for the vmapped schedule differs in the last bit at some steps, e.g. the
    # linear one: its vector code contracts the multiply-add.)
    schedules = {
        name: [float(np.float32(jax.jit(s)(jnp.int32(c)))) for c in range(SCHEDULE_STEPS)]
        for name, s in SCHEDULES
    }
    out = {
        "jax": jax.__version__,
        "optax": optax.__version__,
        "cases": cases,
        "schedules": schedules,
    }
    with open(os.path.join(OUT, "optax0.2.8.json"), "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
    print("wrote", len(cases), "cases and", len(schedules), "schedules to", OUT)


def bench():
    """The step of optim_golden.rs's `adamw_step_time`, timed with optax."""
    import time

    shapes = {}
    for l in range(4):
        shapes[f"b{l}"] = (512,)
        shapes[f"w{l}"] = (512, 512)
    opt = optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-3, 10, 1000, 1e-5))

    @jax.jit
    def step(p, s, g):
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s

    params, grads = params_of(shapes), grads_of(shapes, 1)
    state = opt.init(params)
    t0 = time.perf_counter()
    params, state = step(params, state, grads)
    jax.block_until_ready(params)
    first = time.perf_counter() - t0
    n = 50
    t1 = time.perf_counter()
    for _ in range(n):
        params, state = step(params, state, grads)
    jax.block_until_ready(params)
    per = (time.perf_counter() - t1) / n
    print(f"optax adamw step, 1.05M params: first call {first * 1e3:.1f} ms, then {per * 1e3:.3f} ms per step")


if __name__ == "__main__":
    import sys

    bench() if "--bench" in sys.argv else main()
