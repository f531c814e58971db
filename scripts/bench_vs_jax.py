#!/usr/bin/env python3
"""Systolic's CPU backend against JAX on this machine, on the same programs, in one run.

For each program: build it in JAX, export its StableHLO text (`jax.jit(f).lower(*args)
.as_text()`) and its inputs (.npy) to a temporary directory, time JAX (compile + first run;
steady-state median after warm-up), run `target/release/systolic run --backend cpu --repeat N
--json` on the same files, check that the outputs agree, and print one table.

    PY=/root/.cache/systolic-jax-venv/bin/python
    cargo build --release -p systolic-cli
    $PY scripts/bench_vs_jax.py [--quick] [--only NAME[,NAME…]] [--markdown] [--rounds N] [--readme README.md]

Timing is the same on both sides: inputs are already on the device; a steady-state run is one
call that waits for its outputs (`block_until_ready` in JAX), outputs are not copied back;
compile + first run counts from the program text (JAX: from the Python function, tracing and
lowering included; ours: parse, verify, passes, lowering — no disk cache) to the first outputs,
the median of `--trials` (3) compiles: JAX's with its caches cleared before each (in the same
process, whose memory earlier programs have already touched), ours each in a new process
(every buffer fresh memory, faulted in by the first run) and, as the "warm" columns, compiled
from the text again in the process of the steady-state runs (`systolic run --startup-trials`),
the protocol JAX's trials follow.

Start-up is what a run adds beyond a steady one: each trial's compile + first run less the run
right after it, on both sides (the median over trials). Pairing each first run with its own
second run, rather than with the steady-state median measured minutes apart, keeps a shared
host's slow and fast spells out of the difference: a 100 ms program's median moved by 10–30 ms
between minutes on the 2-core VMs this was measured on, more than the start-up being measured.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# The binary `cargo build --release -p systolic-cli` made; CARGO_TARGET_DIR moves it, as for cargo.
BINARY = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "systolic"


# ---------------------------------------------------------------- programs


def normal(rng, shape, scale=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def mlp_params(rng, sizes):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        params += [normal(rng, (m, n), (1.0 / m) ** 0.5), normal(rng, (n,), 0.1)]
    return params


def mlp_apply(params, x):
    *hidden, (w, b) = list(zip(params[0::2], params[1::2]))
    for wi, bi in hidden:
        x = jax.nn.relu(x @ wi + bi)
    return x @ w + b


def xent(logits, labels):
    """Mean softmax cross-entropy with integer labels."""
    logp = jax.nn.log_softmax(logits)
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


MLP_SIZES = (784, 1024, 1024, 10)
MLP_BATCH = 1024
LR = 0.01


def mlp_forward():
    rng = np.random.default_rng(0)
    args = [normal(rng, (MLP_BATCH, MLP_SIZES[0]))] + mlp_params(rng, MLP_SIZES)

    def f(x, *params):
        return mlp_apply(params, x)

    return f, args


def mlp_train_step():
    rng = np.random.default_rng(1)
    params = mlp_params(rng, MLP_SIZES)
    x = normal(rng, (MLP_BATCH, MLP_SIZES[0]))
    labels = rng.integers(0, MLP_SIZES[-1], (MLP_BATCH,)).astype(np.int32)

    def f(x, labels, *params):
        loss, grads = jax.value_and_grad(lambda p: xent(mlp_apply(p, x), labels))(params)
        return (loss, *[p - LR * g for p, g in zip(params, grads)])

    return f, [x, labels] + params


def matmul_f32():
    rng = np.random.default_rng(2)
    return (lambda a, b: a @ b), [normal(rng, (2048, 2048)), normal(rng, (2048, 2048))]


def matmul_bf16():
    rng = np.random.default_rng(3)
    a = normal(rng, (2048, 2048), dtype=ml_dtypes.bfloat16)
    b = normal(rng, (2048, 2048), dtype=ml_dtypes.bfloat16)
    return (lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32)), [a, b]


def tanh_elementwise():
    rng = np.random.default_rng(4)
    shape = (4096, 4096)  # 16M elements
    return (lambda a, b, c: jnp.tanh((a + b) * c)), [normal(rng, shape) for _ in range(3)]


def softmax_xent():
    rng = np.random.default_rng(5)
    logits = normal(rng, (4096, 1000), 2.0)
    labels = rng.integers(0, 1000, (4096,)).astype(np.int32)
    return xent, [logits, labels]


B, S, D, H, F = 8, 256, 512, 8, 2048


def layer_norm(x, g, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b


def transformer_block(params, x):
    g1, b1, wq, wk, wv, wo, g2, b2, w1, c1, w2, c2 = params
    h = layer_norm(x, g1, b1)
    split = lambda t: t.reshape(B, S, H, D // H).transpose(0, 2, 1, 3)
    q, k, v = split(h @ wq), split(h @ wk), split(h @ wv)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.float32((D // H) ** 0.5)
    mask = jnp.tril(jnp.ones((S, S), bool))
    scores = jnp.where(mask, scores, np.float32(-1e9))
    attn = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)
    x = x + attn.transpose(0, 2, 1, 3).reshape(B, S, D) @ wo
    h = layer_norm(x, g2, b2)
    return x + jax.nn.gelu(h @ w1 + c1) @ w2 + c2


def transformer_params(rng):
    ones, zeros = np.ones((D,), np.float32), np.zeros((D,), np.float32)
    w = lambda m, n: normal(rng, (m, n), (1.0 / m) ** 0.5)
    return [ones, zeros, w(D, D), w(D, D), w(D, D), w(D, D), ones, zeros,
            w(D, F), normal(rng, (F,), 0.02), w(F, D), normal(rng, (D,), 0.02)]


def transformer_forward():
    rng = np.random.default_rng(6)
    params = transformer_params(rng)
    x = normal(rng, (B, S, D))

    def f(x, *params):
        return transformer_block(params, x)

    return f, [x] + params


def transformer_train_step():
    rng = np.random.default_rng(7)
    params = transformer_params(rng)
    x, target = normal(rng, (B, S, D)), normal(rng, (B, S, D))

    def f(x, target, *params):
        loss_fn = lambda p: jnp.mean(jnp.square(transformer_block(p, x) - target))
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return (loss, *[p - LR * g for p, g in zip(params, grads)])

    return f, [x, target] + params


def spd_batch(rng, batch, n):
    """Well-conditioned general matrices: random plus a dominant diagonal."""
    a = normal(rng, (batch, n, n), 1.0 / np.sqrt(n))
    return a + 2.0 * np.eye(n, dtype=np.float32)


def solve_batched():
    rng = np.random.default_rng(7)
    a, b = spd_batch(rng, 32, 256), normal(rng, (32, 256))
    return (lambda a, b: jnp.linalg.solve(a, b[..., None])[..., 0]), [a, b]


# Eigenvectors and singular vectors are unique only up to sign (and rotation within close
# values), so these return the values alone; the vectors are still computed (jnp.linalg.eigh and
# svd with compute_uv ask LAPACK for them, and so do our programs' custom calls).
def eigh_512():
    rng = np.random.default_rng(8)
    a = normal(rng, (512, 512))
    return (lambda a: jnp.linalg.eigh((a + a.T) / 2)[0]), [a]


def svd_1024x256():
    rng = np.random.default_rng(9)
    return (lambda a: jnp.linalg.svd(a, full_matrices=False)[1]), [normal(rng, (1024, 256))]


def fft_4m():
    """One complex64 FFT of 2^22 points (issue 21's row)."""
    rng = np.random.default_rng(10)
    n = 1 << 22
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    return jnp.fft.fft, [x]


def complex_normal(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def complex_mul_add_4m():
    """`z*w + z` over 4M complex64 (issue 21: complex elementwise fusions)."""
    rng = np.random.default_rng(20)
    return (lambda z, w: z * w + z), [complex_normal(rng, 1 << 22) for _ in range(2)]


def complex_abs2_sum_4m():
    """`sum(abs(z)**2)` over 4M complex64 (issue 21: a reduction of a complex fusion)."""
    rng = np.random.default_rng(21)
    return (lambda z: jnp.sum(jnp.abs(z) ** 2)), [complex_normal(rng, 1 << 22)]


def complex_exp_1m():
    """`exp(z)` over 1M complex64 (issue 21: a transcendental on complex lanes)."""
    rng = np.random.default_rng(22)
    return jnp.exp, [complex_normal(rng, 1 << 20)]


def matmul_c64_512():
    """A 512×512 complex64 matrix product (issue 21: gemm's complex kernels)."""
    rng = np.random.default_rng(23)
    return (lambda a, b: a @ b), [complex_normal(rng, (512, 512)) for _ in range(2)]


# ---- issue 19: more programs, each one a pattern a user's export will contain


def conv_bn_relu(x, w, gamma, beta):
    """3×3 'SAME' convolution (NHWC, HWIO), batch norm with batch statistics, ReLU."""
    y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    mu = jnp.mean(y, axis=(0, 1, 2))
    var = jnp.mean(jnp.square(y - mu), axis=(0, 1, 2))
    return jax.nn.relu((y - mu) * jax.lax.rsqrt(var + 1e-5) * gamma + beta)


def max_pool_2x2(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def avg_pool_2x2(x):
    summed = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return summed / np.float32(4.0)


CONV_CHANNELS = (3, 32, 64, 64)


def convnet_params(rng):
    params = []
    for cin, cout in zip(CONV_CHANNELS[:-1], CONV_CHANNELS[1:]):
        params += [normal(rng, (3, 3, cin, cout), (2.0 / (9 * cin)) ** 0.5),
                   np.ones((cout,), np.float32), np.zeros((cout,), np.float32)]
    flat = 4 * 4 * CONV_CHANNELS[-1]  # 32 → 16 → 8 → 4 after three 2×2 pools
    return params + [normal(rng, (flat, 10), (1.0 / flat) ** 0.5), np.zeros((10,), np.float32)]


def convnet_apply(params, x):
    *convs, w, b = params
    pools = (max_pool_2x2, max_pool_2x2, avg_pool_2x2)
    for i, pool in enumerate(pools):
        x = pool(conv_bn_relu(x, *convs[3 * i:3 * i + 3]))
    return x.reshape(x.shape[0], -1) @ w + b


def convnet_train_step():
    rng = np.random.default_rng(10)
    params = convnet_params(rng)
    x = normal(rng, (32, 32, 32, 3))
    labels = rng.integers(0, 10, (32,)).astype(np.int32)

    def f(x, labels, *params):
        loss, grads = jax.value_and_grad(lambda p: xent(convnet_apply(p, x), labels))(params)
        return (loss, *[p - LR * g for p, g in zip(params, grads)])

    return f, [x, labels] + params


# A JAX step takes about 1.4 s on 2 quiet cores; the 32k-vocabulary head dominates it.
LM_VOCAB, LM_BATCH, LM_SEQ, LM_D, LM_HEADS, LM_FF, LM_LAYERS = 32000, 4, 512, 256, 4, 1024, 2


def lm_params(rng):
    w = lambda m, n: normal(rng, (m, n), (1.0 / m) ** 0.5)
    ones, zeros = np.ones((LM_D,), np.float32), np.zeros((LM_D,), np.float32)
    params = [normal(rng, (LM_VOCAB, LM_D), 0.02)]
    for _ in range(LM_LAYERS):
        params += [ones, zeros, w(LM_D, 3 * LM_D), w(LM_D, LM_D), ones, zeros,
                   w(LM_D, LM_FF), w(LM_FF, LM_D)]
    return params + [ones, zeros, w(LM_D, LM_VOCAB)]


def lm_block(p, x):
    """Pre-norm causal self-attention and a GELU MLP, computing in bf16."""
    g1, b1, wqkv, wo, g2, b2, w1, w2 = [t.astype(jnp.bfloat16) for t in p]
    bsz, seq, d = x.shape
    dh = d // LM_HEADS
    qkv = layer_norm(x, g1, b1) @ wqkv
    q, k, v = [t.reshape(bsz, seq, LM_HEADS, dh).transpose(0, 2, 1, 3)
               for t in jnp.split(qkv, 3, axis=-1)]
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k).astype(jnp.float32) / np.float32(dh ** 0.5)
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    probs = jax.nn.softmax(jnp.where(mask, scores, np.float32(-1e9)), axis=-1)
    attn = jnp.einsum("bhqk,bhkd->bhqd", probs.astype(jnp.bfloat16), v)
    x = x + attn.transpose(0, 2, 1, 3).reshape(bsz, seq, d) @ wo
    return x + jax.nn.gelu(layer_norm(x, g2, b2) @ w1) @ w2


def lm_loss(params, tokens, targets):
    emb, *rest = params
    x = jnp.take(emb.astype(jnp.bfloat16), tokens, axis=0)
    for i in range(LM_LAYERS):
        x = lm_block(rest[8 * i:8 * i + 8], x)
    g, b, head = [t.astype(jnp.bfloat16) for t in rest[8 * LM_LAYERS:]]
    logits = (layer_norm(x, g, b) @ head).astype(jnp.float32)
    return xent(logits, targets)


def lm_train_step_bf16():
    rng = np.random.default_rng(11)
    params = lm_params(rng)
    tokens = rng.integers(0, LM_VOCAB, (LM_BATCH, LM_SEQ)).astype(np.int32)
    targets = rng.integers(0, LM_VOCAB, (LM_BATCH, LM_SEQ)).astype(np.int32)

    def f(tokens, targets, *params):
        loss, grads = jax.value_and_grad(lm_loss)(params, tokens, targets)
        return (loss, *[p - LR * g for p, g in zip(params, grads)])

    return f, [tokens, targets] + params


def attention_2048():
    rng = np.random.default_rng(12)
    shape = (1, 8, 2048, 64)  # batch, heads, sequence, head dim
    q, k, v = [normal(rng, shape) for _ in range(3)]

    def f(q, k, v):
        scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.float32(8.0)
        mask = jnp.tril(jnp.ones((2048, 2048), bool))
        probs = jax.nn.softmax(jnp.where(mask, scores, -jnp.inf), axis=-1)
        return jnp.einsum("bhqk,bhkd->bhqd", probs, v)

    return f, [q, k, v]


def layer_norm_fwd_bwd():
    rng = np.random.default_rng(13)
    x = normal(rng, (8192, 1024))
    gamma, beta = normal(rng, (1024,), 0.1) + 1.0, normal(rng, (1024,), 0.1)

    def f(x, gamma, beta):
        loss = lambda x, g, b: jnp.sum(jnp.sin(layer_norm(x, g, b)))
        value, grads = jax.value_and_grad(loss, argnums=(0, 1, 2))(x, gamma, beta)
        return (value, *grads)

    return f, [x, gamma, beta]


def rnn_scan_256():
    rng = np.random.default_rng(14)
    hidden, batch, steps, features = 512, 32, 256, 128
    w_x = normal(rng, (features, hidden), (1.0 / features) ** 0.5)
    w_h = normal(rng, (hidden, hidden), (1.0 / hidden) ** 0.5)
    bias = normal(rng, (hidden,), 0.1)
    xs = normal(rng, (steps, batch, features))
    h0 = np.zeros((batch, hidden), np.float32)

    def f(xs, h0, w_x, w_h, bias):
        def cell(h, x):
            h = jnp.tanh(x @ w_x + h @ w_h + bias)
            return h, jnp.mean(h, axis=-1)
        return jax.lax.scan(cell, h0, xs)

    return f, [xs, h0, w_x, w_h, bias]


def top_k_sort():
    rng = np.random.default_rng(15)
    x = normal(rng, (256, 32768))

    def f(x):
        values, indices = jax.lax.top_k(x, 64)
        return values, indices, jnp.sort(x, axis=-1)

    return f, [x]


def per_example_grads():
    rng = np.random.default_rng(16)
    params = mlp_params(rng, (256, 512, 512, 10))
    x = normal(rng, (128, 256))
    labels = rng.integers(0, 10, (128,)).astype(np.int32)

    def f(x, labels, *params):
        def loss(p, xi, yi):
            return xent(mlp_apply(p, xi[None]), yi[None])
        grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(list(params), x, labels)
        return tuple(grads)

    return f, [x, labels] + params


PROGRAMS = {
    "mlp_forward": mlp_forward,
    "mlp_train_step": mlp_train_step,
    "matmul_f32_2048": matmul_f32,
    "matmul_bf16_2048": matmul_bf16,
    "tanh_16M": tanh_elementwise,
    "softmax_xent": softmax_xent,
    "transformer_forward": transformer_forward,
    "transformer_train_step": transformer_train_step,
    "solve_batched_32x256": solve_batched,
    "eigh_512": eigh_512,
    "svd_1024x256": svd_1024x256,
    "fft_c64_4M": fft_4m,
    "convnet_train_step": convnet_train_step,
    "lm_train_step_bf16": lm_train_step_bf16,
    "attention_2048": attention_2048,
    "layer_norm_fwd_bwd": layer_norm_fwd_bwd,
    "rnn_scan_256": rnn_scan_256,
    "top_k_sort": top_k_sort,
    "per_example_grads": per_example_grads,
    "complex_mul_add_4M": complex_mul_add_4m,
    "complex_abs2_sum_4M": complex_abs2_sum_4m,
    "complex_exp_1M": complex_exp_1m,
    "matmul_c64_512": matmul_c64_512,
}


# ---------------------------------------------------------------- timing


def time_jax(f, args, repeat, warmup, trials):
    """(compile + first run ms, median of `trials`; start-up ms, the median over trials of
    compile + first run less the run right after it; steady-state median ms; outputs; a
    function measuring the steady-state median again) of JAX on `args`. Each trial compiles
    afresh: caches cleared, a new function."""
    device_args = [jax.device_put(a) for a in args]
    jax.block_until_ready(device_args)
    firsts, startups = [], []
    for _ in range(trials):
        jax.clear_caches()
        fresh = jax.jit(lambda *a: f(*a))  # a new function: nothing cached from the export
        start = time.perf_counter()
        out = jax.block_until_ready(fresh(*device_args))
        first = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        jax.block_until_ready(fresh(*device_args))
        firsts.append(first)
        startups.append(first - (time.perf_counter() - start) * 1e3)

    def steady():
        for _ in range(warmup):
            jax.block_until_ready(fresh(*device_args))
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            jax.block_until_ready(fresh(*device_args))
            times.append((time.perf_counter() - start) * 1e3)
        return float(np.median(times))

    outs = out if isinstance(out, (tuple, list)) else [out]
    return (float(np.median(firsts)), float(np.median(startups)), steady(),
            [np.asarray(o) for o in outs], steady)


def run_systolic(module, inputs, out_dir, repeat, startup_trials=0):
    """The JSON report of `systolic run --backend cpu` (no disk cache: a real compile; a new
    process, so every buffer of the first run is fresh memory); outputs written into
    `out_dir` unless it is None. With `startup_trials`, the program is then compiled and run
    once that many times more in the same process, as JAX's compile trials are."""
    cmd = [str(BINARY), "run", str(module), "--backend", "cpu", "--repeat", str(repeat),
           "--json"]
    if startup_trials:
        cmd += ["--startup-trials", str(startup_trials)]
    if out_dir is not None:
        cmd += ["--out-dir", str(out_dir)]
    for path in inputs:
        cmd += ["--input", str(path)]
    env = {k: v for k, v in os.environ.items() if k != "SYSTOLIC_CACHE_DIR"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"systolic run failed: {proc.stderr.strip()}")
    notes = [l for l in proc.stdout.splitlines() if l.startswith("note:")]
    return json.loads(proc.stdout.strip().splitlines()[-1]), notes


# Programs whose f32 outputs come from bf16 arithmetic: JAX's own outputs for
# lm_train_step_bf16 differ from the same step computed in f32 by up to 2.0% (largest error
# over largest magnitude, per output; measured 2026-11-28, ours 0.7-1.9%), so two correct
# implementations that round differently may be 4% apart.
OUTPUT_TOLERANCE = {"lm_train_step_bf16": 4e-2}


def agreement(ours, theirs, f32_tol=2e-3):
    """'ok' or what differs: each output's largest error relative to its largest magnitude."""
    if len(ours) != len(theirs):
        return f"{len(ours)} outputs, JAX {len(theirs)}"
    worst = 0.0
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"out{i}: {a.dtype}{list(a.shape)} vs JAX {b.dtype}{list(b.shape)}"
        wide = np.complex128 if np.iscomplexobj(b) else np.float64
        a64, b64 = a.astype(wide), b.astype(wide)
        scale = max(float(np.max(np.abs(b64))) if b64.size else 0.0, 1e-30)
        err = float(np.max(np.abs(a64 - b64))) / scale if b64.size else 0.0
        tol = 2e-2 if b.dtype == ml_dtypes.bfloat16 else f32_tol
        if not err <= tol:
            return f"out{i}: relative error {err:.1e} > {tol}"
        worst = max(worst, err)
    return f"ok ({worst:.0e})"


def bench(name, repeat, warmup, trials, rounds, work):
    f, args = PROGRAMS[name]()
    folder = work / name
    folder.mkdir()
    jax_first, jax_startup, jax_steady, jax_outs, jax_again = time_jax(
        f, args, repeat, warmup, trials)
    text = jax.jit(f).lower(*args).as_text()
    module = folder / "module.mlir"
    module.write_text(text)
    inputs = []
    for i, a in enumerate(args):
        path = folder / f"in{i}.npy"
        np.save(path, a)
        inputs.append(path)
    out_dir = folder / "out"
    report, notes = run_systolic(module, inputs, out_dir, repeat, startup_trials=trials)
    ours = [np.load(out_dir / f"out{i}.npy") for i in range(len(report["outputs"]))]
    ours = [o.view(ml_dtypes.bfloat16) if o.dtype == np.dtype("V2") else o for o in ours]
    # Start-up trials beyond the first: one run each after the first, in new processes.
    reports = [report] + [run_systolic(module, inputs, None, 1)[0]
                          for _ in range(1, trials)]
    our_first = float(np.median([r["compile_ms"] + r["first_run_ms"] for r in reports]))
    our_startup = float(np.median([r["startup_ms"] for r in reports]))
    our_compile = float(np.median([r["compile_ms"] for r in reports]))
    # Further rounds of steady state, JAX's then ours, so that a slow spell of a shared host
    # hits both sides alike; the steady columns are the medians over rounds.
    pairs = [(jax_steady, report["run_ms"]["median"])]
    for _ in range(1, rounds):
        ours_again = run_systolic(module, inputs, None, repeat)[0]
        pairs.append((jax_again(), ours_again["run_ms"]["median"]))
    ratios = [ours / theirs for theirs, ours in pairs]
    return {
        "program": name,
        "jax_steady_ms": float(np.median([theirs for theirs, _ in pairs])),
        "ours_steady_ms": float(np.median([ours for _, ours in pairs])),
        "steady_ratio_range": [min(ratios), max(ratios)],
        "jax_first_ms": jax_first,
        "ours_first_ms": our_first,
        "jax_startup_ms": jax_startup,
        "ours_startup_ms": our_startup,
        "ours_warm_startup_ms": report["warm_startup_over_next_ms"]["median"],
        "ours_compile_ms": our_compile,
        "agree": agreement(ours, jax_outs, OUTPUT_TOLERANCE.get(name, 2e-3)),
        "notes": notes,
    }


# ---------------------------------------------------------------- report


COLUMNS = ["program", "JAX steady ms", "ours ms", "ratio", "JAX compile+first ms",
           "ours ms", "ratio", "JAX start-up ms", "ours ms", "ratio", "ours warm ms", "ratio",
           "(ours: compile ms)", "outputs"]


def startup(ms):
    """A start-up (compile + first run less the run after it) as shown: noise can make a
    program's first run faster than its second, which counts as no start-up."""
    return max(ms, 0.0)


def startup_ratio(r, ours="ours_startup_ms"):
    """Ours over JAX's start-up (ours from `r[ours]`: a new process's, or a warm one's), or
    '-' when JAX's first run was no slower than its second (nothing to compare against)."""
    theirs = startup(r["jax_startup_ms"])
    if theirs < 0.05:
        return "-"
    return f"{startup(r[ours]) / theirs:.3f}×"


def steady_ratio(r):
    """Ours over JAX's steady state, with the range over rounds when there were several."""
    text = f"{r['ours_steady_ms'] / r['jax_steady_ms']:.2f}×"
    low, high = r["steady_ratio_range"]
    if high > low:
        text += f" ({low:.2f}–{high:.2f})"
    return text


def cells(r):
    return [
        r["program"],
        f"{r['jax_steady_ms']:.2f}",
        f"{r['ours_steady_ms']:.2f}",
        steady_ratio(r),
        f"{r['jax_first_ms']:.1f}",
        f"{r['ours_first_ms']:.1f}",
        f"{r['ours_first_ms'] / r['jax_first_ms']:.3f}×",
        f"{startup(r['jax_startup_ms']):.1f}",
        f"{startup(r['ours_startup_ms']):.1f}",
        startup_ratio(r),
        f"{startup(r['ours_warm_startup_ms']):.1f}",
        startup_ratio(r, "ours_warm_startup_ms"),
        f"{r['ours_compile_ms']:.1f}",
        r["agree"],
    ]


def print_table(rows, markdown):
    table = [COLUMNS] + [cells(r) for r in rows]
    if markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "|".join("---" for _ in COLUMNS) + "|")
        for row in table[1:]:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    for row in table:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))


def cpu_info():
    """(model name, the flags that decide our kernels) from /proc/cpuinfo."""
    model, flags = "unknown CPU", set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    wanted = [("amx_tile", "AMX"), ("avx512f", "AVX-512"), ("avx512_bf16", "AVX512-BF16"),
              ("avx512_vnni", "AVX512-VNNI"), ("avx512_fp16", "AVX512-FP16"), ("avx2", "AVX2"), ("fma", "FMA")]
    shown = [name for flag, name in wanted if flag in flags]
    if "amx_tile" not in flags:
        shown.append("no AMX")
    return model, shown


def cpu_key():
    """The README block this CPU's table goes in: one per CPU model and widest kernel set
    (AMX, else AVX-512, else AVX2, else portable). The model name alone does not tell kinds
    apart: a Zen 3 and a Zen 4 EPYC both call themselves "AMD EPYC"."""
    model, shown = cpu_info()
    slug = "-".join("".join(c if c.isalnum() else " " for c in model.lower()).split())
    widest = next((tag for name, tag in [("AMX", "amx"), ("AVX-512", "avx512"), ("AVX2", "avx2")]
                   if name in shown), "portable")
    return f"{slug}-{widest}"


def machine():
    """One line naming the CPU, its cores and the load while the benchmark ran."""
    model, _ = cpu_info()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model}, {os.cpu_count()} cores, load average {load:.1f} at the end"


def update_readme(path, rows, repeat, warmup, trials, rounds):
    """Replaces this CPU's table in the README (between `<!-- bench-table: KEY -->` markers,
    KEY from `cpu_key`), or adds it after the last CPU's table: the README keeps one table per
    CPU kind it was measured on."""
    key = cpu_key()
    start, end = f"<!-- bench-table: {key} -->", f"<!-- /bench-table: {key} -->"
    text = path.read_text()
    model, shown = cpu_info()
    table = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---" for _ in COLUMNS) + "|",
    ] + ["| " + " | ".join(cells(r)) + " |" for r in rows]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    block = "\n".join([
        start,
        f"#### {model} ({', '.join(shown)})",
        "",
        f"Measured {when} on {machine()}; JAX {jax.__version__} on CPU; {repeat} timed runs "
        f"after {warmup} warm-up runs (ours: after the first run); compile + first run the "
        f"median of {trials} (JAX: caches cleared before each, in one process; ours: a new "
        f"process each, and \"warm\": compiled again in the process after its runs); "
        f"start-up: compile + first run less the run right after it, median over the trials"
        + (f"; steady state the median of {rounds} alternating rounds, the ratio's range "
           f"over them in brackets." if rounds > 1 else "."),
        "",
        *table,
        end,
    ])
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        path.write_text(head + block + tail)
        return
    closes = [m.end() for m in re.finditer(r"<!-- /bench-table: [^>]* -->", text)]
    if not closes:
        sys.exit(f"{path} has no <!-- bench-table: KEY --> … <!-- /bench-table: KEY --> block "
                 "to add this CPU's table after")
    at = max(closes)
    path.write_text(text[:at] + "\n\n" + block + text[at:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (5 instead of 20)")
    parser.add_argument("--only", help="comma-separated program names: " + ", ".join(PROGRAMS))
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    parser.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    parser.add_argument("--readme", type=Path, metavar="README.md",
                        help="write the table into this file: this CPU's block, replaced or added")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="export into DIR (kept: module.mlir, in*.npy per program) instead "
                             "of a temporary directory, e.g. to profile with `systolic run "
                             "DIR/NAME/module.mlir --input … --profile`")
    parser.add_argument("--rounds", type=int, default=1,
                        help="steady-state rounds per program, JAX's and ours alternating "
                             "(default 1); with more, the steady columns are medians over "
                             "rounds and the ratio shows its range: on a shared host one "
                             "round's ratio can swing by a third")
    parser.add_argument("--trials", type=int, default=3,
                        help="compile + first run is the median of this many (JAX: caches "
                             "cleared before each; ours: a new process each; default 3): one "
                             "first run's page faults vary several-fold between runs in a VM")
    opts = parser.parse_args()
    if opts.trials < 1:
        parser.error("--trials must be at least 1")
    if opts.rounds < 1:
        parser.error("--rounds must be at least 1")
    names = list(PROGRAMS)
    if opts.only:
        names = [n.strip() for n in opts.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in PROGRAMS]
        if unknown:
            parser.error(f"unknown program(s) {', '.join(unknown)} (have: {', '.join(PROGRAMS)})")
    if not BINARY.exists():
        sys.exit(f"{BINARY} is missing: run `cargo build --release -p systolic-cli` first")
    repeat, warmup = (5, 2) if opts.quick else (20, 5)
    trials = opts.trials
    print(f"JAX {jax.__version__} on {jax.devices()[0].device_kind}, {os.cpu_count()} cores; "
          f"{repeat} timed runs after {warmup} warm-up runs (ours: after the first run); "
          f"compile + first run: median of {trials}", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="systolic-bench-") as tmp:
        work = Path(tmp)
        if opts.keep:
            opts.keep.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix="run-", dir=opts.keep))
            print(f"exporting into {work}", file=sys.stderr)
        for name in names:
            print(f"… {name}", file=sys.stderr, flush=True)
            try:
                rows.append(bench(name, repeat, warmup, trials, opts.rounds, work))
            except Exception as e:  # one failing program must not hide the others
                print(f"{name}: FAILED: {e}", file=sys.stderr)
            for note in rows[-1]["notes"] if rows and rows[-1]["program"] == name else []:
                print(f"  {name}: {note}", file=sys.stderr)
    print_table(rows, opts.markdown)
    if opts.json:
        opts.json.write_text(json.dumps(rows, indent=1))
    if opts.readme:
        update_readme(opts.readme, rows, repeat, warmup, trials, opts.rounds)


if __name__ == "__main__":
    main()
