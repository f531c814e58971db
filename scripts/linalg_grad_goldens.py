"""Goldens for the derivatives of jnp.linalg and jax.scipy.linalg (crates/systolic/tests/
linalg_grad.rs): for each function a scalar loss that does not depend on the decomposition's
freedoms (eigenvector and singular vector signs enter squared or in pairs; QR and LU are
deterministic, LAPACK's Householder and pivoting conventions, so their factors enter as they
are), recorded with its value and its gradients, float32 and float64, and one batched case
per function. Weights of the losses are inputs too, so the Rust side rebuilds nothing.

Each case's inputs are [differentiated arguments..., weights...]; its outputs are [loss,
gradient per differentiated argument]. The case name says the function, the dtype, and which
inputs are differentiated (`_ab`: the first two, else the first).

Run: /root/.cache/systolic-jax-venv/bin/python scripts/linalg_grad_goldens.py
Writes crates/systolic/tests/data/linalg_grad_jax0.10.2.json.
"""

import os
import sys

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates",
                                "systolic", "tests", "data"))
from golden_cases import Cases  # noqa: E402

cases = Cases()
rng = np.random.default_rng(21)


def arr(x, dtype):
    return jnp.asarray(np.asarray(x), dtype)


def general(shape):
    """A well-conditioned general matrix (batch of)."""
    n = shape[-1]
    return rng.normal(size=shape) + (2.0 * np.eye(shape[-2], n) if shape[-2] == n else 0)


def spd(shape):
    g = rng.normal(size=shape)
    return g @ np.swapaxes(g, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(shape):
    """A symmetric matrix with well separated eigenvalues."""
    n = shape[-1]
    q, _ = np.linalg.qr(rng.normal(size=shape))
    w = np.arange(1, n + 1) * 1.5 - n * 0.6
    return (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)


def weights(shape):
    return rng.uniform(0.5, 1.5, size=shape)


def record(name, loss, diff, consts, dtype):
    """Records `loss(*diff, *consts)` and its gradients with respect to `diff`."""
    diff = [arr(x, dtype) for x in diff]
    consts = [arr(x, dtype) for x in consts]
    value, grads = jax.value_and_grad(
        lambda *d: loss(*d, *consts), argnums=tuple(range(len(diff))))(*diff)
    cases.case(name, diff + consts, [value, *grads])


def both(name, loss, diff, consts):
    for dtype, tag in [(jnp.float32, "f32"), (jnp.float64, "f64")]:
        record(f"{name}_{tag}", loss, diff, consts, dtype)


S = jnp.sum


def eigh_loss(a, c):
    w, v = jnp.linalg.eigh(a)
    return S(w ** 2) + S(c * v ** 2)


def eigvalsh_loss(a, c):
    return S(jnp.linalg.eigvalsh(a) * c)


def svd_loss(a, c):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return S(c * ((u * s[..., None, :] ** 2) @ vh)) + S(s)


def svd_square_full_loss(a, c):
    u, s, vh = jnp.linalg.svd(a, full_matrices=True)
    return S(c * ((u * jnp.sin(s)[..., None, :]) @ vh))


def svdvals_loss(a, c):
    return S(jnp.linalg.svd(a, compute_uv=False) * c)


def qr_loss(mode):
    def f(a, cq, cr):
        q, r = jnp.linalg.qr(a, mode=mode)
        return S(cq * q) + S(cr * r)
    return f


def qr_r_loss(a, cr):
    return S(cr * jnp.linalg.qr(a, mode="r"))


def det_loss(a):
    return S(jnp.linalg.det(a))


def slogdet_loss(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return S(logdet) + S(sign)


def solve_loss(a, b, c):
    return S(c * jnp.linalg.solve(a, b))


def inv_loss(a, c):
    return S(c * jnp.linalg.inv(a))


def pinv_loss(a, c):
    return S(c * jnp.linalg.pinv(a))


def lstsq_loss(a, b, c):
    x, resid, _, s = jnp.linalg.lstsq(a, b)
    return S(c * x) + S(resid) + S(s)


def matrix_power_loss(k):
    return lambda a, c: S(c * jnp.linalg.matrix_power(a, k))


def lu_loss(a, cl, cu):
    # jax.scipy.linalg.lu takes one matrix; a batch is mapped.
    lu = jsl.lu if a.ndim == 2 else jax.vmap(jsl.lu)
    p, l, u = lu(a)
    return S(cl * l) + S(cu * u) + S(p)


def lu_solve_loss(a, b, c):
    return S(c * jsl.lu_solve(jsl.lu_factor(a), b))


def lu_solve_t_loss(a, b, c):
    return S(c * jsl.lu_solve(jsl.lu_factor(a), b, trans=1))


def cho_solve_loss(a, b, c):
    return S(c * jsl.cho_solve(jsl.cho_factor(a, lower=False), b))


def solve_pos_loss(a, b, c):
    return S(c * jsl.solve(a, b, assume_a="pos"))


def expm_loss(a, c):
    return S(c * jsl.expm(a))


def scipy_eigh_loss(a, c):
    w, v = jsl.eigh(a)
    return S(w ** 2) + S(c * v ** 2)


def scipy_qr_full_loss(a, cq, cr):
    q, r = jsl.qr(a, mode="full")
    return S(cq * q) + S(cr * r)


# Shapes: a single matrix and a batch of two.
for batch, btag in [((), ""), ((2,), "_batched")]:
    n = 4
    sq = batch + (n, n)
    both(f"eigh{btag}", eigh_loss, [sym(sq)], [weights(sq)])
    both(f"eigvalsh{btag}", eigvalsh_loss, [sym(sq)], [weights(batch + (n,))])
    both(f"svd_tall{btag}", svd_loss, [general(batch + (5, 3))], [weights(batch + (5, 3))])
    both(f"svd_wide{btag}", svd_loss, [general(batch + (3, 5))], [weights(batch + (3, 5))])
    both(f"svd_square_full{btag}", svd_square_full_loss, [general(sq)], [weights(sq)])
    both(f"svdvals{btag}", svdvals_loss, [general(batch + (5, 3))], [weights(batch + (3,))])
    tall = batch + (5, 3)
    both(f"qr_reduced{btag}", qr_loss("reduced"), [general(tall)],
         [weights(tall), weights(batch + (3, 3))])
    both(f"qr_complete{btag}", qr_loss("complete"), [general(tall)],
         [weights(batch + (5, 5)), weights(tall)])
    both(f"qr_wide{btag}", qr_loss("reduced"), [general(batch + (3, 5))],
         [weights(batch + (3, 3)), weights(batch + (3, 5))])
    both(f"qr_r{btag}", qr_r_loss, [general(tall)], [weights(batch + (3, 3))])
    both(f"det{btag}", det_loss, [general(sq)], [])
    both(f"slogdet{btag}", slogdet_loss, [general(sq)], [])
    both(f"solve_ab{btag}", solve_loss, [general(sq), rng.normal(size=batch + (n, 2))],
         [weights(batch + (n, 2))])
    if not batch:
        both("solve_vec_ab", solve_loss, [general(sq), rng.normal(size=(n,))], [weights((n,))])
    both(f"inv{btag}", inv_loss, [general(sq)], [weights(sq)])
    both(f"pinv{btag}", pinv_loss, [general(tall)], [weights(batch + (3, 5))])
    both(f"pinv_wide{btag}", pinv_loss, [general(batch + (3, 5))], [weights(tall)])
    both(f"matrix_power3{btag}", matrix_power_loss(3), [general(sq) * 0.5], [weights(sq)])
    both(f"matrix_power_m2{btag}", matrix_power_loss(-2), [general(sq)], [weights(sq)])
    both(f"scipy_lu{btag}", lu_loss, [general(sq)], [weights(sq), weights(sq)])
    both(f"scipy_lu_solve_ab{btag}", lu_solve_loss, [general(sq), rng.normal(size=batch + (n, 2))],
         [weights(batch + (n, 2))])
    both(f"scipy_lu_solve_t_ab{btag}", lu_solve_t_loss,
         [general(sq), rng.normal(size=batch + (n, 2))], [weights(batch + (n, 2))])
    both(f"scipy_cho_solve_ab{btag}", cho_solve_loss, [spd(sq), rng.normal(size=batch + (n, 2))],
         [weights(batch + (n, 2))])
    both(f"scipy_solve_pos_ab{btag}", solve_pos_loss, [spd(sq), rng.normal(size=batch + (n, 2))],
         [weights(batch + (n, 2))])
    both(f"scipy_expm{btag}", expm_loss, [rng.normal(size=sq) * 0.3], [weights(sq)])
    both(f"scipy_expm_large{btag}", expm_loss, [rng.normal(size=sq) * 3.0], [weights(sq)])
    both(f"scipy_eigh{btag}", scipy_eigh_loss, [sym(sq)], [weights(sq)])
    both(f"scipy_qr_full{btag}", scipy_qr_full_loss, [general(tall)],
         [weights(batch + (5, 5)), weights(tall)])

def norm_loss(ord, axis):
    return lambda a, c: S(c * jnp.linalg.norm(a, ord, axis=axis))


# Matrix norms from the singular values, over the last two axes and over (2, 0) of a 3-D
# array (whose remaining axis is batched), with the weights over what is left.
for tag, o in [("2", 2), ("m2", -2), ("nuc", "nuc")]:
    both(f"norm_{tag}", norm_loss(o, None), [general((4, 3))], [np.ones(())])
    both(f"norm_{tag}_ax20", norm_loss(o, (2, 0)), [general((3, 2, 4))], [weights((2,))])

# lstsq is 2-D only.
both("lstsq_ab", lstsq_loss, [general((6, 3)), rng.normal(size=(6, 2))], [weights((3, 2))])
both("lstsq_vec_ab", lstsq_loss, [general((6, 3)), rng.normal(size=(6,))], [weights((3,))])

cases.write(f"linalg_grad_jax{jax.__version__}.json")
