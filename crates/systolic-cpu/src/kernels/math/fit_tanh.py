"""Near-minimax fit of P(z), z = a^2, so that a + a*z*P(z) ~ tanh(a) on [0, T] with the
smallest max relative error (Lawson's iteratively reweighted least squares on a dense grid,
reference values in numpy's long double). Made the coefficients of `hyperbolic.rs`:

    python3 fit_tanh.py 0.875 6    # T, degree of P; prints the error and the f32 coefficients
"""
import sys
import numpy as np
T = float(sys.argv[1]); deg = int(sys.argv[2])
L = np.longdouble
a = np.linspace(L(1e-4), L(T), 20001, dtype=L)
z = a * a
t = np.tanh(a)
g = (t - a) / (a * z)          # target for P
w = a * z / t                  # result-relative weight of an error in P
V = np.vander(z.astype(np.float64), deg + 1, increasing=True)
lw = np.ones(len(z)) / len(z)
for it in range(400):
    W = np.sqrt(lw) * w.astype(np.float64)
    c, *_ = np.linalg.lstsq(V * W[:, None], (g * W).astype(np.float64), rcond=None)
    err = np.abs(((V.astype(L) @ c.astype(L)) - g) * w).astype(np.float64)
    lw = lw * err
    lw /= lw.sum()
c32 = c.astype(np.float32)
err32 = np.max(np.abs(((V.astype(L) @ c32.astype(L)) - g) * w))
print(f"T={T} deg={deg} max rel err {float(np.max(err)):.3e} (f32 coefs {float(err32):.3e}) = {float(err32)*2**24:.3f} ulp-ish")
print("[" + ", ".join(f"f32::from_bits(0x{v.view(np.uint32):08x})" for v in c32) + "]")
print("[" + ", ".join(repr(float(v)) for v in c32) + "]")
