"""JAX 0.10.2 goldens for the front end's numpy.fft (crates/systolic/tests/np_fft_golden.rs):
every jnp.fft function with each norm and with n/s/axes cases, complex128 cases, fftfreq,
rfftfreq and the shifts, and jax.vmap of transforms and complex ops with the batch axis in
several places.

Each case records its inputs, JAX's outputs on CPU and, under "params", the call: the function
name and its n, axis, s, axes, norm, d and dtype arguments (and vmap_in, the batch axis, for a
vmapped call), so the Rust test rebuilds the call
from the data instead of from the case name.

    /root/.cache/systolic-jax-venv/bin/python scripts/fft_complex_ad_goldens.py

writes crates/systolic/tests/data/fft_jax0.10.2.json.
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates",
                                "systolic", "tests", "data"))
from golden_cases import Cases  # noqa: E402

cases = Cases()
rng = np.random.default_rng(21)


def real(*shape, dtype=np.float32):
    return jnp.asarray(rng.uniform(-2, 2, shape).astype(dtype))


def cplx(*shape, dtype=np.complex64):
    return jnp.asarray((rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype))


def case(name, inputs, out, **params):
    """A case whose params name the jnp.fft function and its arguments."""
    cases.case(name, inputs, out)
    cases[name]["params"] = params


NORMS = [None, "backward", "ortho", "forward"]


def norm_tag(norm):
    return "none" if norm is None else norm


# One-axis transforms: each norm, then n shorter and longer than the axis, and another axis.
ONE_AXIS = {
    "fft": (jnp.fft.fft, lambda: cplx(3, 8)),
    "ifft": (jnp.fft.ifft, lambda: cplx(3, 8)),
    "rfft": (jnp.fft.rfft, lambda: real(3, 8)),
    "irfft": (jnp.fft.irfft, lambda: cplx(3, 5)),
    "hfft": (jnp.fft.hfft, lambda: cplx(3, 5)),
    "ihfft": (jnp.fft.ihfft, lambda: real(3, 8)),
}
for fname, (f, make) in ONE_AXIS.items():
    for norm in NORMS:
        x = make()
        case(f"{fname}_{norm_tag(norm)}", [x], f(x, norm=norm), fn=fname, norm=norm)
    x = make()
    case(f"{fname}_n_short", [x], f(x, n=3), fn=fname, n=3)
    x = make()
    case(f"{fname}_n_long_ortho", [x], f(x, n=11, norm="ortho"), fn=fname, n=11, norm="ortho")
    x = make()
    case(f"{fname}_axis0", [x], f(x, axis=0), fn=fname, axis=0)
    x = make()
    case(f"{fname}_axis0_n4_forward", [x], f(x, n=4, axis=0, norm="forward"), fn=fname, n=4,
         axis=0, norm="forward")
x = real(2, 6)
case("fft_of_real", [x], jnp.fft.fft(x), fn="fft")
x = real(7)
case("irfft_of_real", [x], jnp.fft.irfft(x), fn="irfft")

# Two axes: each norm, s, and the axes given in another order.
TWO_AXES = {
    "fft2": (jnp.fft.fft2, lambda: cplx(2, 4, 6)),
    "ifft2": (jnp.fft.ifft2, lambda: cplx(2, 4, 6)),
    "rfft2": (jnp.fft.rfft2, lambda: real(2, 4, 6)),
    "irfft2": (jnp.fft.irfft2, lambda: cplx(2, 4, 4)),
}
for fname, (f, make) in TWO_AXES.items():
    for norm in NORMS:
        x = make()
        case(f"{fname}_{norm_tag(norm)}", [x], f(x, norm=norm), fn=fname, norm=norm)
    x = make()
    case(f"{fname}_s", [x], f(x, s=(3, 7)), fn=fname, s=[3, 7])
    x = make()
    case(f"{fname}_axes20_ortho", [x], f(x, axes=(2, 0), norm="ortho"), fn=fname, axes=[2, 0],
         norm="ortho")
    x = make()
    case(f"{fname}_axes_neg_s", [x], f(x, s=(5, 2), axes=(-1, -3)), fn=fname, s=[5, 2],
         axes=[-1, -3])

# n axes: all axes, chosen axes, s alone (the last axes), and four or five axes (a chain of
# stablehlo.fft ops, which take at most three).
N_AXES = {
    "fftn": (jnp.fft.fftn, lambda *s: cplx(*s)),
    "ifftn": (jnp.fft.ifftn, lambda *s: cplx(*s)),
    "rfftn": (jnp.fft.rfftn, lambda *s: real(*s)),
    "irfftn": (jnp.fft.irfftn, lambda *s: cplx(*s)),
}
for fname, (f, make) in N_AXES.items():
    for norm in NORMS:
        x = make(3, 4, 5)
        case(f"{fname}_{norm_tag(norm)}", [x], f(x, norm=norm), fn=fname, norm=norm)
    x = make(3, 4, 5)
    case(f"{fname}_axes10", [x], f(x, axes=(1, 0)), fn=fname, axes=[1, 0])
    x = make(3, 4, 5)
    case(f"{fname}_s_only", [x], f(x, s=(6, 3)), fn=fname, s=[6, 3])
    x = make(2, 3, 4, 5)
    case(f"{fname}_four_axes_ortho", [x], f(x, norm="ortho"), fn=fname, norm="ortho")
    x = make(2, 3, 2, 3, 4)
    case(f"{fname}_five_axes_s", [x], f(x, s=(2, 2, 3, 3, 4)), fn=fname, s=[2, 2, 3, 3, 4])
    x = make(4, 5)
    case(f"{fname}_one_axis", [x], f(x, axes=(0,)), fn=fname, axes=[0])

# complex128 / float64.
with jax.enable_x64(True):
    x = cplx(4, 9, dtype=np.complex128)
    case("c128_fft_ortho", [x], jnp.fft.fft(x, norm="ortho"), fn="fft", norm="ortho")
    x = real(4, 9, dtype=np.float64)
    case("c128_rfft_forward", [x], jnp.fft.rfft(x, norm="forward"), fn="rfft", norm="forward")
    x = cplx(3, 6, dtype=np.complex128)
    case("c128_irfft2_n", [x], jnp.fft.irfft2(x, s=(3, 9)), fn="irfft2", s=[3, 9])
    x = cplx(5, 4, dtype=np.complex128)
    case("c128_hfft_ortho", [x], jnp.fft.hfft(x, norm="ortho"), fn="hfft", norm="ortho")
    x = real(5, 7, dtype=np.float64)
    case("c128_ihfft", [x], jnp.fft.ihfft(x, n=6), fn="ihfft", n=6)
    x = cplx(2, 3, 4, 3, dtype=np.complex128)
    case("c128_ifftn_four_axes", [x], jnp.fft.ifftn(x), fn="ifftn")
    for n, d in [(8, 1.0), (7, 0.25)]:
        case(f"c128_fftfreq_{n}", [], jnp.fft.fftfreq(n, d, dtype=jnp.float64), fn="fftfreq",
             n=n, d=d, dtype="float64")
        case(f"c128_rfftfreq_{n}", [], jnp.fft.rfftfreq(n, d, dtype=jnp.float64), fn="rfftfreq",
             n=n, d=d, dtype="float64")

# Frequencies and shifts.
for n, d in [(1, 1.0), (8, 1.0), (9, 0.1), (10, 3.0)]:
    case(f"fftfreq_{n}", [], jnp.fft.fftfreq(n, d), fn="fftfreq", n=n, d=d)
    case(f"rfftfreq_{n}", [], jnp.fft.rfftfreq(n, d), fn="rfftfreq", n=n, d=d)
x = real(5, 6)
case("fftshift_all", [x], jnp.fft.fftshift(x), fn="fftshift")
case("ifftshift_all", [x], jnp.fft.ifftshift(x), fn="ifftshift")
x = cplx(3, 5, 4)
case("fftshift_axes", [x], jnp.fft.fftshift(x, axes=(0, -2)), fn="fftshift", axes=[0, -2])
case("ifftshift_axes", [x], jnp.fft.ifftshift(x, axes=(1,)), fn="ifftshift", axes=[1])

# A round trip through the shift and the frequencies, as spectra are plotted.
x = real(16)
case("spectrum_shifted", [x], jnp.fft.fftshift(jnp.abs(jnp.fft.fft(x, norm="ortho"))),
     fn="spectrum_shifted")

# vmap: batched transforms (the batch axis in front, in the middle and behind the transformed
# ones; stablehlo.fft transforms trailing axes, so a batch axis that is not leading has to move).
VMAPPED = [
    ("fft", jnp.fft.fft, {}, lambda: cplx(3, 4, 8), 0),
    ("ifft", jnp.fft.ifft, {"norm": "ortho"}, lambda: cplx(4, 3, 8), 1),
    ("rfft", jnp.fft.rfft, {"n": 6}, lambda: real(5, 7, 3), 2),
    ("irfft", jnp.fft.irfft, {"axis": 0}, lambda: cplx(5, 3, 4), 1),
    ("fft2", jnp.fft.fft2, {}, lambda: cplx(2, 4, 6), 0),
    ("rfftn", jnp.fft.rfftn, {"axes": [0, 1]}, lambda: real(4, 3, 6), 2),
    ("irfftn", jnp.fft.irfftn, {"norm": "forward"}, lambda: cplx(3, 4, 5), 1),
    ("hfft", jnp.fft.hfft, {}, lambda: cplx(3, 5), 0),
    ("fftshift", jnp.fft.fftshift, {}, lambda: real(3, 5, 4), 1),
]
for fname, f, kw, make, axis in VMAPPED:
    x = make()
    call = dict(kw)
    if "axes" in call:
        call["axes"] = tuple(call["axes"])
    case(f"vmap_{fname}_in{axis}", [x], jax.vmap(lambda a: f(a, **call), in_axes=axis)(x),
         fn=fname, vmap_in=axis, **kw)
x = cplx(4, 6)
case("vmap_complex_parts_in1", [x],
     jax.vmap(lambda z: jnp.abs(jnp.fft.fft(z * jnp.conj(z[::-1]))) + jnp.angle(z), in_axes=1)(x),
     fn="complex_parts", vmap_in=1)

cases.write(f"fft_jax{jax.__version__}.json")
