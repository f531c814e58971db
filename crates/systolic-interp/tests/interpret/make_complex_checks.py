"""Writes complex.mlir: interpreter tests (the upstream `check.expect_*` format) of every op on
complex numbers and of `stablehlo.fft`, with expected values from numpy in complex128 (an
implementation independent of the interpreter's `num_complex`/`rustfft`).

Run from the repository root with any Python that has numpy (the JAX venv has):
    $PY crates/systolic-interp/tests/interpret/make_complex_checks.py
(numpy 2 of the JAX 0.10.2 venv wrote the committed file.)
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PART = {"c64": "f32", "c128": "f64"}
NP = {"c64": np.complex64, "c128": np.complex128, "f32": np.float32, "f64": np.float64,
      "i32": np.int32, "i1": np.bool_}


def mlir_type(shape, dtype):
    element = f"complex<{PART[dtype]}>" if dtype in PART else dtype
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def number(x):
    x = float(x)
    if np.isnan(x):
        return "0x7FF8000000000000"
    if np.isinf(x):
        return "0x7FF0000000000000" if x > 0 else "0xFFF0000000000000"
    return repr(x)


def element(v, dtype):
    if dtype in PART:
        return f"({number(v.real)}, {number(v.imag)})"
    if dtype == "i1":
        return "true" if v else "false"
    if dtype.startswith("i"):
        return str(int(v))
    return number(v)


def dense(a, dtype):
    a = np.asarray(a)

    def nested(x):
        if x.ndim == 0:
            return element(x[()], dtype)
        return "[" + ", ".join(nested(s) for s in x) + "]"

    return f"dense<{nested(a)}> : {mlir_type(a.shape, dtype)}"


def tolerance(want, dtype):
    """Absolute tolerance: a few ulp of the part type, relative to the largest magnitude."""
    eps = 2e-6 if dtype in ("c64", "f32") else 1e-12
    finite = np.abs(np.asarray(want, np.complex128))
    finite = finite[np.isfinite(finite)]
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return f"{eps * scale:.3e}"


pieces = []


def case(name, operands, body, result, result_dtype, exact=False):
    """One function: constants for `operands` [(array, dtype)], the op lines in `body` (using
    %a, %b, … and ending in %r), and a check of %r against `result`."""
    lines = [f"func.func @{name}() {{"]
    for i, (a, dtype) in enumerate(operands):
        lines.append(f"  %{'abcd'[i]} = stablehlo.constant {dense(a, dtype)}")
    lines += ["  " + line for line in body]
    want = dense(result, result_dtype)
    if exact:
        lines.append(f"  check.expect_eq_const %r, {want}")
    else:
        lines.append(
            f"  check.expect_almost_eq_const %r, {want}, tolerance = {tolerance(result, result_dtype)}"
        )
    lines += ["  func.return", "}"]
    pieces.append("\n".join(lines))


Z = np.array([1.5 + 2.5j, -0.75 + 0.5j, 3.0 - 4.0j, -2.0 - 0.125j])
W = np.array([0.5 - 1.5j, 2.0 + 0.25j, -1.0 + 1.0j, 0.25 + 3.0j])
SMALL = np.array([1e-20 + 1e-20j, -3e-9 + 2e-9j, 0.5 + 0.25j, -0.25 - 0.5j])

UNARY = {
    "exponential": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda z: 1 / np.sqrt(z),
    "sine": np.sin, "cosine": np.cos, "tan": np.tan, "tanh": np.tanh, "negate": np.negative,
    "sign": lambda z: z / np.abs(z), "logistic": lambda z: 1 / (1 + np.exp(-z)),
    "cbrt": lambda z: z ** (1 / 3),
}
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
          "power": np.power}

for dtype in ("c64", "c128"):
    z, w = Z.astype(NP[dtype]), W.astype(NP[dtype])
    t = mlir_type(z.shape, dtype)
    for op, f in UNARY.items():
        want = f(z.astype(np.complex128))
        case(f"{op}_{dtype}", [(z, dtype)], [f"%r = stablehlo.{op} %a : {t}"], want, dtype)
    small = SMALL.astype(NP[dtype])
    for op, f in {"log_plus_one": np.log1p, "exponential_minus_one": np.expm1}.items():
        want = f(small.astype(np.complex128))
        case(f"{op}_small_{dtype}", [(small, dtype)], [f"%r = stablehlo.{op} %a : {t}"],
             want, dtype)
    for op, f in BINARY.items():
        want = f(z.astype(np.complex128), w.astype(np.complex128))
        case(f"{op}_{dtype}", [(z, dtype), (w, dtype)],
             [f"%r = stablehlo.{op} %a, %b : {t}"], want, dtype)
    part_t = mlir_type(z.shape, PART[dtype])
    for op, f in {"real": np.real, "imag": np.imag, "abs": np.abs}.items():
        case(f"{op}_{dtype}", [(z, dtype)], [f"%r = stablehlo.{op} %a : ({t}) -> {part_t}"],
             f(z.astype(np.complex128)), PART[dtype])
    case(f"complex_{dtype}", [(z.real, PART[dtype]), (z.imag, PART[dtype])],
         [f"%r = stablehlo.complex %a, %b : {t}"], z, dtype, exact=True)
    # Lexicographic order on (real, imaginary).
    p = np.array([1 + 5j, 1 + 1j, 2 + 0j, -0.0 + 3j]).astype(NP[dtype])
    q = np.array([2 + 0j, 1 + 2j, 2 + 0j, 0.0 + 3j]).astype(NP[dtype])
    bool_t = mlir_type(p.shape, "i1")
    for direction, want in {"LT": [True, True, False, False], "EQ": [False, False, True, True],
                            "GE": [False, False, True, True]}.items():
        case(f"compare_{direction.lower()}_{dtype}", [(p, dtype), (q, dtype)],
             [f"%r = stablehlo.compare {direction}, %a, %b, FLOAT : ({t}, {t}) -> {bool_t}"],
             np.array(want), "i1", exact=True)
    case(f"maximum_{dtype}", [(p, dtype), (q, dtype)], [f"%r = stablehlo.maximum %a, %b : {t}"],
         np.array([2 + 0j, 1 + 2j, 2 + 0j, -0.0 + 3j]), dtype, exact=True)
    # Conversions: real → complex (imaginary 0), complex → real (the real part).
    i32 = np.array([3, -7, 0, 100], np.int32)
    case(f"convert_i32_to_{dtype}", [(i32, "i32")],
         [f"%r = stablehlo.convert %a : ({mlir_type(i32.shape, 'i32')}) -> {t}"],
         i32.astype(np.complex128), dtype, exact=True)
    case(f"convert_{dtype}_to_i32", [(z, dtype)],
         [f"%r = stablehlo.convert %a : ({t}) -> {mlir_type(z.shape, 'i32')}"],
         np.trunc(z.real).astype(np.int32), "i32", exact=True)
    # Sums and products.
    m = np.array([[1 + 1j, 2 - 1j, 0.5j], [-1 + 0j, 3 + 2j, 1 - 1j]]).astype(NP[dtype])
    n = np.array([[2 + 0j, 1j], [1 - 1j, -1 + 0.5j], [0.25 + 0j, 2 + 2j]]).astype(NP[dtype])
    mt, nt, rt = mlir_type(m.shape, dtype), mlir_type(n.shape, dtype), mlir_type((2, 2), dtype)
    case(f"dot_general_{dtype}", [(m, dtype), (n, dtype)],
         [f"%r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ({mt}, {nt}) -> {rt}"],
         m.astype(np.complex128) @ n.astype(np.complex128), dtype)
    zero = mlir_type((), dtype)
    row_t = mlir_type((2,), dtype)
    case(f"reduce_add_{dtype}", [(m, dtype), (np.zeros((), NP[dtype]), dtype)], [
        f"%r = stablehlo.reduce(%a init: %b) applies stablehlo.add across dimensions = [1] : ({mt}, {zero}) -> {row_t}",
    ], m.astype(np.complex128).sum(axis=1), dtype)

# Transforms: numpy's pocketfft in complex128 as the reference.
rng = np.random.default_rng(7)


def signal(shape, dtype):
    x = rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
    return x.astype(NP[dtype])


for dtype in ("c64", "c128"):
    part = PART[dtype]
    for shape, axes in [((6,), 1), ((3, 5), 1), ((4, 6), 2), ((2, 3, 4), 3), ((2, 7, 2, 3), 2)]:
        lengths = list(shape[len(shape) - axes:])
        dims = tuple(range(len(shape) - axes, len(shape)))
        x = signal(shape, dtype)
        t = mlir_type(shape, dtype)
        tag = "x".join(map(str, shape)) + f"_{axes}d_{dtype}"
        for kind, f in (("FFT", np.fft.fftn), ("IFFT", np.fft.ifftn)):
            case(f"{kind.lower()}_{tag}", [(x, dtype)],
                 [f"%r = stablehlo.fft %a, type = {kind}, length = {lengths} : ({t}) -> {t}"],
                 f(x.astype(np.complex128), axes=dims), dtype)
        real = x.real.astype(NP[part])
        half = list(shape[:-1]) + [shape[-1] // 2 + 1]
        spectrum = np.fft.rfftn(real.astype(np.float64), axes=dims)
        case(f"rfft_{tag}", [(real, part)],
             [f"%r = stablehlo.fft %a, type = RFFT, length = {lengths} : "
              f"({mlir_type(shape, part)}) -> {mlir_type(half, dtype)}"], spectrum, dtype)
        # IRFFT of a spectrum whose zero and Nyquist bins carry imaginary parts (which it
        # ignores, as pocketfft does).
        y = signal(half, dtype)
        case(f"irfft_{tag}", [(y, dtype)],
             [f"%r = stablehlo.fft %a, type = IRFFT, length = {lengths} : "
              f"({mlir_type(half, dtype)}) -> {mlir_type(shape, part)}"],
             np.fft.irfftn(y.astype(np.complex128), s=lengths, axes=dims), part)

header = """// Complex numbers and stablehlo.fft. Written by make_complex_checks.py (expected values from
// numpy in complex128); do not edit by hand.

"""
with open(os.path.join(HERE, "complex.mlir"), "w") as out:
    out.write(header + "\n\n// -----\n\n".join(pieces) + "\n")
print(f"wrote {len(pieces)} functions")
