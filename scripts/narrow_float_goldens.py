"""JAX exports of narrow-float programs, for crates/systolic-cpu/tests/narrow_float_goldens.rs:
f32 -> each f8/f6/f4 type and back with jnp.astype, an f8 matmul with
preferred_element_type=float32, and a scaled fp8 product as training code writes it (scale to
the fp8 range, cast, multiply with f32 accumulation, unscale). Each case is a folder under
crates/systolic-cpu/tests/data/narrow_float/<name>/ with `module.mlir` (what
`jax.jit(f).lower(*args).as_text()` printed), the inputs `in<i>.npy` and JAX's outputs on CPU
`out<i>.npy`. ml_dtypes' types are saved by np.save as raw '<V1' bytes: the reader takes their
type from the module's signature.

    /root/.cache/systolic-jax-venv/bin/python scripts/narrow_float_goldens.py
"""
import os

import ml_dtypes
import numpy as np

import jax
import jax.numpy as jnp

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-cpu", "tests", "data",
                   "narrow_float")
rng = np.random.default_rng(2121)

TYPES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
         "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]


def wide_f32(n):
    """Magnitudes from 2^-40 to 2^40 of both signs, with zeros, infinities and a NaN."""
    x = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-40, 40, n)).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    return x


def save(name, f, *args):
    d = os.path.join(OUT, name)
    try:
        results = jax.jit(f)(*args)
    except jax.errors.JaxRuntimeError as e:
        # JAX 0.10.2's XLA:CPU fails to compile some conversions (f6/f4): no golden for them.
        print(f"skipped {name}: XLA:CPU cannot run it ({str(e).splitlines()[0][:100]})")
        return
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.mlir"), "w") as fh:
        fh.write(jax.jit(f).lower(*args).as_text())
    if not isinstance(results, (tuple, list)):
        results = (results,)
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
    for i, r in enumerate(results):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(r))


for t in TYPES:
    dt = getattr(jnp, t)
    save(f"astype_{t}", lambda x, dt=dt: (x.astype(dt), x.astype(dt).astype(jnp.float32)),
         wide_f32(64))

a = rng.uniform(-4, 4, (8, 16)).astype(ml_dtypes.float8_e4m3fn)
b = rng.uniform(-4, 4, (16, 4)).astype(ml_dtypes.float8_e5m2)
save("matmul_e4m3fn_e5m2_f32", lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32),
     a, b)
a = rng.uniform(-4, 4, (8, 16)).astype(ml_dtypes.float8_e4m3fn)
b = rng.uniform(-4, 4, (16, 4)).astype(ml_dtypes.float8_e4m3fn)
save("matmul_e4m3fn_f32", lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32), a, b)


def scaled_fp8_matmul(x, w):
    """Per-tensor scaling to E4M3's range (amax -> 448), f32 accumulation, unscaled result."""
    fmax = jnp.float32(448.0)
    sx = fmax / jnp.max(jnp.abs(x))
    sw = fmax / jnp.max(jnp.abs(w))
    x8 = (x * sx).astype(jnp.float8_e4m3fn)
    w8 = (w * sw).astype(jnp.float8_e4m3fn)
    y = jnp.matmul(x8, w8, preferred_element_type=jnp.float32)
    return y / (sx * sw)


save("scaled_fp8_matmul", scaled_fp8_matmul, rng.normal(size=(8, 32)).astype(np.float32),
     rng.normal(size=(32, 16)).astype(np.float32) * 0.05)
