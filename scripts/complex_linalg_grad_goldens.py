"""Gradient goldens of jnp.linalg and jax.scipy.linalg on complex matrices (crates/systolic/
tests/complex_linalg_grad.rs, issue 21): for each function a real-valued loss of complex
inputs, recorded with its value and JAX's gradients (`jax.grad` of a real function of complex
arguments, JAX's convention), complex64 and complex128, one batched case per function.

The losses do not depend on the decompositions' freedoms: eigenvectors enter as |v|²,
singular vectors through u·diag(f(s))·vh (invariant to the phase each column of u shares
with its row of vh); QR and LU are unique given LAPACK's conventions and enter as they are.
Complex results enter through their real and imaginary parts with real weights, so every
part of the rule is exercised (|det|² and re(det) + im(det), slogdet's sign's parts, ...).

Each case's inputs are [differentiated arguments..., weights...]; its outputs are [loss,
gradient per differentiated argument]. The `holo_` cases are `grad(holomorphic=True)` of
complex-valued sums of holomorphic functions of their first input (the others are constants). The case name says the function, the dtype, and which
inputs are differentiated (`_ab`: the first two, else the first).

Run: /root/.cache/systolic-jax-venv/bin/python scripts/complex_linalg_grad_goldens.py
Writes crates/systolic/tests/data/complex_linalg_grad_jax0.10.2.json.
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
rng = np.random.default_rng(2122)
S = jnp.sum
re, im = jnp.real, jnp.imag


def cnormal(shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def general(shape):
    m, n = shape[-2:]
    return cnormal(shape) + (2.0 * np.eye(m, n) if m == n else 0)


def hpd(shape):
    g = cnormal(shape)
    return g @ H(g) + shape[-1] * np.eye(shape[-1])


def herm(shape):
    """Hermitian with well separated eigenvalues."""
    n = shape[-1]
    q, _ = np.linalg.qr(cnormal(shape))
    w = np.arange(1, n + 1) * 1.5 - n * 0.6
    return (q * w[..., None, :]) @ H(q)


def lower_tri(shape):
    return np.tril(cnormal(shape) * 0.5 + 3.0 * np.eye(shape[-1]))


def weights(shape):
    return rng.uniform(0.5, 1.5, size=shape)


def parts(c, x):
    """Σ c·re(x) + Σ im(x): a real loss reading both parts of a complex result."""
    return S(c * re(x)) + S(im(x))


def eigh_loss(a, c):
    w, v = jnp.linalg.eigh(a)
    return S(w ** 2) + S(c * jnp.abs(v) ** 2)


def eigvalsh_loss(a, c):
    return S(c * jnp.linalg.eigvalsh(a))


def svd_loss(a, c):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return parts(c, (u * (s ** 2)[..., None, :]) @ vh) + S(s)


def svdvals_loss(a, c):
    return S(c * jnp.linalg.svd(a, compute_uv=False))


def qr_loss(mode):
    def f(a, cq, cr):
        q, r = jnp.linalg.qr(a, mode=mode)
        return S(cq * re(q)) + S(cr * im(r)) + S(im(q)) + S(re(r))
    return f


def qr_r_loss(a, cr):
    return parts(cr, jnp.linalg.qr(a, mode="r"))


def det_abs2_loss(a):
    d = jnp.linalg.det(a)
    return S(re(d * jnp.conj(d)))


def det_parts_loss(a):
    d = jnp.linalg.det(a)
    return S(re(d)) + S(im(d))


def slogdet_loss(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return S(logdet) + S(re(sign)) + S(im(sign))


def solve_loss(a, b, c):
    return parts(c, jnp.linalg.solve(a, b))


def inv_loss(a, c):
    return parts(c, jnp.linalg.inv(a))


def pinv_loss(a, c):
    return parts(c, jnp.linalg.pinv(a))


def lstsq_loss(a, b, c):
    x, resid, _, s = jnp.linalg.lstsq(a, b)
    return parts(c, x) + S(resid) + S(s)


def matrix_power_loss(k):
    return lambda a, c: parts(c, jnp.linalg.matrix_power(a, k))


def cholesky_loss(a, c):
    return parts(c, jnp.linalg.cholesky(a))


def norm_loss(ord):
    return lambda a, c: S(c * jnp.linalg.norm(a, ord, axis=(-2, -1)))


def lu_loss(a, cl, cu):
    lu = jsl.lu if a.ndim == 2 else jax.vmap(jsl.lu)
    _, l, u = lu(a)
    return parts(cl, l) + parts(cu, u)


def lu_solve_loss(trans):
    return lambda a, b, c: parts(c, jsl.lu_solve(jsl.lu_factor(a), b, trans=trans))


def cho_solve_loss(a, b, c):
    return parts(c, jsl.cho_solve(jsl.cho_factor(a, lower=False), b))


def solve_pos_loss(a, b, c):
    return parts(c, jsl.solve(a, b, assume_a="pos"))


def solve_triangular_loss(a, b, c):
    return parts(c, jsl.solve_triangular(a, b, trans="C", lower=True))


def expm_loss(a, c):
    return parts(c, jsl.expm(a))


def scipy_eigh_loss(a, c):
    w, v = jsl.eigh(a)
    return S(w ** 2) + S(c * jnp.abs(v) ** 2)


def record(name, loss, diff, consts, dtype):
    real = jnp.float32 if dtype == jnp.complex64 else jnp.float64
    diff = [jnp.asarray(np.asarray(x), dtype) for x in diff]
    consts = [jnp.asarray(np.asarray(x), real) for x in consts]
    value, grads = jax.value_and_grad(
        lambda *d: loss(*d, *consts), argnums=tuple(range(len(diff))))(*diff)
    cases.case(name, diff + consts, [value, *grads])


def both(name, loss, diff, consts):
    for dtype, tag in [(jnp.complex64, "c64"), (jnp.complex128, "c128")]:
        record(f"{name}_{tag}", loss, diff, consts, dtype)


for batch, btag in [((), ""), ((2,), "_batched")]:
    n = 4
    sq = batch + (n, n)
    tall = batch + (5, 3)
    wide = batch + (3, 5)
    rhs = batch + (n, 2)
    both(f"eigh{btag}", eigh_loss, [herm(sq)], [weights(sq)])
    both(f"eigvalsh{btag}", eigvalsh_loss, [herm(sq)], [weights(batch + (n,))])
    both(f"svd_tall{btag}", svd_loss, [general(tall)], [weights(tall)])
    both(f"svd_wide{btag}", svd_loss, [general(wide)], [weights(wide)])
    both(f"svd_square{btag}", svd_loss, [general(sq)], [weights(sq)])
    both(f"svdvals{btag}", svdvals_loss, [general(tall)], [weights(batch + (3,))])
    both(f"qr_reduced{btag}", qr_loss("reduced"), [general(tall)],
         [weights(tall), weights(batch + (3, 3))])
    both(f"qr_complete{btag}", qr_loss("complete"), [general(tall)],
         [weights(batch + (5, 5)), weights(tall)])
    both(f"qr_wide{btag}", qr_loss("reduced"), [general(wide)],
         [weights(batch + (3, 3)), weights(wide)])
    both(f"qr_r{btag}", qr_r_loss, [general(tall)], [weights(batch + (3, 3))])
    both(f"det_abs2{btag}", det_abs2_loss, [general(sq)], [])
    both(f"det_parts{btag}", det_parts_loss, [general(sq)], [])
    both(f"slogdet{btag}", slogdet_loss, [general(sq)], [])
    both(f"solve_ab{btag}", solve_loss, [general(sq), cnormal(rhs)], [weights(rhs)])
    both(f"inv{btag}", inv_loss, [general(sq)], [weights(sq)])
    both(f"pinv{btag}", pinv_loss, [general(tall)], [weights(batch + (3, 5))])
    both(f"pinv_wide{btag}", pinv_loss, [general(wide)], [weights(batch + (5, 3))])
    both(f"matrix_power3{btag}", matrix_power_loss(3), [general(sq) * 0.5], [weights(sq)])
    both(f"matrix_power_m2{btag}", matrix_power_loss(-2), [general(sq)], [weights(sq)])
    both(f"cholesky{btag}", cholesky_loss, [hpd(sq)], [weights(sq)])
    for tag, o in [("2", 2), ("m2", -2), ("nuc", "nuc"), ("fro", "fro")]:
        both(f"norm_{tag}{btag}", norm_loss(o), [general(tall)], [weights(batch)])
    both(f"scipy_lu{btag}", lu_loss, [general(sq)], [weights(sq), weights(sq)])
    for trans in [0, 1, 2]:
        both(f"scipy_lu_solve{trans}_ab{btag}", lu_solve_loss(trans), [general(sq), cnormal(rhs)],
             [weights(rhs)])
    both(f"scipy_cho_solve_ab{btag}", cho_solve_loss, [hpd(sq), cnormal(rhs)], [weights(rhs)])
    both(f"scipy_solve_pos_ab{btag}", solve_pos_loss, [hpd(sq), cnormal(rhs)], [weights(rhs)])
    both(f"scipy_solve_triangular_ab{btag}", solve_triangular_loss,
         [lower_tri(sq), cnormal(rhs)], [weights(rhs)])
    both(f"scipy_expm{btag}", expm_loss, [cnormal(sq) * 0.3], [weights(sq)])
    both(f"scipy_expm_large{btag}", expm_loss, [cnormal(sq) * 3.0], [weights(sq)])
    both(f"scipy_eigh{btag}", scipy_eigh_loss, [herm(sq)], [weights(sq)])

# grad(holomorphic=True) of complex-valued sums of holomorphic functions of a (the constants
# b are complex, the weights real): det, inv, solve, matrix_power, expm, lu_solve and a
# triangular solve.
def holo(name, f, a, consts):
    for dtype, tag in [(jnp.complex64, "c64"), (jnp.complex128, "c128")]:
        real = jnp.float32 if dtype == jnp.complex64 else jnp.float64
        x = jnp.asarray(a, dtype)
        cs = [jnp.asarray(c, dtype if np.iscomplexobj(c) else real) for c in consts]
        value, g = jax.value_and_grad(lambda x: f(x, *cs), holomorphic=True)(x)
        cases.case(f"holo_{name}_{tag}", [x, *cs], [value, g])


holo("det", lambda a: S(jnp.linalg.det(a)), general((4, 4)), [])
holo("det_batched", lambda a: S(jnp.linalg.det(a)), general((2, 4, 4)), [])
holo("inv", lambda a, c: S(c * jnp.linalg.inv(a)), general((4, 4)), [weights((4, 4))])
holo("solve", lambda a, b, c: S(c * jnp.linalg.solve(a, b)), general((4, 4)),
     [cnormal((4, 2)), weights((4, 2))])
holo("matrix_power3", lambda a, c: S(c * jnp.linalg.matrix_power(a, 3)), general((4, 4)) * 0.5,
     [weights((4, 4))])
holo("expm", lambda a, c: S(c * jsl.expm(a)), cnormal((4, 4)) * 0.3, [weights((4, 4))])
holo("lu_solve", lambda a, b: S(jsl.lu_solve(jsl.lu_factor(a), b)), general((4, 4)),
     [cnormal((4, 2))])
holo("solve_triangular", lambda a, b: S(jsl.solve_triangular(a, b, lower=True)),
     lower_tri((4, 4)), [cnormal((4, 2))])

# lstsq is 2-D only.
both("lstsq_ab", lstsq_loss, [general((6, 3)), cnormal((6, 2))], [weights((3, 2))])

cases.write(f"complex_linalg_grad_jax{jax.__version__}.json")
