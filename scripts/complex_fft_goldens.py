"""JAX exports of FFTs and complex arithmetic, for crates/systolic-cpu/tests/complex_goldens.rs:
jnp.fft.fft/ifft/rfft/irfft/fft2/fftn on float32 and complex64 (and one complex128 case),
complex multiply, divide, exp, abs, conj and jnp.angle. Each case is a folder under
crates/systolic-cpu/tests/data/complex_fft/<name>/ with `module.mlir` (what
`jax.jit(f).lower(*args).as_text()` printed), the inputs `in<i>.npy` and JAX's outputs on CPU
`out<i>.npy` (XLA:CPU, whose FFT is ducc computing in the element precision).

    /root/.cache/systolic-jax-venv/bin/python scripts/complex_fft_goldens.py
"""
import os

import numpy as np

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-cpu", "tests", "data",
                   "complex_fft")
rng = np.random.default_rng(2026)


def real(*shape, dtype=np.float32):
    return rng.uniform(-2, 2, shape).astype(dtype)


def cplx(*shape, dtype=np.complex64):
    return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)


def save(name, f, *args):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.mlir"), "w") as fh:
        fh.write(jax.jit(f).lower(*args).as_text())
    results = jax.jit(f)(*args)
    if not isinstance(results, (tuple, list)):
        results = (results,)
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
    for i, r in enumerate(results):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(r))


save("fft_c64", jnp.fft.fft, cplx(4, 16))
save("fft_f32", jnp.fft.fft, real(3, 12))
save("ifft_c64", jnp.fft.ifft, cplx(2, 10))
save("rfft_f32", jnp.fft.rfft, real(5, 16))
save("rfft_odd_f32", lambda x: jnp.fft.rfft(x, n=9), real(2, 9))
save("irfft_c64", lambda x: jnp.fft.irfft(x, n=14), cplx(3, 8))
save("fft2_c64", jnp.fft.fft2, cplx(2, 6, 8))
save("fftn_f32", jnp.fft.fftn, real(4, 5, 6))
save("ifftn_c64", lambda x: jnp.fft.ifftn(x, axes=(0, 1, 2)), cplx(3, 4, 5))
save("rfft2_irfft2_f32", lambda x: (jnp.fft.rfft2(x), jnp.fft.irfft2(jnp.fft.rfft2(x), s=x.shape[-2:])),
     real(3, 8, 6))
save("fft_c128", jnp.fft.fft, cplx(3, 20, dtype=np.complex128))
save("complex_arith_c64", lambda a, b: (a * b, a / b, jnp.exp(a), jnp.abs(a), jnp.conj(b), jnp.angle(a)),
     cplx(2, 7), cplx(2, 7))
save("complex_arith_c128", lambda a, b: (a * b, a / b, jnp.exp(a), jnp.abs(a), jnp.conj(b), jnp.angle(a)),
     cplx(5, dtype=np.complex128), cplx(5, dtype=np.complex128))
save("complex_from_parts_f32", lambda x, y: jnp.abs(jax.lax.complex(x, y) ** 2 + 1j * x), real(6), real(6))
print("wrote", len(os.listdir(OUT)), "cases to", os.path.normpath(OUT))
