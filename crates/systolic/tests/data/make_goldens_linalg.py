"""Goldens for the front end's numpy.linalg (norm with vector/matrix orders, cholesky incl.
a non-positive-definite input, triangular solves), observed with JAX 0.10.2 on CPU. Each case
records its inputs and JAX's outputs; tests/linalg_golden.rs rebuilds the inputs and compares
eagerly and under jit.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_goldens_linalg.py
Writes crates/systolic/tests/data/linalg_jax0.10.2.json next to this script.
"""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
from golden_cases import Cases
from jax import lax


cases = Cases()
case = cases.case


rng = np.random.default_rng(9)
v = jnp.asarray(rng.normal(size=(5,)) * 3, jnp.float32)
m = jnp.asarray(rng.normal(size=(3, 4)), jnp.float32)
t = jnp.asarray(rng.normal(size=(2, 3, 4)), jnp.float32)
vi = jnp.array([3, -4, 0, 1], jnp.int32)
vnan = jnp.array([1.0, np.nan, 2.0], jnp.float32)
e0 = jnp.zeros((0,), jnp.float32)

for tag, o in [("none", None), ("2", 2), ("1", 1), ("0", 0), ("inf", np.inf), ("neginf", -np.inf), ("3", 3), ("half", 0.5)]:
    case(f"norm_vec_{tag}", [v], jnp.linalg.norm(v, o))
    case(f"norm_t_ax1_{tag}", [t], jnp.linalg.norm(t, o, axis=1))
case("norm_vec_i32", [vi], jnp.linalg.norm(vi))
case("norm_vec_bf16", [v.astype(jnp.bfloat16)], jnp.linalg.norm(v.astype(jnp.bfloat16)))
case("norm_vec_f16_3", [v.astype(jnp.float16)], jnp.linalg.norm(v.astype(jnp.float16), 3))
case("norm_vec_nan", [vnan], jnp.linalg.norm(vnan))
case("norm_vec_empty_inf", [e0], jnp.linalg.norm(e0, np.inf))
case("norm_t_all", [t], jnp.linalg.norm(t))
case("norm_t_all_keep", [t], jnp.linalg.norm(t, keepdims=True))
case("norm_t_ax2_keep", [t], jnp.linalg.norm(t, axis=-1, keepdims=True))
for tag, o in [("fro", "fro"), ("none", None), ("1", 1), ("m1", -1), ("inf", np.inf), ("neginf", -np.inf)]:
    case(f"norm_mat_{tag}", [m], jnp.linalg.norm(m, o))
    case(f"norm_t_ax20_{tag}", [t], jnp.linalg.norm(t, o, axis=(2, 0)))
    case(f"norm_t_ax12_keep_{tag}", [t], jnp.linalg.norm(t, o, axis=(1, 2), keepdims=True))

def spd(n, batch=()):
    g = rng.normal(size=batch + (n, n))
    return g @ np.swapaxes(g, -1, -2) + n * np.eye(n)


a4 = jnp.asarray(spd(4), jnp.float32)
a_b = jnp.asarray(spd(3, (2,)), jnp.float32)
case("cholesky_f32", [a4], jnp.linalg.cholesky(a4))
case("cholesky_batch", [a_b], jnp.linalg.cholesky(a_b))
asym = a4.at[0, 1].add(0.5)
case("cholesky_nonsym", [asym], jnp.linalg.cholesky(asym))
notpd = jnp.array([[[1.0, 2.0], [2.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]], jnp.float32)
case("cholesky_not_pd", [notpd], jnp.linalg.cholesky(notpd))
case("cholesky_one", [jnp.array([[9.0]], jnp.float32)], jnp.linalg.cholesky(jnp.array([[9.0]], jnp.float32)))

L = jnp.tril(jnp.asarray(rng.normal(size=(2, 4, 4)), jnp.float32)) + 4 * jnp.eye(4, dtype=jnp.float32)
U = jnp.swapaxes(L, -1, -2)
bl = jnp.asarray(rng.normal(size=(2, 4, 3)), jnp.float32)
br = jnp.asarray(rng.normal(size=(2, 3, 4)), jnp.float32)
case("trisolve_left_lower", [L, bl], lax.linalg.triangular_solve(L, bl, left_side=True, lower=True))
case("trisolve_left_upper_t", [U, bl], lax.linalg.triangular_solve(U, bl, left_side=True, lower=False, transpose_a=True))
case("trisolve_right_lower", [L, br], lax.linalg.triangular_solve(L, br, left_side=False, lower=True))
case("trisolve_left_lower_unit", [L, bl], lax.linalg.triangular_solve(L, bl, left_side=True, lower=True, unit_diagonal=True))
full_a = L[0] + jnp.triu(jnp.ones((4, 4), jnp.float32), 1) * 7  # upper garbage ignored with lower
case("trisolve_reads_one_triangle", [full_a, bl[0]], lax.linalg.triangular_solve(full_a, bl[0], left_side=True, lower=True))
bv = jnp.asarray(rng.normal(size=(4,)), jnp.float32)
case("solve_triangular_vec", [U[0], bv], jsl.solve_triangular(U[0], bv))
case("solve_triangular_lower_trans", [L[0], bl[0]], jsl.solve_triangular(L[0], bl[0], trans=1, lower=True))

cases.write(f"linalg_jax{jax.__version__}.json")
