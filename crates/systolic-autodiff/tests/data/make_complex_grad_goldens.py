"""Exports forward functions of complex values as StableHLO text with JAX's VJP and JVP values,
for the systolic-autodiff tests (run with the JAX venv:
`/root/.cache/systolic-jax-venv/bin/python make_complex_grad_goldens.py`).

Same case format as make_grad_goldens.py (complex data as [re, im] pairs). The cases check
JAX's conventions for complex derivatives: tangents of complex values are complex, transposes do
not conjugate (so the cotangent of a real loss of complex inputs is the conjugate of the
steepest-ascent direction, as `jax.grad` returns it), `real`/`imag`/`complex`/`conj`/`abs`
between the real and complex worlds, holomorphic functions, products, reductions, shape and
indexing ops, control flow, and every FFT type. Cases run in complex128/float64 (the tests also
check them against central finite differences) except a few complex64 ones."""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(21)
c128, c64, f64 = np.complex128, np.complex64, np.float64


def rand(*shape, dtype=f64, lo=-1.0, hi=1.0):
    if np.issubdtype(dtype, np.complexfloating):
        re = rng.uniform(lo, hi, size=shape)
        im = rng.uniform(lo, hi, size=shape)
        return (re + 1j * im).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def crand(*shape, dtype=c128):
    return rand(*shape, dtype=dtype)


def away(*shape, dtype=c128):
    """Complex values away from 0 and from the negative real axis (log's branch cut)."""
    r = rng.uniform(0.5, 2.0, size=shape)
    th = rng.uniform(-2.5, 2.5, size=shape)
    return (r * np.exp(1j * th)).astype(dtype)


CASES = {}


def case(name, *args, tol=None):
    def deco(f):
        CASES[name] = (f, args, tol)
        return f

    return deco


# ---- holomorphic elementwise functions (complex in, complex out)
for name, fn, gen in [
    ("c_neg", lambda x: -x, crand),
    ("c_exp", jnp.exp, crand),
    ("c_log", jnp.log, away),
    ("c_log1p", jnp.log1p, away),
    ("c_expm1", jnp.expm1, crand),
    ("c_sqrt", jnp.sqrt, away),
    ("c_rsqrt", lax.rsqrt, away),
    ("c_tanh", jnp.tanh, crand),
    ("c_sin", jnp.sin, crand),
    ("c_cos", jnp.cos, crand),
    ("c_tan", jnp.tan, crand),
    ("c_logistic", jax.nn.sigmoid, crand),
    ("c_square", jnp.square, crand),
    ("c_reciprocal", lambda x: 1.0 / x, away),
    ("c_integer_pow", lambda x: x**3, crand),
]:
    case(name, gen(3, 4))(fn)

for name, fn, gen in [
    ("c_add", lambda x, y: x + y, crand),
    ("c_sub", lambda x, y: x - y, crand),
    ("c_mul", lambda x, y: x * y, crand),
    ("c_div", lambda x, y: x / y, away),
    ("c_pow", lambda x, y: x**y, away),
]:
    case(name, gen(3, 4), gen(3, 4))(fn)

# ---- between the real and the complex worlds
case("c_real", crand(5))(jnp.real)
case("c_imag", crand(5))(jnp.imag)
case("c_conj", crand(5))(lambda z: jnp.conj(z) * z[::-1])
case("c_abs", away(5))(jnp.abs)
case("c_abs_at_zero", np.array([0.0, 1.0 + 1.0j, -2.0j], c128))(lambda z: jnp.abs(z) * 3.0)
case("c_angle", away(5))(jnp.angle)
case("c_complex", rand(4), rand(4))(lambda x, y: lax.complex(x, y) ** 2)
case("c_from_real", rand(4), crand(4))(lambda x, z: x.astype(c128) * z)
case("c_real_loss", crand(3, 4))(lambda z: jnp.sum(jnp.abs(z) ** 2))
case("c_real_loss_mixed", crand(3, 4), rand(3, 4))(
    lambda z, w: jnp.sum(jnp.real(z * z) * w + jnp.imag(jnp.exp(z)))
)
case("c_sign_times", away(4))(lambda z: jnp.sign(z) * z)
case("c_where", crand(6), rand(6))(lambda z, x: jnp.where(x > 0, z * z, jnp.conj(z)))
case("c_c64_loss", crand(8, dtype=c64), tol=1e-5)(lambda z: jnp.sum(jnp.abs(jnp.tanh(z))))
case("c_c64_to_c128", crand(4, dtype=c64), tol=1e-5)(lambda z: z.astype(c128) * (1 + 2j))

# ---- products and reductions
case("c_matmul", crand(3, 4), crand(4, 5))(lambda a, b: a @ b)
case("c_matvec_real", rand(3, 4), crand(4))(lambda a, v: a @ v)
case("c_einsum", crand(2, 3, 4), crand(2, 4, 3))(lambda a, b: jnp.einsum("bij,bjk->bik", a, b))
case("c_sum", crand(3, 4))(lambda z: jnp.sum(z * z, axis=1))
case("c_prod", away(3, 4))(lambda z: jnp.prod(z, axis=0))
case("c_cumsum", crand(6))(lambda z: jnp.cumsum(z * z))
case("c_mean_var", crand(5, 3))(lambda z: jnp.mean(z, axis=0) * jnp.var(jnp.real(z)))
case("c_vdot", crand(6), crand(6))(lambda a, b: jnp.vdot(a, b))
case("c_conv", crand(1, 7, 2), crand(3, 2, 2))(
    lambda x, k: lax.conv_general_dilated(x, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))
)

# ---- shape and indexing
case("c_transpose_reshape", crand(2, 3, 4))(lambda z: jnp.transpose(z, (2, 0, 1)).reshape(4, 6) * 2j)
case("c_concat_slice_pad", crand(3), crand(4))(
    lambda a, b: jnp.pad(jnp.concatenate([a, b])[1:6] * a[0], (2, 1))
)
case("c_broadcast_rev", crand(3))(lambda z: jnp.broadcast_to(z, (2, 3))[:, ::-1] * z)
case("c_gather", crand(5, 3), np.array([4, 0, 2, 2], np.int32))(lambda z, i: z[i] * z[i])
case("c_scatter_add", crand(5), crand(3), np.array([1, 1, 4], np.int32))(
    lambda z, u, i: z.at[i].add(u * u) * z
)
case("c_dynamic_update", crand(6), crand(2), np.array(3, np.int32))(
    lambda z, u, i: lax.dynamic_update_slice(z, u * z[:2], (i,)) * z
)

# ---- control flow
case("c_fori", crand(3))(lambda z: lax.fori_loop(0, 4, lambda i, c: c * c * 0.5 + z, z))
case("c_cond", crand(3), np.array(1, np.int32))(
    lambda z, p: lax.cond(p > 0, lambda z: jnp.exp(z), lambda z: z * z, z)
)
case("c_scan", crand(4), crand(5, 4))(
    lambda c0, xs: lax.scan(lambda c, x: (c * x + jnp.sin(c), jnp.real(c * x)), c0, xs)
)

# ---- FFT, every type, with lengths and norms
case("fft", crand(8))(jnp.fft.fft)
case("fft_batched_axis", crand(3, 6))(lambda z: jnp.fft.fft(z, axis=0) * z)
case("ifft", crand(8))(jnp.fft.ifft)
case("fft_n_pad_trim", crand(6))(lambda z: jnp.fft.fft(z, n=8) * jnp.fft.ifft(z, n=4)[0])
case("fft2_ortho", crand(4, 6))(lambda z: jnp.fft.fft2(z, norm="ortho"))
case("fftn_3d", crand(2, 3, 4))(lambda z: jnp.fft.fftn(z) * jnp.fft.ifftn(z))
case("rfft_even", rand(8))(jnp.fft.rfft)
case("rfft_odd", rand(7))(jnp.fft.rfft)
case("rfft2", rand(4, 6))(jnp.fft.rfft2)
case("rfftn_odd", rand(3, 5))(lambda x: jnp.fft.rfftn(x, norm="forward"))
case("irfft_even", crand(5))(jnp.fft.irfft)
case("irfft_odd", crand(5))(lambda z: jnp.fft.irfft(z, n=9))
case("irfft2", crand(4, 4))(lambda z: jnp.fft.irfft2(z))
case("irfftn_odd", crand(3, 3))(lambda z: jnp.fft.irfftn(z, s=(3, 5), norm="ortho"))
case("fft_loss", rand(16))(lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2))
case("fft_roundtrip", crand(4, 6))(lambda z: jnp.fft.ifft2(jnp.fft.fft2(z) * jnp.fft.fft2(z)))
case("rfft_c64", rand(16, dtype=np.float32), tol=1e-5)(
    lambda x: jnp.fft.irfft(jnp.fft.rfft(x) * (1 + 1j), n=16)
)


def encode(a):
    a = np.asarray(a)
    if np.iscomplexobj(a):
        data = [[float(z.real), float(z.imag)] for z in a.ravel()]
    else:
        data = a.ravel().tolist()
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": data}


def inexact(a):
    return jnp.issubdtype(np.asarray(a).dtype, jnp.inexact)


out = []
for name, (f, args, tol) in CASES.items():
    args = [np.asarray(a) for a in args]
    text = jax.jit(f).lower(*args).as_text()
    y, pull = jax.vjp(f, *args)
    ys = y if isinstance(y, (tuple, list)) else (y,)
    cts = [rand(*np.shape(o), dtype=np.asarray(o).dtype) for o in ys]
    grads = pull(tuple(cts) if isinstance(y, (tuple, list)) else cts[0])
    tangents = [
        rand(*a.shape, dtype=a.dtype) if inexact(a) else np.zeros(a.shape, jax.dtypes.float0)
        for a in args
    ]
    _, tout = jax.jvp(f, tuple(args), tuple(tangents))
    touts = tout if isinstance(tout, (tuple, list)) else (tout,)
    out.append(
        {
            "name": name,
            "mlir": text,
            "args": [encode(a) for a in args],
            "outputs": [encode(o) for o in ys],
            "cts": [encode(c) for c in cts],
            "grads": [encode(g) if inexact(a) else None for g, a in zip(grads, args)],
            "tangents": [encode(t) if inexact(a) else None for t, a in zip(tangents, args)],
            "tangent_outs": [encode(t) for t in touts],
            "tol": tol or 1e-9,
        }
    )

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "complex_grad_goldens.json")
with open(path, "w") as fh:
    json.dump(out, fh)
print(f"wrote {len(out)} cases to {path}")
