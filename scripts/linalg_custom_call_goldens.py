"""Exports jnp.linalg / jax.scipy.linalg programs as JAX lowers them on CPU (LAPACK custom calls).

Run with the JAX venv (JAX 0.10.2 on CPU):
    /root/.cache/systolic-jax-venv/bin/python scripts/linalg_custom_call_goldens.py
Writes crates/systolic-cpu/tests/data/linalg/<case>/ with `program.mlir`
(`jax.jit(f).lower(*args).as_text()`), the inputs `in<i>.npy` and JAX's outputs `out<i>.npy`,
and `manifest.json`: per case its dtype and the custom-call targets and `mhlo.backend_config`
keys it holds (so the test can check the list of targets a backend must implement). The tests
in crates/systolic-cpu/tests/linalg_custom_calls.rs read these files; they do not need JAX.
Cases cover float32 and float64 (x64 is enabled), unbatched and batched operands; the
complex cases (`COMPLEX_CASES`) complex64 and complex128, and the general eigenproblem
(`EIG_CASES`, `geev`) all four types.
"""
import json
import os
import pathlib
import re
import shutil

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/systolic-cpu/tests/data/linalg"
RNG = np.random.default_rng(21)


def general(*shape):
    """A well-conditioned general matrix (batch): random plus a diagonal shift."""
    a = RNG.standard_normal(shape)
    n = min(shape[-2:])
    a[..., range(n), range(n)] += 3.0
    return a


def spd(*shape):
    """A symmetric positive definite matrix (batch)."""
    a = RNG.standard_normal(shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def symmetric(*shape):
    a = RNG.standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def lower_tri(*shape):
    return np.tril(general(*shape))


def rect(*shape):
    return RNG.standard_normal(shape)


def c_general(*shape):
    """A well-conditioned complex general matrix (batch)."""
    return general(*shape) + 1j * RNG.standard_normal(shape)


def c_rect(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def c_hpd(*shape):
    """A Hermitian positive definite matrix (batch)."""
    a = c_rect(*shape)
    n = shape[-1]
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


def c_hermitian(*shape):
    a = c_rect(*shape)
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


# name -> (function, input makers). Each maker returns a float64 array; it is cast per dtype.
CASES = {
    "inv": (jnp.linalg.inv, [lambda: general(4, 4)]),
    "inv_batched": (jnp.linalg.inv, [lambda: general(2, 3, 3)]),
    "solve": (jnp.linalg.solve, [lambda: general(4, 4), lambda: rect(4, 2)]),
    "solve_batched": (lambda a, b: jnp.linalg.solve(a, b[..., None])[..., 0],
                      [lambda: general(3, 4, 4), lambda: rect(3, 4)]),
    "det": (jnp.linalg.det, [lambda: general(4, 4)]),
    "det_batched": (jnp.linalg.det, [lambda: general(3, 4, 4)]),
    "slogdet": (lambda a: tuple(jnp.linalg.slogdet(a)), [lambda: general(2, 4, 4)]),
    "cholesky": (jnp.linalg.cholesky, [lambda: spd(4, 4)]),
    "cholesky_batched": (jnp.linalg.cholesky, [lambda: spd(2, 3, 3)]),
    "qr_reduced": (lambda a: tuple(jnp.linalg.qr(a)), [lambda: rect(5, 3)]),
    "qr_complete": (lambda a: tuple(jnp.linalg.qr(a, mode="complete")), [lambda: rect(5, 3)]),
    "qr_wide_batched": (lambda a: tuple(jnp.linalg.qr(a)), [lambda: rect(2, 3, 5)]),
    "eigh": (lambda a: tuple(jnp.linalg.eigh(a)), [lambda: symmetric(4, 4)]),
    "eigh_batched": (lambda a: tuple(jnp.linalg.eigh(a)), [lambda: symmetric(2, 3, 3)]),
    "eigvalsh": (jnp.linalg.eigvalsh, [lambda: symmetric(5, 5)]),
    "svd_full": (lambda a: tuple(jnp.linalg.svd(a)), [lambda: rect(5, 3)]),
    "svd_reduced": (lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), [lambda: rect(3, 5)]),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [lambda: rect(4, 3)]),
    "svd_batched": (lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)),
                    [lambda: rect(2, 4, 3)]),
    "lstsq": (lambda a, b: jnp.linalg.lstsq(a, b)[0], [lambda: rect(6, 3), lambda: rect(6, 2)]),
    "pinv": (jnp.linalg.pinv, [lambda: rect(5, 3)]),
    "matrix_power": (lambda a: jnp.linalg.matrix_power(a, -3), [lambda: general(3, 3)]),
    "lu": (lambda a: tuple(jsl.lu(a)), [lambda: general(4, 4)]),
    "lu_batched_rect": (lambda a: tuple(jax.lax.linalg.lu(a)), [lambda: general(2, 5, 3)]),
    "lu_factor": (lambda a: tuple(jsl.lu_factor(a)), [lambda: general(4, 4)]),
    "lu_solve": (lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b),
                 [lambda: general(4, 4), lambda: rect(4, 3)]),
    "cho_solve": (lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b),
                  [lambda: spd(4, 4), lambda: rect(4, 2)]),
    "cho_factor_upper": (lambda a: jsl.cho_factor(a, lower=False)[0], [lambda: spd(3, 3)]),
    "solve_triangular": (lambda a, b: jsl.solve_triangular(a, b, lower=True),
                         [lambda: lower_tri(4, 4), lambda: rect(4, 2)]),
    "solve_triangular_trans": (lambda a, b: jsl.solve_triangular(a, b, trans=1, lower=False,
                                                                 unit_diagonal=True),
                               [lambda: np.triu(general(4, 4)), lambda: rect(4, 3)]),
    "solve_triangular_batched": (lambda a, b: jsl.solve_triangular(a, b, lower=True),
                                 [lambda: lower_tri(2, 3, 3), lambda: rect(2, 3, 2)]),
    "expm": (jsl.expm, [lambda: 0.3 * rect(4, 4)]),
}

# Complex versions (complex64 and complex128): `c`/`z` targets, `heevd`, `ungqr`, `trans_x = 'C'`.
COMPLEX_CASES = {
    "inv": (jnp.linalg.inv, [lambda: c_general(4, 4)]),
    "solve_batched": (lambda a, b: jnp.linalg.solve(a, b[..., None])[..., 0],
                      [lambda: c_general(2, 4, 4), lambda: c_rect(2, 4)]),
    "det": (jnp.linalg.det, [lambda: c_general(4, 4)]),
    "slogdet": (lambda a: tuple(jnp.linalg.slogdet(a)), [lambda: c_general(2, 3, 3)]),
    "cholesky": (jnp.linalg.cholesky, [lambda: c_hpd(4, 4)]),
    "qr_reduced": (lambda a: tuple(jnp.linalg.qr(a)), [lambda: c_rect(5, 3)]),
    "qr_complete_batched": (lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
                            [lambda: c_rect(2, 3, 4)]),
    "eigh": (lambda a: tuple(jnp.linalg.eigh(a)), [lambda: c_hermitian(4, 4)]),
    "eigvalsh_batched": (jnp.linalg.eigvalsh, [lambda: c_hermitian(2, 3, 3)]),
    "svd_full": (lambda a: tuple(jnp.linalg.svd(a)), [lambda: c_rect(4, 3)]),
    "svd_reduced_batched": (lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)),
                            [lambda: c_rect(2, 3, 5)]),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [lambda: c_rect(3, 4)]),
    "lu": (lambda a: tuple(jsl.lu(a)), [lambda: c_general(4, 4)]),
    "solve_triangular_conj": (lambda a, b: jsl.solve_triangular(a, b, trans=2, lower=True),
                              [lambda: np.tril(c_general(4, 4)), lambda: c_rect(4, 2)]),
    "pinv": (jnp.linalg.pinv, [lambda: c_rect(4, 3)]),
    "expm": (jsl.expm, [lambda: 0.3 * c_rect(3, 3)]),
}

# Reductions JAX reads the reflectors of: `gehrd` (Hessenberg, Q from `orgqr`), `sytrd`/`hetrd`.
REDUCTION_CASES = {
    "hessenberg": (lambda a: tuple(jsl.hessenberg(a, calc_q=True)), (4, 4)),
    "hessenberg_h_only": (lambda a: jsl.hessenberg(a), (5, 5)),
    "tridiagonal": (lambda a: tuple(jax.lax.linalg.tridiagonal(a)), (2, 4, 4)),
    "tridiagonal_upper": (lambda a: tuple(jax.lax.linalg.tridiagonal(a, lower=False)), (4, 4)),
}

# The Schur decomposition (`gees`): compared by its invariants, not entry by entry.
SCHUR_CASES = {
    "schur": (lambda a: tuple(jsl.schur(a)), (4, 4)),
    "schur_larger": (lambda a: tuple(jsl.schur(a)), (7, 7)),
}

# The general eigenproblem (`geev`), on real (`s`/`d`: complex results) and complex matrices.
EIG_CASES = {
    "eig": (lambda a: tuple(jnp.linalg.eig(a)), "general", (4, 4)),
    "eig_batched": (lambda a: tuple(jnp.linalg.eig(a)), "general", (2, 3, 3)),
    "eig_left": (lambda a: tuple(jax.lax.linalg.eig(a, compute_left_eigenvectors=True)),
                 "general", (4, 4)),
    "eigvals": (jnp.linalg.eigvals, "general", (5, 5)),
}

# The same functions lowered for TPUs (`lowering_platforms=("tpu",)`, no TPU needed): XLA's
# targets `Qr`, `ProductOfElementaryHouseholderReflectors`, `Eigh`, `LuDecomposition` and, for
# svd, JAX's QDWH iteration around them. The expected outputs are JAX's on CPU (a TPU's would
# differ by rounding and by the decompositions' freedoms, which the tests allow for).
TPU_CASES = {
    "qr": (lambda a: tuple(jnp.linalg.qr(a)), [lambda: rect(2, 5, 3)], False),
    "qr_complete": (lambda a: tuple(jnp.linalg.qr(a, mode="complete")), [lambda: rect(4, 3)],
                    False),
    "eigh": (lambda a: tuple(jnp.linalg.eigh(a)), [lambda: symmetric(2, 4, 4)], False),
    "eigvalsh": (jnp.linalg.eigvalsh, [lambda: symmetric(5, 5)], False),
    "lu": (lambda a: tuple(jax.lax.linalg.lu(a)), [lambda: general(2, 5, 3)], False),
    "inv": (jnp.linalg.inv, [lambda: general(4, 4)], False),
    "det": (jnp.linalg.det, [lambda: general(2, 4, 4)], False),
    "solve": (jnp.linalg.solve, [lambda: general(4, 4), lambda: rect(4, 2)], False),
    "svd": (lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), [lambda: rect(6, 4)], False),
    "qr_complex": (lambda a: tuple(jnp.linalg.qr(a)), [lambda: c_rect(4, 3)], True),
    "eigh_complex": (lambda a: tuple(jnp.linalg.eigh(a)), [lambda: c_hermitian(3, 3)], True),
}

TARGET = re.compile(r"stablehlo\.custom_call @(\w+)\(.*?mhlo\.backend_config = \{([^}]*)\}")


def all_cases():
    """(name, function, inputs as float64/complex128, dtypes) for every case."""
    for name, (f, makers) in CASES.items():
        yield name, f, [m() for m in makers], (np.float32, np.float64)
    for name, (f, makers) in COMPLEX_CASES.items():
        yield name, f, [m() for m in makers], (np.complex64, np.complex128)
    for name, (f, kind, shape) in EIG_CASES.items():
        # Matrices with both real and complex-conjugate eigenvalues, no repeated ones.
        yield name, f, [rect(*shape)], (np.float32, np.float64)
        yield name, f, [c_rect(*shape)], (np.complex64, np.complex128)


def reduction_cases():
    for name, (f, shape) in REDUCTION_CASES.items():
        yield name, f, [rect(*shape)], (np.float32, np.float64)
        yield name, f, [c_rect(*shape)], (np.complex64, np.complex128)


def schur_cases():
    for name, (f, shape) in SCHUR_CASES.items():
        yield name, f, [rect(*shape)], (np.float32, np.float64)
        yield name, f, [c_rect(*shape)], (np.complex64, np.complex128)


def tpu_cases():
    """(name, function, inputs, dtypes) for the programs lowered for TPUs."""
    for name, (f, makers, complex_) in TPU_CASES.items():
        dtypes = (np.complex64, np.complex128) if complex_ else (np.float32, np.float64)
        yield name.replace("_complex", "") + "_tpu", f, [m() for m in makers], dtypes


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    manifest = {}
    cases = ([(c, False) for c in all_cases()] + [(c, False) for c in reduction_cases()]
             + [(c, True) for c in tpu_cases()] + [(c, False) for c in schur_cases()])
    for (name, f, base, dtypes), tpu in cases:
        for dtype in dtypes:
            case = f"{name}_{np.dtype(dtype).name[0]}{np.dtype(dtype).itemsize * 8}"
            args = [jnp.asarray(a.astype(dtype)) for a in base]
            if tpu:
                text = jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",)).as_text()
            else:
                text = jax.jit(f).lower(*args).as_text()
            outs = jax.jit(f)(*args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            d = OUT / case
            d.mkdir()
            (d / "program.mlir").write_text(text)
            for i, a in enumerate(args):
                np.save(d / f"in{i}.npy", np.asarray(a))
            for i, r in enumerate(outs):
                np.save(d / f"out{i}.npy", np.asarray(r))
            calls = sorted({(t, ", ".join(sorted(k.split(" = ")[0].strip()
                                                for k in cfg.split(",") if k.strip())))
                            for t, cfg in TARGET.findall(text)})
            targets = sorted(set(re.findall(r"stablehlo\.custom_call @(\w+)", text)))
            manifest[case] = {"targets": targets,
                              "backend_config_keys": {t: k for t, k in calls}}
            print(case, targets)
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
