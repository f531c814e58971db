"""Second-derivative goldens of jnp.linalg and jax.scipy.linalg (crates/systolic/tests/
linalg_hessian.rs): for each function the scalar loss of scripts/linalg_grad_goldens.py (real
matrices) or scripts/complex_linalg_grad_goldens.py (complex ones, a real loss), recorded with
its value, its gradients and a Hessian-vector product: `jax.jvp(jax.grad(loss), x, d)`, the
derivative of the gradient along a random direction `d` (forward over reverse, as
`jax.hessian` is; cheaper than the whole Hessian, and any single entry of a wrong Hessian
shows in it).

The losses do not depend on the decompositions' freedoms (eigenvector and singular vector
signs or phases enter squared or in pairs; QR and LU are deterministic), so neither do their
derivatives of any order. float64 for every function, one batched case each, complex128 for
most (the loss real, `holomorphic=False`), and float32 for a few.

Each case's inputs are [differentiated arguments..., weights..., directions (one per
differentiated argument)]; its outputs are [loss, gradient per differentiated argument,
Hessian-vector product per differentiated argument]. The case names are those of the
first-order scripts (`_ab`: the first two inputs are differentiated, else the first; then
`_batched`, then the dtype), so the Rust test reuses their losses.

`jnp.linalg.eigvals` has no second derivative in JAX (its rule computes eigenvectors, which
have none); `eigvals_hessian_is_refused` records that JAX refuses it, and the Rust side must
refuse too.

`jax.scipy.linalg.solve(assume_a="pos")` is recorded along a symmetric (Hermitian) direction
only: see the Rust test's comment.

Run: /root/.cache/systolic-jax-venv/bin/python scripts/linalg_hessian_goldens.py
Writes crates/systolic/tests/data/linalg_hessian_jax0.10.2.json.
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
rng = np.random.default_rng(4242)
S = jnp.sum
re, im = jnp.real, jnp.imag
COMPLEX = (jnp.complex64, jnp.complex128)


def normal(shape, cplx):
    x = rng.normal(size=shape)
    return x + 1j * rng.normal(size=shape) if cplx else x


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def general(shape, cplx):
    m, n = shape[-2:]
    return normal(shape, cplx) + (2.0 * np.eye(m, n) if m == n else 0)


def pd(shape, cplx):
    g = normal(shape, cplx)
    return g @ H(g) + shape[-1] * np.eye(shape[-1])


def sym(shape, cplx):
    """Symmetric (Hermitian) with well separated eigenvalues."""
    n = shape[-1]
    q, _ = np.linalg.qr(normal(shape, cplx))
    w = np.arange(1, n + 1) * 1.5 - n * 0.6
    return (q * w[..., None, :]) @ H(q)


def weights(shape):
    return rng.uniform(0.5, 1.5, size=shape)


def parts(c, x):
    """Σ c·x for real x; Σ c·re(x) + Σ im(x) for complex x (every part of the rule read)."""
    if jnp.iscomplexobj(x):
        return S(c * re(x)) + S(im(x))
    return S(c * x)


def sq(v):
    return jnp.abs(v) ** 2


# The losses of the first-order scripts, one definition for real and complex matrices (for
# real ones `parts` and `sq` are the real scripts' `S(c * x)` and `x ** 2`).
def eigh_loss(a, c):
    w, v = jnp.linalg.eigh(a)
    return S(w ** 2) + S(c * sq(v))


def eigvalsh_loss(a, c):
    return S(c * jnp.linalg.eigvalsh(a))


def svd_real_loss(a, c):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return S(c * ((u * s[..., None, :] ** 2) @ vh)) + S(s)


def svd_complex_loss(a, c):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return parts(c, (u * (s ** 2)[..., None, :]) @ vh) + S(s)


def svd_square_full_loss(a, c):
    u, s, vh = jnp.linalg.svd(a, full_matrices=True)
    return S(c * ((u * jnp.sin(s)[..., None, :]) @ vh))


def svdvals_loss(a, c):
    return S(jnp.linalg.svd(a, compute_uv=False) * c)


def qr_real_loss(mode):
    def f(a, cq, cr):
        q, r = jnp.linalg.qr(a, mode=mode)
        return S(cq * q) + S(cr * r)
    return f


def qr_complex_loss(mode):
    def f(a, cq, cr):
        q, r = jnp.linalg.qr(a, mode=mode)
        return S(cq * re(q)) + S(cr * im(r)) + S(im(q)) + S(re(r))
    return f


def qr_r_loss(a, cr):
    return parts(cr, jnp.linalg.qr(a, mode="r"))


def det_loss(a):
    return S(jnp.linalg.det(a))


def det_abs2_loss(a):
    d = jnp.linalg.det(a)
    return S(re(d * jnp.conj(d)))


def slogdet_real_loss(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return S(logdet) + S(sign)


def slogdet_complex_loss(a):
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


def lu_real_loss(a, cl, cu):
    lu = jsl.lu if a.ndim == 2 else jax.vmap(jsl.lu)
    p, l, u = lu(a)
    return S(cl * l) + S(cu * u) + S(p)


def lu_complex_loss(a, cl, cu):
    lu = jsl.lu if a.ndim == 2 else jax.vmap(jsl.lu)
    _, l, u = lu(a)
    return parts(cl, l) + parts(cu, u)


def lu_solve_loss(a, b, c):
    return parts(c, jsl.lu_solve(jsl.lu_factor(a), b))


def cho_solve_loss(a, b, c):
    return parts(c, jsl.cho_solve(jsl.cho_factor(a, lower=False), b))


def solve_pos_loss(a, b, c):
    return parts(c, jsl.solve(a, b, assume_a="pos"))


def expm_loss(a, c):
    return parts(c, jsl.expm(a))


def scipy_eigh_loss(a, c):
    w, v = jsl.eigh(a)
    return S(w ** 2) + S(c * sq(v))


def tag_of(dtype):
    return {jnp.float32: "f32", jnp.float64: "f64", jnp.complex64: "c64",
            jnp.complex128: "c128"}[dtype]


def record(name, loss, diff, consts, dtype, symmetric_dir=False):
    """Records `loss(*diff, *consts)`, its gradients and `jvp(grad(loss))` along random
    directions (symmetric/Hermitian ones with `symmetric_dir`)."""
    cplx = dtype in COMPLEX
    real = jnp.float32 if dtype in (jnp.float32, jnp.complex64) else jnp.float64
    diff_v = [jnp.asarray(np.asarray(x), dtype) for x in diff]
    consts_v = [jnp.asarray(np.asarray(x), real) for x in consts]
    dirs = []
    for i, x in enumerate(diff):
        d = normal(np.shape(x), cplx)
        if symmetric_dir and i == 0:
            d = 0.5 * (d + H(d))
        dirs.append(jnp.asarray(d, dtype))

    def f(*d):
        return loss(*d, *consts_v)

    argnums = tuple(range(len(diff_v)))
    value = f(*diff_v)
    grads, hvp = jax.jvp(lambda *d: jax.grad(f, argnums=argnums)(*d), tuple(diff_v),
                         tuple(dirs))
    cases.case(f"{name}_{tag_of(dtype)}", diff_v + consts_v + dirs, [value, *grads, *hvp])


def each(name, real_loss, complex_loss, make, consts, dtypes, symmetric_dir=False):
    """One case per dtype; `make(cplx)` gives the differentiated inputs (fresh per dtype)."""
    for dtype in dtypes:
        cplx = dtype in COMPLEX
        loss = complex_loss if cplx else real_loss
        if loss is None:
            continue
        record(name, loss, make(cplx), consts, dtype, symmetric_dir)


R64 = [jnp.float64]
ALL = [jnp.float64, jnp.complex128]

for batch, btag in [((), ""), ((2,), "_batched")]:
    n = 4
    sq_ = batch + (n, n)
    tall = batch + (5, 3)
    wide = batch + (3, 5)
    rhs = batch + (n, 2)
    each(f"eigh{btag}", eigh_loss, eigh_loss, lambda c: [sym(sq_, c)], [weights(sq_)],
         ALL + ([jnp.float32] if not batch else []))
    each(f"eigvalsh{btag}", eigvalsh_loss, eigvalsh_loss, lambda c: [sym(sq_, c)],
         [weights(batch + (n,))], ALL)
    each(f"svd_tall{btag}", svd_real_loss, svd_complex_loss, lambda c: [general(tall, c)],
         [weights(tall)], ALL)
    each(f"svd_wide{btag}", svd_real_loss, svd_complex_loss, lambda c: [general(wide, c)],
         [weights(wide)], ALL)
    each(f"svd_square_full{btag}", svd_square_full_loss, None, lambda c: [general(sq_, c)],
         [weights(sq_)], R64)
    each(f"svd_square{btag}", None, svd_complex_loss, lambda c: [general(sq_, c)],
         [weights(sq_)], [jnp.complex128])
    each(f"svdvals{btag}", svdvals_loss, svdvals_loss, lambda c: [general(tall, c)],
         [weights(batch + (3,))], ALL)
    for mode, shape, cq, cr in [("reduced", tall, tall, batch + (3, 3)),
                                ("complete", tall, batch + (5, 5), tall),
                                ("wide", wide, batch + (3, 3), wide)]:
        m = "reduced" if mode == "wide" else mode
        each(f"qr_{mode}{btag}", qr_real_loss(m), qr_complex_loss(m),
             lambda c: [general(shape, c)], [weights(cq), weights(cr)], ALL)
    each(f"qr_r{btag}", qr_r_loss, qr_r_loss, lambda c: [general(tall, c)],
         [weights(batch + (3, 3))], ALL)
    each(f"det{btag}", det_loss, None, lambda c: [general(sq_, c)], [], R64)
    each(f"det_abs2{btag}", None, det_abs2_loss, lambda c: [general(sq_, c)], [],
         [jnp.complex128])
    each(f"slogdet{btag}", slogdet_real_loss, slogdet_complex_loss,
         lambda c: [general(sq_, c)], [], ALL)
    each(f"solve_ab{btag}", solve_loss, solve_loss,
         lambda c: [general(sq_, c), normal(rhs, c)], [weights(rhs)],
         ALL + ([jnp.float32] if not batch else []))
    each(f"inv{btag}", inv_loss, inv_loss, lambda c: [general(sq_, c)], [weights(sq_)], ALL)
    each(f"pinv{btag}", pinv_loss, pinv_loss, lambda c: [general(tall, c)],
         [weights(batch + (3, 5))], ALL)
    each(f"pinv_wide{btag}", pinv_loss, pinv_loss, lambda c: [general(wide, c)],
         [weights(batch + (5, 3))], ALL)
    each(f"matrix_power_m2{btag}", matrix_power_loss(-2), matrix_power_loss(-2),
         lambda c: [general(sq_, c)], [weights(sq_)], ALL)
    each(f"scipy_lu{btag}", lu_real_loss, lu_complex_loss, lambda c: [general(sq_, c)],
         [weights(sq_), weights(sq_)], ALL)
    each(f"scipy_lu_solve_ab{btag}", lu_solve_loss, None,
         lambda c: [general(sq_, c), normal(rhs, c)], [weights(rhs)], R64)
    each(f"scipy_lu_solve0_ab{btag}", None, lu_solve_loss,
         lambda c: [general(sq_, c), normal(rhs, c)], [weights(rhs)], [jnp.complex128])
    each(f"scipy_cho_solve_ab{btag}", cho_solve_loss, cho_solve_loss,
         lambda c: [pd(sq_, c), normal(rhs, c)], [weights(rhs)], ALL)
    each(f"scipy_solve_pos_ab{btag}", solve_pos_loss, None,
         lambda c: [pd(sq_, c), normal(rhs, c)], [weights(rhs)], R64, symmetric_dir=True)
    each(f"scipy_expm{btag}", expm_loss, expm_loss, lambda c: [normal(sq_, c) * 0.3],
         [weights(sq_)], ALL)
    each(f"scipy_expm_large{btag}", expm_loss, None, lambda c: [normal(sq_, c) * 3.0],
         [weights(sq_)], R64)
    each(f"scipy_eigh{btag}", scipy_eigh_loss, scipy_eigh_loss, lambda c: [sym(sq_, c)],
         [weights(sq_)], ALL)

# lstsq is 2-D only.
each("lstsq_ab", lstsq_loss, lstsq_loss, lambda c: [general((6, 3), c), normal((6, 2), c)],
     [weights((3, 2))], ALL)

# JAX has no second derivative of eigvals: its rule computes eigenvectors, which have none.
try:
    a = jnp.asarray(general((3, 3), False))
    jax.hessian(lambda a: S(re(jnp.linalg.eigvals(a))))(a)
    refused = False
except NotImplementedError:
    refused = True
assert refused, "JAX differentiates eigvals twice now: record it"
cases.case("eigvals_hessian_is_refused", [a], [jnp.asarray(refused)])

cases.write(f"linalg_hessian_jax{jax.__version__}.json")
