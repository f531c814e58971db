#!/usr/bin/env python3
"""Exports the JAX golden programs the `systolic` CLI tests run.

Run with the JAX venv (re-runnable and deterministic; it rewrites the folders it owns):

    /root/.cache/systolic-jax-venv/bin/python scripts/export_goldens.py

For each program it writes crates/systolic-cli/tests/data/<name>/ with
  module.mlir   -- jax.jit(f).lower(*args).as_text()
  in0.npy ...   -- the inputs (np.save; bf16 is saved as ml_dtypes writes it, descr '<V2')
  out0.npy ...  -- JAX's outputs on CPU, flattened in the order the module returns them
  meta.json     -- JAX version, tolerances for float outputs and why

and tour_mlp/ with the full-size MLP (784-1024-1024-10) module only (no data: its weights would
be 7 MB), plus the checksum of its outputs on the inputs the tour generates (see tour_input).
"""

import json
import math
import pathlib
import shutil

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "crates" / "systolic-cli" / "tests" / "data"

# JAX's own test tolerances (atol = rtol) per float dtype.
JAX_TOL = {"float32": 1e-6, "bfloat16": 1e-2, "float16": 1e-3, "float64": 1e-15}


def rng(seed):
    return np.random.RandomState(seed)


def normal(r, shape, dtype=np.float32, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(dtype)


def export(name, f, args, tol=None, why="JAX's f32 test tolerance", platform=None):
    """Lowers f, runs it, and saves the folder of one program.

    tol: (rtol, atol) for f32/f64 outputs; None means JAX's per-dtype default (1e-6 for f32).
    platform: lower for this platform instead of CPU (for ops whose CPU lowering is a LAPACK
    custom call; the numbers still come from the CPU run, which computes the same function).
    """
    folder = DATA / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    jitted = jax.jit(f)
    if platform is None:
        text = jitted.lower(*args).as_text()
    else:
        text = jitted.trace(*args).lower(lowering_platforms=(platform,)).as_text()
    (folder / "module.mlir").write_text(text)
    outs = jax.tree_util.tree_leaves(jitted(*args))
    inputs, outputs = [], []
    for i, a in enumerate(args):
        a = np.asarray(a)
        np.save(folder / f"in{i}.npy", a)
        inputs.append({"file": f"in{i}.npy", "shape": list(a.shape), "dtype": str(a.dtype)})
    for i, o in enumerate(outs):
        o = np.asarray(o)
        np.save(folder / f"out{i}.npy", o)
        outputs.append({"file": f"out{i}.npy", "shape": list(o.shape), "dtype": str(o.dtype)})
    # One (rtol, atol) per float dtype among the outputs: `tol` for f32/f64, JAX's default
    # for the narrow types (whose results round once from the same wide value).
    per_dtype = {}
    for o in outputs:
        dt = o["dtype"]
        if dt in JAX_TOL:
            rtol, atol = tol if (tol and dt in ("float32", "float64")) else (JAX_TOL[dt],) * 2
            per_dtype[dt] = {"rtol": rtol, "atol": atol}
    meta = {
        "program": name,
        "jax_version": jax.__version__,
        "lowered_for": platform or "cpu",
        "inputs": inputs,
        "outputs": outputs,
        "tolerance": {"per_dtype": per_dtype, "why": why,
                      "test": "|got - jax| <= atol + rtol * |jax|; NaN == NaN"},
        "integers_and_bools": "exact",
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{name}: {len(args)} inputs, {len(outs)} outputs")


# --- The programs ----------------------------------------------------------------------------


def mlp(params, x):
    (w1, b1), (w2, b2), (w3, b3) = params
    h = jax.nn.relu(x @ w1 + b1)
    h = jax.nn.relu(h @ w2 + b2)
    return h @ w3 + b3


def mlp_params(r, sizes):
    return [
        (normal(r, (m, n), scale=1 / math.sqrt(m)), normal(r, (n,), scale=0.1))
        for m, n in zip(sizes[:-1], sizes[1:])
    ]


def flat_mlp(x, w1, b1, w2, b2, w3, b3):
    return mlp([(w1, b1), (w2, b2), (w3, b3)], x)


def xent(logits, labels):
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[:, None], axis=1)[:, 0]


def export_mlp_forward():
    r = rng(1)
    params = mlp_params(r, [64, 128, 128, 10])
    x = normal(r, (8, 64))
    args = [x] + [a for layer in params for a in layer]
    export("mlp_forward", flat_mlp, args, None,
           "f32 dots of 64-128 terms: the summation order differs from XLA's vectorised one; "
           "the interpreter's f64 accumulation stays within JAX's 1e-6 (observed 3e-7)")


def export_mlp_grad():
    r = rng(2)
    params = mlp_params(r, [32, 64, 64, 10])
    x = normal(r, (8, 32))
    labels = r.randint(0, 10, size=(8,)).astype(np.int32)

    def loss(w1, b1, w2, b2, w3, b3, x, labels):
        return jnp.mean(xent(flat_mlp(x, w1, b1, w2, b2, w3, b3), labels))

    f = jax.value_and_grad(loss, argnums=(0, 1, 2, 3, 4, 5))
    args = [a for layer in params for a in layer] + [x, labels]
    export("mlp_grad", f, args, None,
           "f32 dots in forward and backward passes plus exp/log: within JAX's 1e-6")


def export_softmax_xent():
    r = rng(3)
    logits = normal(r, (8, 10), scale=3.0)
    labels = r.randint(0, 10, size=(8,)).astype(np.int32)
    export("softmax_xent", xent, [logits, labels], (1e-6, 1e-6),
           "exp and log: XLA's vectorised versions are within 1 ulp")


def export_scan():
    r = rng(4)
    w = normal(r, (8, 8), scale=0.4)
    u = normal(r, (3, 8), scale=0.5)
    xs = normal(r, (6, 3))
    h0 = np.zeros((8,), np.float32)

    def rnn(w, u, xs, h0):
        def step(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, h.sum()
        return lax.scan(step, h0, xs)

    export("scan", rnn, [w, u, xs, h0], None,
           "tanh (XLA's rational approximation, within an ulp or two) fed back through 6 steps")


def export_while_loop():
    def f(n, x):
        def body(i, carry):
            x, acc = carry
            x = x * 0.5 + 1.0 / x  # Newton steps towards sqrt(2)
            return x, acc + i * i
        return lax.fori_loop(0, n, body, (x, jnp.int32(0)))

    export("while_loop", f, [np.int32(7), np.float32(3.0)], (1e-6, 1e-6),
           "division and multiply only; f32 default")


def export_cond_switch():
    def f(p, i, x):
        a = lax.cond(p, lambda x: jnp.sin(x) * 2.0, lambda x: x - 1.0, x)
        b = lax.switch(i, [lambda x: x + 1.0, lambda x: x * x, lambda x: -x], x)
        c = lax.switch(i + 5, [lambda x: x + 1.0, lambda x: x * x, lambda x: -x], x)  # clamped
        return a, b, c

    x = np.array([0.5, -1.25, 2.0], np.float32)
    export("cond_switch", f, [np.bool_(True), np.int32(1), x], (1e-6, 1e-6), "sin: 1 ulp")


def export_prng():
    def f(key):
        k1, k2 = jax.random.split(key)
        n = jax.random.normal(k1, (4, 3))
        u = jax.random.uniform(k2, (5,), minval=-2.0, maxval=3.0)
        ri = jax.random.randint(jax.random.fold_in(key, 7), (6,), 0, 100)
        return n, u, ri, jax.random.split(k2, 3)

    key = np.asarray(jax.random.key_data(jax.random.PRNGKey(42)))
    export("prng", f, [key], (1e-6, 2e-6),
           "normal = sqrt(2)*erf_inv(u): XLA:CPU's log1p inside erf_inv differs from libm's "
           "by 1-2 ulp; threefry bits, uniform and randint are exact")


def export_conv():
    r = rng(5)
    x = normal(r, (2, 9, 9, 4))
    k = normal(r, (3, 3, 2, 6), scale=0.3)

    def f(x, k):
        return lax.conv_general_dilated(
            x, k, window_strides=(2, 1), padding=((1, 1), (0, 2)), lhs_dilation=(1, 1),
            rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=2)

    export("conv", f, [x, k], None, "f32 sums of 18 products: summation order")


def maxpool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def export_maxpool():
    r = rng(6)
    x = normal(r, (2, 6, 6, 3))
    w = normal(r, (2, 3, 3, 3))

    def f(x, w):
        y, vjp = jax.vjp(maxpool, x)
        return y, vjp(w)[0]

    export("maxpool", f, [x, w], None, "max and select_and_scatter's adds of one value: exact")


def export_sort():
    x = np.array([[3.0, -1.0, np.nan, 2.0, -1.0, 0.0, 7.5, -0.0],
                  [1.0, 1.0, 5.0, -3.0, 2.0, np.inf, -np.inf, 4.0]], np.float32)
    ints = np.array([5, -2, 9, 0, -2, 7, 1], np.int32)

    def f(x, ints):
        return (jnp.sort(x, axis=1), jnp.argsort(x, axis=1), jnp.sort(ints),
                jnp.argsort(ints, stable=True), *lax.top_k(jnp.nan_to_num(x), 3))

    export("sort", f, [x, ints], None, "sorting moves values: exact")


def export_gather_scatter():
    r = rng(7)
    x = normal(r, (5, 4))
    idx = np.array([4, 0, -1, 2, 2], np.int32)
    upd_idx = np.array([1, 3, 1, 7], np.int32)  # 1 twice (adds), 7 out of bounds (dropped)
    v = normal(r, (4, 4))

    def f(x, idx, upd_idx, v):
        return x[idx], x[:, idx[:3] % 4], x.at[upd_idx].add(v), x.at[upd_idx].set(v * 2.0)

    export("gather_scatter", f, [x, idx, upd_idx, v], (1e-6, 1e-6),
           "gathers are exact; .at[].add sums at most two f32 values")


def export_cumsum():
    r = rng(8)
    x = normal(r, (3, 7))
    i = r.randint(-50, 50, size=(10,)).astype(np.int32)

    def f(x, i):
        return jnp.cumsum(x, axis=1), jnp.cumsum(i), lax.cummax(x, axis=0), jnp.cumprod(x[0])

    export("cumsum", f, [x, i], (1e-6, 1e-6), "XLA sums prefixes in a tree: association order")


def export_argmax():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [np.nan, 1.0, np.nan, 0.0], [-1.0, -1.0, -2.0, -1.0]],
                 np.float32)
    i = np.array([[4, 9, 9], [-3, -3, -7]], np.int32)

    def f(x, i):
        return jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), jnp.argmax(i, axis=1)

    export("argmax", f, [x, i], None, "indices: exact")


def export_special():
    x = np.array([-3.5, -1.2, -0.3, 0.0, 0.1, 0.5, 1.0, 2.5, 4.0, 10.0, 30.0], np.float32)
    p = np.array([0.05, 0.3, 0.5, 1.0, 1.5, 2.0, 3.7, 6.0, 10.0, 25.0, 100.0], np.float32)

    def f(x, p):
        return lax.erf(x), lax.lgamma(p), lax.digamma(p), lax.erf_inv(jnp.tanh(x) * 0.99)

    export("special", f, [x, p], (2e-6, 2e-6),
           "erf/lgamma/digamma/erf_inv are polynomial/rational approximations in XLA; a few ulp")


def export_layer_norm():
    r = rng(9)
    x = normal(r, (4, 16), scale=2.0)
    g = normal(r, (16,))
    b = normal(r, (16,))

    def f(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-5) * g + b

    export("layer_norm", f, [x, g, b], None, "mean/variance sums of 16 terms and rsqrt")


def export_attention():
    r = rng(10)
    q, k, v = (normal(r, (2, 4, 8)) for _ in range(3))

    def f(q, k, v):
        s = jnp.einsum("btd,bsd->bts", q, k) / math.sqrt(8)
        mask = jnp.tril(jnp.ones((4, 4), bool))
        s = jnp.where(mask, s, -jnp.inf)
        return jnp.einsum("bts,bsd->btd", jax.nn.softmax(s, axis=-1), v)

    export("attention", f, [q, k, v], None, "dots, exp and a division: an ulp or two")


def export_bf16_matmul():
    r = rng(11)
    a = normal(r, (4, 32)).astype(ml_dtypes.bfloat16)
    b = normal(r, (32, 6)).astype(ml_dtypes.bfloat16)

    def f(a, b):
        return jnp.dot(a, b, preferred_element_type=jnp.float32), jnp.dot(a, b)

    export("bf16_matmul", f, [a, b], None,
           "bf16 products are exact in f32; the f32 sums differ by order. The bf16 result is "
           "rounded once from the same f32 sum, so it matches except at rounding ties")


def export_int8_dot():
    r = rng(12)
    a = r.randint(-128, 128, size=(3, 40)).astype(np.int8)
    b = r.randint(-128, 128, size=(40, 5)).astype(np.int8)

    def f(a, b):
        return lax.dot(a, b, preferred_element_type=jnp.int32), lax.dot(a, b)

    export("int8_dot", f, [a, b], None, "integers: exact (the i8 result wraps)")


def export_int_corners():
    i8 = np.array([127, -128, 100, -1, 0, 5], np.int8)
    i32 = np.array([7, -7, np.iinfo(np.int32).min, 0, 13, -1], np.int32)
    d32 = np.array([2, 0, -1, 0, -4, 3], np.int32)
    s = np.array([1, 31, 32, 40, 0, 3], np.int32)
    u = np.array([1, 2, 3, 0x80000000, 0xFFFFFFFF, 7], np.uint32)
    fl = np.array([3e9, -3e9, np.nan, 2.7, -2.7, np.inf], np.float32)

    def f(i8, i32, d32, s, u, fl):
        return (i8 + jnp.int8(100), i8 * jnp.int8(3), -i8, jnp.abs(i8),
                lax.div(i32, d32), lax.rem(i32, d32), jnp.floor_divide(i32, jnp.where(d32 == 0, 1, d32)),
                lax.shift_left(i32, s), lax.shift_right_arithmetic(i32, s),
                lax.shift_right_logical(i32, s), lax.shift_right_logical(u, s.astype(np.uint32)),
                fl.astype(jnp.int32), fl.astype(jnp.uint8), u.astype(jnp.float32),
                lax.population_count(i32), lax.clz(u))

    export("int_corners", f, [i8, i32, d32, s, u, fl], None,
           "integer wrap, division by zero, shifts >= width, saturating casts: exact")


def export_linalg():
    r = rng(13)
    m = normal(r, (4, 4))
    a = m @ m.T + 4 * np.eye(4, dtype=np.float32)
    b = normal(r, (4, 3))

    def f(a, b):
        l = jnp.linalg.cholesky(a)
        x = lax.linalg.triangular_solve(l, b, left_side=True, lower=True)
        y = lax.linalg.triangular_solve(l, b.T, left_side=False, lower=True, transpose_a=True)
        return l, x, y

    export("linalg", f, [a, b], None,
           "cholesky and substitution: sqrt/divide chains, order of the updates",
           platform="tpu")


def export_conv_grad():
    r = rng(14)
    x = normal(r, (2, 7, 7, 4))
    k = normal(r, (3, 3, 2, 6), scale=0.3)
    ct = normal(r, (2, 4, 7, 6))

    def conv(x, k):
        return lax.conv_general_dilated(
            x, k, window_strides=(2, 1), padding=((1, 1), (1, 1)),
            dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2)

    def f(x, k, ct):
        y, vjp = jax.vjp(conv, x, k)
        return y, *vjp(ct)

    export("conv_grad", f, [x, k, ct], (2e-6, 2e-6),
           "the kernel gradient is a convolution with batch_group_count and the input gradient "
           "one with lhs_dilation; XLA's f32 sums of 56 products of unit-size terms carry a few "
           "ulp of rounding (observed 8e-7 against the interpreter's f64 accumulation)")


def export_prng_more():
    def f(key):
        k1, k2, k3, k4 = jax.random.split(key, 4)
        return (jax.random.bernoulli(k1, 0.3, (10,)),
                jax.random.permutation(k2, 10),
                jax.random.uniform(k3, (6,), dtype=jnp.bfloat16),
                jax.random.uniform(k3, (6,), dtype=jnp.float16),
                jax.random.bits(k4, (5,), dtype=jnp.uint8),
                jax.random.truncated_normal(k4, -1.0, 2.0, (4,)))

    key = np.asarray(jax.random.key_data(jax.random.PRNGKey(7)))
    export("prng_more", f, [key], (1e-6, 2e-6),
           "bits, bernoulli, permutation and narrow uniforms are exact; truncated_normal goes "
           "through erf and erf_inv (1-2 ulp)")


def export_float_convert():
    x = np.array([1.00390625, -3.3e38, 65519.0, 1e-6, -0.0, np.nan, 300.7, -129.5, 1e-40],
                 np.float32)

    def f(x):
        b = x.astype(jnp.bfloat16)
        h = x.astype(jnp.float16)
        return (b, h, jnp.exp(b * 0.01), h * h, b.astype(jnp.float16),
                x.astype(jnp.int8), x.astype(jnp.uint16), x + 1e-40)

    export("float_convert", f, [x], None,
           "conversions round to nearest even; bf16/f16 ops compute in f32 and round once; "
           "JAX's per-dtype tolerances, though the values are expected to be exact")


# --- The tour's full-size MLP ----------------------------------------------------------------

TOUR_SIZES = [784, 1024, 1024, 10]
TOUR_BATCH = 8


def tour_input(seed, shape, scale):
    """Deterministic values both Python and Rust compute bit for bit: an integer hash of the
    element index mapped to [-0.5, 0.5), times scale, rounded once to f32."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(seed) * np.uint64(40503)) % np.uint64(2**32)
    v = (h.astype(np.float64) / 2.0**32 - 0.5) * scale
    return v.astype(np.float32).reshape(shape)


def tour_args():
    args = [tour_input(1, (TOUR_BATCH, TOUR_SIZES[0]), 2.0)]
    for layer, (m, n) in enumerate(zip(TOUR_SIZES[:-1], TOUR_SIZES[1:])):
        args.append(tour_input(10 + 2 * layer, (m, n), 2.0 * math.sqrt(3.0 / m)))
        args.append(tour_input(11 + 2 * layer, (n,), 0.2))
    return args


def export_tour_mlp():
    folder = DATA / "tour_mlp"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    args = tour_args()
    jitted = jax.jit(flat_mlp)
    (folder / "module.mlir").write_text(jitted.lower(*args).as_text())
    out = np.asarray(jitted(*args))
    meta = {
        "program": "tour_mlp",
        "jax_version": jax.__version__,
        "sizes": TOUR_SIZES,
        "batch": TOUR_BATCH,
        "inputs": "generated by tour_input in scripts/export_goldens.py (no data files: 7 MB)",
        "output_shape": list(out.shape),
        "output_sum": float(out.astype(np.float64).sum()),
        "output_first": [float(v) for v in out.reshape(-1)[:4]],
        "tolerance": {"rtol": 1e-4, "atol": 1e-4,
                      "why": "a checksum over 80 outputs of 784- and 1024-term f32 dots"},
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"tour_mlp: sum {meta['output_sum']:.6f}")


# --- .npy files as numpy writes them, for the reader's tests ----------------------------------


def export_npy_fixtures():
    """Arrays saved by numpy in the layouts the reader must handle, with their values."""
    folder = DATA / "npy"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    base = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    arrays = {
        "c_f32": (base, None),
        "fortran_f32": (np.asfortranarray(base), None),
        "v2_i16": (np.array([[-300, 7], [32767, -32768]], np.int16), (2, 0)),
        "v3_u8": (np.array([0, 255, 17], np.uint8), (3, 0)),
        "big_endian_f64": (np.array([1.5, -1e300, 2.0**-1074], ">f8"), None),
        "big_endian_i32": (np.array([1, -2, 65536], ">i4"), None),
        "bf16": (np.array([[1.0, -2.5], [3.140625, 1e30]], ml_dtypes.bfloat16), None),
        "f16": (np.array([0.5, -65504.0, 6e-8], np.float16), None),
        "bool": (np.array([True, False, True, True]), None),
        "int4": (np.array([-8, -1, 0, 7], ml_dtypes.int4), None),
        "uint64": (np.array([0, 2**64 - 1, 2**63], np.uint64), None),
        "scalar_i64": (np.array(-42, np.int64), None),
        "empty_f32": (np.zeros((0, 3), np.float32), None),
        "fortran_3d_i8": (np.asfortranarray(np.arange(24, dtype=np.int8).reshape(2, 3, 4)), None),
        "c64": (np.array([[1.5 - 2j, 0], [complex(np.inf, 1), complex(-0.0, -1e-40)]],
                         np.complex64), None),
        "big_endian_c128": (np.array([1 + 2j, complex(-3.5e300, 1e-300)], ">c16"), None),
    }
    expected = {}
    for name, (a, version) in arrays.items():
        path = folder / f"{name}.npy"
        if version is None:
            np.save(path, a)
        else:
            with open(path, "wb") as f:
                np.lib.format.write_array(f, a, version=version)
        flat = np.asarray(a).reshape(-1)
        if a.dtype.kind == "c":
            # [re, im], each as text.
            values = [[repr(float(v.real)), repr(float(v.imag))]
                      for v in flat.astype(np.complex128)]
        elif a.dtype.kind in "fV" and a.dtype.name != "int4":
            # As text: JSON readers need not round decimal numbers correctly; Rust's parse does.
            values = [repr(float(v)) for v in flat.astype(np.float64)]
        else:
            values = [int(v) for v in flat.astype(object if a.dtype.kind == "u" else np.int64)]
        expected[name] = {"dtype": a.dtype.name, "shape": list(a.shape), "values": values}
    (folder / "expected.json").write_text(json.dumps(expected) + "\n")
    print(f"npy: {len(arrays)} fixture files")


def main():
    jax.config.update("jax_platforms", "cpu")
    for export_one in [
        export_mlp_forward, export_mlp_grad, export_softmax_xent, export_scan,
        export_while_loop, export_cond_switch, export_prng, export_conv, export_maxpool,
        export_sort, export_gather_scatter, export_cumsum, export_argmax, export_special,
        export_layer_norm, export_attention, export_bf16_matmul, export_int8_dot,
        export_int_corners, export_linalg, export_conv_grad, export_prng_more, export_float_convert,
        export_tour_mlp, export_npy_fixtures,
    ]:
        export_one()


if __name__ == "__main__":
    main()
