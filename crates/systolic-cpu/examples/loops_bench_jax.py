"""JAX's side of examples/loops_bench.rs: the same fused programs, jitted, on this machine.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic-cpu/examples/loops_bench_jax.py
Best of several timed runs after a warm-up (compile excluded), as the Rust program.
"""
import time

import jax
import jax.numpy as jnp
import numpy as np


def best(f, *args, reps=10):
    f(*args).block_until_ready()
    t_best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f(*args).block_until_ready()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def report(name, seconds, elements, nbytes):
    print(f"{name:<44} {seconds * 1e3:9.3f} ms {nbytes / seconds / 1e9:8.2f} GB/s "
          f"{seconds * 1e9 / elements:7.3f} ns/element")


def main():
    print(f"jax {jax.__version__} fused loops ({jax.devices()[0].platform})")
    rng = np.random.default_rng(0)
    n = 1 << 24
    a, b, c = (jnp.asarray((rng.random(n, dtype=np.float32) - 0.5) * 4) for _ in range(3))
    report("a + b, 16M f32", best(jax.jit(lambda a, b: a + b), a, b), n, 12 * n)
    report("tanh((a + b) * c), 16M f32",
           best(jax.jit(lambda a, b, c: jnp.tanh((a + b) * c)), a, b, c), n, 16 * n)
    report("exp(a), 16M f32", best(jax.jit(jnp.exp), a), n, 8 * n)
    rows, cols = 4096, 1000
    x = jnp.asarray((rng.random((rows, cols), dtype=np.float32) - 0.5) * 20)
    report("row sum [4096,1000] f32", best(jax.jit(lambda x: x.sum(axis=1)), x),
           rows * cols, 4 * rows * cols)
    report("column sum [4096,1000] f32", best(jax.jit(lambda x: x.sum(axis=0)), x),
           rows * cols, 4 * rows * cols)
    report("softmax rows [4096,1000] f32 (3 kernels)",
           best(jax.jit(lambda x: jax.nn.softmax(x, axis=1)), x), rows * cols, 8 * rows * cols)
    def layer_norm(x, g, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b

    lx = jnp.asarray((rng.random((2048, 512), dtype=np.float32) - 0.5) * 4)
    g, b = (jnp.asarray(rng.random(512, dtype=np.float32)) for _ in range(2))
    report("layer norm [2048,512] f32 (row program)", best(jax.jit(layer_norm), lx, g, b),
           2048 * 512, 8 * 2048 * 512)
    report("argmax rows [4096,1000] f32", best(jax.jit(lambda x: jnp.argmax(x, axis=1)), x),
           rows * cols, 4 * rows * cols)


if __name__ == "__main__":
    main()
