"""JAX 0.10.2 goldens for differentiation through complex numbers in the front end
(crates/systolic/tests/complex_grad.rs): `grad` of real losses of complex inputs (JAX returns
the conjugate of the steepest-ascent direction), `grad(holomorphic=True)`, `jvp` and `vjp` with
complex tangents and cotangents, through FFTs, products, `real`/`imag`/`abs`/`conj`/`complex`,
and `vmap` of a complex gradient.

    /root/.cache/systolic-jax-venv/bin/python scripts/complex_grad_goldens.py

writes crates/systolic/tests/data/complex_grad_jax0.10.2.json.
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates",
                                "systolic", "tests", "data"))
from golden_cases import Cases  # noqa: E402

cases = Cases()
rng = np.random.default_rng(27)


def real(*shape, dtype=np.float32):
    return jnp.asarray(rng.standard_normal(shape).astype(dtype))


def cplx(*shape, dtype=np.complex64):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return jnp.asarray(z.astype(dtype))


def grad_case(name, f, *args, **kw):
    g = jax.grad(f, argnums=tuple(range(len(args))), **kw)(*args)
    cases.case(name, args, g)


# Real losses of complex inputs.
grad_case("grad_abs2", lambda z: jnp.sum(jnp.abs(z) ** 2), cplx(6))
grad_case("grad_rfft_power", lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2), real(16))
grad_case("grad_fft_filter", lambda z, k: jnp.sum(jnp.abs(jnp.fft.ifft(jnp.fft.fft(z) * k))),
          cplx(8), cplx(8))
grad_case("grad_parts_c128",
          lambda z: jnp.sum(jnp.real(z) ** 2 * jnp.imag(z)) + jnp.sum(jnp.real(jnp.exp(z))),
          cplx(3, 4, dtype=np.complex128))
grad_case("grad_complex_from_parts", lambda x, y: jnp.sum(jnp.abs(jax.lax.complex(x, y))),
          real(5), real(5))
grad_case("grad_astype", lambda x: jnp.sum(jnp.abs(x.astype(jnp.complex64) * (1 + 2j))), real(4))
grad_case("grad_matmul", lambda a, b: jnp.sum(jnp.abs(a @ b) ** 2), cplx(3, 4), cplx(4, 2))
grad_case("grad_fft2_conj", lambda z: jnp.real(jnp.sum(jnp.fft.fft2(z) * jnp.conj(z))), cplx(4, 4))
grad_case("grad_irfft", lambda z: jnp.sum(jnp.fft.irfft(z) ** 2 * jnp.arange(8.0, dtype=jnp.float32)),
          cplx(5))
grad_case("grad_angle_mixed", lambda z, w: jnp.sum(jnp.angle(z) * w + jnp.imag(z * z)),
          cplx(5), real(5))
# Holomorphic functions.
z = cplx()
cases.case("holo_sin", [z], jax.grad(lambda z: jnp.sin(z) * z, holomorphic=True)(z))
z = cplx(4)
cases.case("holo_poly", [z], jax.grad(lambda z: jnp.sum(z**3 - 2j * z), holomorphic=True)(z))
z = cplx(6)
cases.case("holo_fft", [z],
           jax.grad(lambda z: jnp.sum(jnp.fft.fft(z) * jnp.arange(6.0, dtype=jnp.float32)),
                    holomorphic=True)(z))
# jvp and vjp with complex tangents and cotangents.
z, t = cplx(8), cplx(8)
y, ty = jax.jvp(lambda z: jnp.fft.fft(z) * z, (z,), (t,))
cases.case("jvp_fft", [z, t], [y, ty])
z, ct = cplx(5), cplx(5)
y, pull = jax.vjp(lambda z: jnp.exp(z) * jnp.conj(z), z)
cases.case("vjp_exp_conj", [z, ct], [y, pull(ct)[0]])
x, ct = real(6), cplx(4)
y, pull = jax.vjp(lambda x: jnp.fft.rfft(x), x)
cases.case("vjp_rfft", [x, ct], [y, pull(ct)[0]])
# vmap of a complex gradient.
zs = cplx(3, 4)
cases.case("vmap_grad_abs2", [zs],
           jax.vmap(jax.grad(lambda z: jnp.sum(jnp.abs(jnp.fft.fft(z)) ** 2)))(zs))

cases.write("complex_grad_jax0.10.2.json")
