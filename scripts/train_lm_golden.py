"""The language model of crates/systolic/examples/shared/gpt.rs in flax and optax: its first
training losses, the golden of crates/systolic/tests/train_lm.rs.

Run with the JAX venv (JAX 0.10.2, flax 0.12.8, optax 0.2.8):
    /root/.cache/systolic-jax-venv/bin/python scripts/train_lm_golden.py          # the golden
    /root/.cache/systolic-jax-venv/bin/python scripts/train_lm_golden.py --bench  # JAX's step time

It mirrors the Rust model op for op: the same text and vocabulary (the sorted distinct characters
of data/kjv_genesis_exodus.txt), the same parameter tree (flax's leaf names, in the Rust tree's
order), every leaf drawn from `split(PRNGKey(seed), leaves)[i]` by GPT-2's rule (normal(0.02),
the residual projections normal(0.02 / sqrt(2 layers)), zero biases, unit LayerNorm scales),
the same batches (`randint(fold_in(PRNGKey(seed + 1), step), (batch,), 0, len - context)`
window starts in the first 90% of the text), and optax's clip_by_global_norm(1) then AdamW
(b2 0.95, weight decay 0.1 on matrices) with warmup-cosine decay.

Writes crates/systolic/tests/data/train_lm/golden.json: the configuration, the leaf paths and
shapes, the first batches' window starts, and the first STEPS losses with f32 and with bf16
compute.
"""

import json
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
import optax

ROOT = os.path.join(os.path.dirname(__file__), "..")
OUT = os.path.join(ROOT, "crates", "systolic", "tests", "data", "train_lm")
STEPS = 10


def corpus():
    text = open(os.path.join(ROOT, "data", "kjv_genesis_exodus.txt"), encoding="utf-8").read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    ids = np.array([index[c] for c in text], dtype=np.int32)
    return chars, ids


def tiny(vocab):
    return dict(vocab=vocab, d_model=64, heads=4, layers=2, context=32, batch=8)


def standard(vocab):
    return dict(vocab=vocab, d_model=256, heads=8, layers=4, context=128, batch=32)


def leaf_specs(cfg):
    """(path, shape) in the Rust tree's order (`tree::flatten_with_path` of gpt::Params)."""
    d, h, v, t = cfg["d_model"], cfg["heads"], cfg["vocab"], cfg["context"]
    specs = [(".wte.embedding", (v, d)), (".wpe", (t, d))]
    for i in range(cfg["layers"]):
        b = f".blocks[{i}]"
        specs += [(f"{b}.ln1.scale", (d,)), (f"{b}.ln1.bias", (d,))]
        for proj in ("query", "key", "value"):
            specs += [(f"{b}.attn.{proj}.kernel", (d, h, d // h)), (f"{b}.attn.{proj}.bias", (h, d // h))]
        specs += [(f"{b}.attn.out.kernel", (h, d // h, d)), (f"{b}.attn.out.bias", (d,))]
        specs += [(f"{b}.ln2.scale", (d,)), (f"{b}.ln2.bias", (d,))]
        specs += [(f"{b}.fc.kernel", (d, 4 * d)), (f"{b}.fc.bias", (4 * d,))]
        specs += [(f"{b}.proj.kernel", (4 * d, d)), (f"{b}.proj.bias", (d,))]
    specs += [(".ln_f.scale", (d,)), (".ln_f.bias", (d,))]
    return specs


def leaf_init(path, layers):
    I = jax.nn.initializers
    if path.endswith(".scale"):
        return I.ones
    if path.endswith(".bias"):
        return I.zeros
    if ".proj." in path or ".attn.out." in path:
        return I.normal(0.02 / np.sqrt(2.0 * layers))
    return I.normal(0.02)


def init(cfg, seed):
    specs = leaf_specs(cfg)
    keys = jax.random.split(jax.random.PRNGKey(seed), len(specs))
    flat = {p: leaf_init(p, cfg["layers"])(k, s, jnp.float32) for (p, s), k in zip(specs, keys)}
    ln = lambda pre: {"scale": flat[pre + ".scale"], "bias": flat[pre + ".bias"]}
    dense = lambda pre: {"kernel": flat[pre + ".kernel"], "bias": flat[pre + ".bias"]}
    blocks = []
    for i in range(cfg["layers"]):
        b = f".blocks[{i}]"
        blocks.append({
            "ln1": ln(b + ".ln1"),
            "attn": {p: dense(f"{b}.attn.{p}") for p in ("query", "key", "value", "out")},
            "ln2": ln(b + ".ln2"),
            "fc": dense(b + ".fc"),
            "proj": dense(b + ".proj"),
        })
    return {
        "wte": {"embedding": flat[".wte.embedding"]},
        "wpe": flat[".wpe"],
        "blocks": blocks,
        "ln_f": ln(".ln_f"),
    }, specs


def logits(p, ids, cfg, compute):
    v, d = cfg["vocab"], cfg["d_model"]
    embed = nn.Embed(v, d, dtype=compute)
    norm = nn.LayerNorm(epsilon=1e-5, dtype=compute)
    attn = nn.MultiHeadDotProductAttention(num_heads=cfg["heads"], dtype=compute, deterministic=True)
    fc = nn.Dense(4 * d, dtype=compute)
    proj = nn.Dense(d, dtype=compute)
    t = ids.shape[-1]
    x = embed.apply({"params": p["wte"]}, ids) + p["wpe"][:t].astype(compute)
    mask = nn.make_causal_mask(ids)
    for b in p["blocks"]:
        h = norm.apply({"params": b["ln1"]}, x)
        x = x + attn.apply({"params": b["attn"]}, h, h, mask=mask)
        h = norm.apply({"params": b["ln2"]}, x)
        h = jax.nn.gelu(fc.apply({"params": b["fc"]}, h), approximate=True)
        x = x + proj.apply({"params": b["proj"]}, h)
    x = norm.apply({"params": p["ln_f"]}, x)
    return embed.apply({"params": p["wte"]}, x, method="attend").astype(jnp.float32)


def loss(p, x, y, cfg, compute):
    logp = jax.nn.log_softmax(logits(p, x, cfg, compute), -1)
    return -jnp.mean(jnp.take_along_axis(logp, y[..., None], -1))


def optimizer(peak_lr, warmup, steps):
    lr = optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup, steps, peak_lr / 10.0)
    decay_mask = lambda params: jax.tree.map(lambda a: a.ndim >= 2, params)
    return optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adamw(lr, b1=0.9, b2=0.95, eps=1e-8, weight_decay=0.1, mask=decay_mask),
    )


def batch_starts(cfg, seed, step, n):
    key = jax.random.fold_in(jax.random.PRNGKey(seed + 1), step)
    return np.asarray(jax.random.randint(key, (cfg["batch"],), 0, n - cfg["context"], jnp.int32))


def batch(cfg, data, starts):
    t = cfg["context"]
    x = np.stack([data[s:s + t] for s in starts])
    y = np.stack([data[s + 1:s + t + 1] for s in starts])
    return jnp.asarray(x), jnp.asarray(y)


def make_step(cfg, opt, compute):
    @jax.jit
    def step(params, opt_state, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y, cfg, compute)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value
    return step


def train(cfg, train_ids, compute, seed, peak_lr, warmup, total, steps):
    params, _ = init(cfg, seed)
    opt = optimizer(peak_lr, warmup, total)
    opt_state = opt.init(params)
    step = make_step(cfg, opt, compute)
    losses = []
    for i in range(steps):
        x, y = batch(cfg, train_ids, batch_starts(cfg, seed, i, len(train_ids)))
        params, opt_state, value = step(params, opt_state, x, y)
        losses.append(float(value))
    return losses


def bench():
    """JAX's step time on the example's default model (standard, batch 32), f32 and bf16."""
    chars, ids = corpus()
    cfg = standard(len(chars))
    train_ids = ids[: len(ids) * 9 // 10]
    for compute in (jnp.float32, jnp.bfloat16):
        params, _ = init(cfg, 0)
        opt = optimizer(2e-3, 100, 1500)
        opt_state = opt.init(params)
        step = make_step(cfg, opt, compute)
        x, y = batch(cfg, train_ids, batch_starts(cfg, 0, 0, len(train_ids)))
        t0 = time.perf_counter()
        params, opt_state, v = step(params, opt_state, x, y)
        v.block_until_ready()
        first = time.perf_counter() - t0
        times = []
        for _ in range(10):
            t0 = time.perf_counter()
            params, opt_state, v = step(params, opt_state, x, y)
            v.block_until_ready()
            times.append(time.perf_counter() - t0)
        print(f"JAX {jax.__version__} {jnp.dtype(compute).name}: compile + first {first * 1e3:.0f} ms, "
              f"median step {sorted(times)[5] * 1e3:.1f} ms")


def main():
    if "--bench" in sys.argv:
        bench()
        return
    chars, ids = corpus()
    cfg = tiny(len(chars))
    train_ids = ids[: len(ids) * 9 // 10]
    seed, peak_lr, warmup, total = 0, 3e-3, 3, 100
    _, specs = init(cfg, seed)
    golden = {
        "jax": jax.__version__,
        "config": cfg,
        "seed": seed,
        "peak_lr": peak_lr,
        "warmup": warmup,
        "total_steps": total,
        "vocab_chars": len(chars),
        "leaves": [[p, list(s)] for p, s in specs],
        "batch_starts": [batch_starts(cfg, seed, i, len(train_ids)).tolist() for i in range(3)],
        "losses_f32": train(cfg, train_ids, jnp.float32, seed, peak_lr, warmup, total, STEPS),
        "losses_bf16": train(cfg, train_ids, jnp.bfloat16, seed, peak_lr, warmup, total, STEPS),
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
    print(json.dumps({k: golden[k] for k in ("losses_f32", "losses_bf16")}, indent=1))


if __name__ == "__main__":
    main()
