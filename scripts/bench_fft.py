"""FFTs side by side: JAX on XLA:CPU against `systolic run` (the native fft kernel), same
programs and inputs, in one run. Build the CLI first (`cargo build --release -p systolic-cli`).

    /root/.cache/systolic-jax-venv/bin/python scripts/bench_fft.py

Prints per program JAX's median of 30 runs and systolic's `--repeat 30` timing line.
"""
import os
import subprocess
import tempfile
import time

import numpy as np

import jax
import jax.numpy as jnp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.environ.get("SYSTOLIC_BIN", os.path.join(ROOT, "target", "release", "systolic"))
rng = np.random.default_rng(0)


def cplx(*shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


CASES = {
    "fft_c64_64x4096": (jnp.fft.fft, cplx(64, 4096)),
    "rfft_f32_256x1024": (jnp.fft.rfft, rng.standard_normal((256, 1024)).astype(np.float32)),
    "fft2_c64_8x256x256": (jnp.fft.fft2, cplx(8, 256, 256)),
    "fft_c64_4M": (jnp.fft.fft, cplx(1 << 22)),
    "rfft_f32_4M": (jnp.fft.rfft, rng.standard_normal(1 << 22).astype(np.float32)),
    "irfft_c64_4M": (jnp.fft.irfft, cplx((1 << 21) + 1)),
}

with tempfile.TemporaryDirectory() as tmp:
    for name, (f, x) in CASES.items():
        mlir, npy = os.path.join(tmp, name + ".mlir"), os.path.join(tmp, name + ".npy")
        with open(mlir, "w") as fh:
            fh.write(jax.jit(f).lower(x).as_text())
        np.save(npy, x)
        g = jax.jit(f)
        g(x).block_until_ready()
        times = []
        for _ in range(30):
            t = time.perf_counter()
            g(x).block_until_ready()
            times.append(time.perf_counter() - t)
        run = subprocess.run([BIN, "run", mlir, "--input", npy, "--repeat", "30"],
                             capture_output=True, text=True, check=True)
        print(f"{name}: jax median {1000 * np.median(times):.2f} ms | systolic {run.stdout.strip().splitlines()[-1]}")
