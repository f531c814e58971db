"""Goldens for jnp.linalg and jax.scipy.linalg on complex matrices (crates/systolic/tests/
complex_linalg.rs, issue 21): every function on complex64 and complex128 inputs, unbatched and
batched (a leading batch of two).

Unique results (inverses, solves, determinants, Cholesky and LU factors, QR with LAPACK's
Householder convention, eigenvalues, singular values, pseudo-inverses, norms, expm) are
recorded as JAX returns them. Eigenvectors and singular vectors are unique only up to a unit
phase per column, so for them the case records phase-invariant products instead: `|v|²`
elementwise, the reconstruction `v·diag(w)·vᴴ` (`u·diag(s)·vh`), and `uᴴ·u` for the full `u`
of a non-square matrix (whose extra columns are any orthonormal basis). The Rust test applies
the same products to its own results.

Each case is named `<function>_<c64|c128>[_batched]`; its inputs are the function's array
arguments and its outputs what the test compares. A few cases mix dtypes (`_mixed`: a real
matrix and a complex right-hand side, which JAX promotes together).

Run: /root/.cache/systolic-jax-venv/bin/python scripts/complex_linalg_goldens.py
Writes crates/systolic/tests/data/complex_linalg_jax0.10.2.json.
"""

import os
import sys

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates",
                                "systolic", "tests", "data"))
from golden_cases import Cases  # noqa: E402

cases = Cases()
rng = np.random.default_rng(2121)


def cnormal(shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def general(shape):
    """A well-conditioned general complex matrix (batch of)."""
    m, n = shape[-2:]
    return cnormal(shape) + (2.0 * np.eye(m, n) if m == n else 0)


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def hpd(shape):
    """A Hermitian positive-definite matrix (batch of)."""
    g = cnormal(shape)
    return g @ H(g) + shape[-1] * np.eye(shape[-1])


def herm(shape):
    """A Hermitian matrix with well separated eigenvalues and a non-Hermitian perturbation
    (which eigh's symmetrisation removes)."""
    n = shape[-1]
    q, _ = np.linalg.qr(cnormal(shape))
    w = np.arange(1, n + 1) * 1.5 - n * 0.6
    skew = cnormal(shape) * 0.1
    return (q * w[..., None, :]) @ H(q) + (skew - H(skew))


def deficient(shape, rank):
    """A complex matrix of the given rank."""
    m, n = shape[-2:]
    return cnormal(shape[:-1] + (rank,)) @ cnormal(shape[:-2] + (rank, n))


def triangular(shape, lower):
    g = cnormal(shape) * 0.5 + 3.0 * np.eye(shape[-1])
    return np.tril(g) if lower else np.triu(g)


def HJ(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def eigh_products(w, v):
    """Phase-invariant: the eigenvalues, |v|² and v·diag(w)·vᴴ."""
    return [w, jnp.abs(v) ** 2, (v * w[..., None, :]) @ HJ(v)]


def svd_products(u, s, vh):
    """Phase-invariant: s, |u_k|², |vh_k|², u_k·diag(s)·vh_k (k = min(m, n) leading vectors),
    and uᴴ·u and vh·vhᴴ (identities for any choice of the extra columns)."""
    k = s.shape[-1]
    uk, vk = u[..., :, :k], vh[..., :k, :]
    return [s, jnp.abs(uk) ** 2, jnp.abs(vk) ** 2, (uk * s[..., None, :]) @ vk,
            HJ(u) @ u, vh @ HJ(vh)]


def vmapped(f, batch):
    """f on one matrix, mapped over a leading batch (jax.scipy.linalg.lu takes one matrix)."""
    return jax.vmap(f) if batch else f


def record(name, f, inputs):
    out = f(*inputs)
    cases.case(name, inputs, out if isinstance(out, (tuple, list)) else [out])


for dtype, tag in [(jnp.complex64, "c64"), (jnp.complex128, "c128")]:
    real = jnp.float32 if dtype == jnp.complex64 else jnp.float64

    def c(x):
        return jnp.asarray(x, dtype)

    for batch, btag in [((), ""), ((2,), "_batched")]:
        n = 4
        sq = batch + (n, n)
        tall = batch + (5, 3)
        wide = batch + (3, 5)
        sfx = f"_{tag}{btag}"

        def rec(name, f, *inputs):
            record(name + sfx, f, [c(x) for x in inputs])

        # numpy.linalg
        rec("inv", jnp.linalg.inv, general(sq))
        rec("solve", jnp.linalg.solve, general(sq), cnormal(batch + (n, 2)))
        rec("solve_vec", lambda a, b: jnp.linalg.solve(a, b[..., None])[..., 0],
            general(sq), cnormal(batch + (n,)))
        rec("det", jnp.linalg.det, general(sq))
        rec("det3", jnp.linalg.det, general(batch + (3, 3)))
        rec("slogdet", lambda a: list(jnp.linalg.slogdet(a)), general(sq))
        rec("cholesky", jnp.linalg.cholesky, hpd(sq))
        for mode in ["reduced", "complete"]:
            rec(f"qr_{mode}_tall", lambda a, m=mode: list(jnp.linalg.qr(a, mode=m)), general(tall))
            rec(f"qr_{mode}_wide", lambda a, m=mode: list(jnp.linalg.qr(a, mode=m)), general(wide))
        rec("qr_r", lambda a: jnp.linalg.qr(a, mode="r"), general(tall))
        rec("eigh", lambda a: eigh_products(*jnp.linalg.eigh(a)), herm(sq))
        rec("eigvalsh", jnp.linalg.eigvalsh, herm(sq))
        for shape_tag, shape in [("tall", tall), ("wide", wide), ("square", sq)]:
            for full in [False, True]:
                ftag = "full" if full else "thin"
                rec(f"svd_{ftag}_{shape_tag}",
                    lambda a, f=full: svd_products(*jnp.linalg.svd(a, full_matrices=f)),
                    general(shape))
        rec("svdvals", lambda a: jnp.linalg.svd(a, compute_uv=False), general(tall))
        rec("pinv_tall", jnp.linalg.pinv, general(tall))
        rec("pinv_wide", jnp.linalg.pinv, general(wide))
        rec("matrix_power3", lambda a: jnp.linalg.matrix_power(a, 3), general(sq) * 0.5)
        rec("matrix_power_m2", lambda a: jnp.linalg.matrix_power(a, -2), general(sq))
        rec("matrix_power0", lambda a: jnp.linalg.matrix_power(a, 0), general(sq))
        rec("matrix_rank", jnp.linalg.matrix_rank, deficient(tall, 2))
        if not batch:  # lstsq is 2-D only
            rec("lstsq", lambda a, b: list(jnp.linalg.lstsq(a, b)), general((6, 3)),
                cnormal((6, 2)))
            rec("lstsq_vec", lambda a, b: list(jnp.linalg.lstsq(a, b)), general((6, 3)),
                cnormal((6,)))
            rec("lstsq_deficient", lambda a, b: list(jnp.linalg.lstsq(a, b)),
                deficient((6, 3), 2), cnormal((6, 2)))
        for otag, o in [("fro", "fro"), ("nuc", "nuc"), ("2", 2), ("m2", -2), ("1", 1),
                        ("m1", -1), ("inf", np.inf), ("minf", -np.inf)]:
            rec(f"norm_mat_{otag}", lambda a, o=o: jnp.linalg.norm(a, o, axis=(-2, -1)),
                general(tall))
        for otag, o in [("none", None), ("1", 1), ("2", 2), ("inf", np.inf), ("minf", -np.inf),
                        ("0", 0), ("3", 3)]:
            rec(f"norm_vec_{otag}", lambda a, o=o: jnp.linalg.norm(a, o, axis=-1),
                cnormal(batch + (5,)) * np.array([1, 1, 0, 1, 1]))
        rec("norm_flat", lambda a: jnp.linalg.norm(a), general(tall))

        # jax.scipy.linalg
        rec("scipy_lu", lambda a: list(vmapped(jsl.lu, batch)(a)), general(sq))
        rec("scipy_lu_wide", lambda a: list(vmapped(jsl.lu, batch)(a)), general(wide))
        rec("scipy_lu_factor", lambda a: list(jsl.lu_factor(a)), general(sq))
        for trans in [0, 1, 2]:
            rec(f"scipy_lu_solve{trans}",
                lambda a, b, t=trans: jsl.lu_solve(jsl.lu_factor(a), b, trans=t),
                general(sq), cnormal(batch + (n, 2)))
        for lower in [False, True]:
            ltag = "lower" if lower else "upper"
            rec(f"scipy_cho_factor_{ltag}", lambda a, l=lower: jsl.cho_factor(a, lower=l)[0],
                hpd(sq))
            rec(f"scipy_cho_solve_{ltag}",
                lambda a, b, l=lower: jsl.cho_solve(jsl.cho_factor(a, lower=l), b),
                hpd(sq), cnormal(batch + (n, 2)))
            rec(f"scipy_solve_pos_{ltag}",
                lambda a, b, l=lower: jsl.solve(a, b, assume_a="pos", lower=l),
                hpd(sq), cnormal(batch + (n, 2)))
            for trans in [0, 1, 2]:
                rec(f"scipy_solve_triangular_{ltag}{trans}",
                    lambda a, b, t=trans, l=lower: jsl.solve_triangular(a, b, trans=t, lower=l),
                    triangular(sq, lower), cnormal(batch + (n, 2)))
        rec("scipy_solve_triangular_unit",
            lambda a, b: jsl.solve_triangular(a, b, trans="C", lower=True, unit_diagonal=True),
            triangular(sq, True), cnormal(batch + (n, 2)))
        rec("scipy_solve_gen", lambda a, b: jsl.solve(a, b), general(sq), cnormal(batch + (n, 2)))
        rec("scipy_solve_her", lambda a, b: jsl.solve(a, b, assume_a="her"), hpd(sq),
            cnormal(batch + (n, 2)))
        rec("scipy_expm", jsl.expm, cnormal(sq) * 0.3)
        rec("scipy_expm_large", jsl.expm, cnormal(sq) * 3.0)
        rec("scipy_det", jsl.det, general(sq))
        rec("scipy_inv", jsl.inv, general(sq))
        rec("scipy_qr_full", lambda a: list(jsl.qr(a, mode="full")), general(tall))
        rec("scipy_qr_economic", lambda a: list(jsl.qr(a, mode="economic")), general(tall))
        rec("scipy_qr_r", lambda a: jsl.qr(a, mode="r")[0], general(tall))
        rec("scipy_svd", lambda a: svd_products(*jsl.svd(a)), general(tall))
        rec("scipy_eigh", lambda a: eigh_products(*jsl.eigh(a)), herm(sq))
        rec("scipy_eigh_vals", lambda a: jsl.eigh(a, eigvals_only=True), herm(sq))

    # Dtype mixes JAX promotes: a real matrix and a complex right-hand side.
    def mixed(name, f, a, b):
        cases.case(f"{name}_{tag}", [jnp.asarray(a, real), c(b)], [f(jnp.asarray(a, real), c(b))])

    mixed("solve_mixed", jnp.linalg.solve, general((4, 4)).real, cnormal((4, 2)))
    mixed("scipy_solve_triangular_mixed", lambda a, b: jsl.solve_triangular(a, b, lower=True),
          triangular((4, 4), True).real, cnormal((4, 2)))
    mixed("scipy_cho_solve_mixed", lambda a, b: jsl.cho_solve((a, True), b),
          np.linalg.cholesky(hpd((4, 4)).real), cnormal((4, 2)))

cases.write(f"complex_linalg_jax{jax.__version__}.json")
