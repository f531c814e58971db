"""JAX 0.10.2 goldens for differentiating jnp.linalg.eigvals (crates/systolic/tests/np_eig.rs):
gradients of real losses of the eigenvalues of general real and complex matrices (JAX's rule
λ̇ = diag(V⁻¹·ȧ·V)), float64/complex128.

    /root/.cache/systolic-jax-venv/bin/python scripts/eigvals_grad_goldens.py

writes crates/systolic/tests/data/eigvals_grad_jax0.10.2.json.
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
rng = np.random.default_rng(31)
a = jnp.asarray(rng.standard_normal((4, 4)))
z = jnp.asarray(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
ab = jnp.asarray(rng.standard_normal((2, 3, 3)))
cases.case("abs2_real", [a], jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eigvals(a)) ** 2))(a))
cases.case("real_cubed_complex", [z],
           jax.grad(lambda z: jnp.sum(jnp.real(jnp.linalg.eigvals(z)) ** 3))(z))
cases.case("imag_batched", [ab],
           jax.grad(lambda a: jnp.sum(jnp.imag(jnp.linalg.eigvals(a)) ** 2
                                      + jnp.real(jnp.linalg.eigvals(a))))(ab))
cases.write("eigvals_grad_jax0.10.2.json")
