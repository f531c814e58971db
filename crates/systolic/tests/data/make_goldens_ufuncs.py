"""Goldens for the front end's numpy elementwise functions beyond the basic ones
(trigonometric/hyperbolic, log2/log10/exp2/cbrt, reciprocal, remainder/fmod/floor_divide,
hypot, logaddexp, isnan/isinf/signbit/copysign, trunc/rint, logical and bitwise ops, shifts,
nan_to_num, deg2rad/rad2deg, isclose/allclose), observed with JAX 0.10.2 on CPU. Each case
records its inputs and JAX's outputs; tests/ufuncs_golden.rs rebuilds the inputs and compares
eagerly and under jit.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_goldens_ufuncs.py
Writes crates/systolic/tests/data/ufuncs_jax0.10.2.json next to this script.
"""

import jax
import jax.numpy as jnp
import numpy as np
from golden_cases import Cases


cases = Cases()
case = cases.case


special = np.array([-np.inf, -3.5, -1.0, -0.75, -0.0, 0.0, 0.3, 0.5, 1.0, 1.5, 2.5, 10.0,
                    np.inf, np.nan], np.float64)
fl = {
    "f32": jnp.asarray(special, jnp.float32),
    "bf16": jnp.asarray(special, jnp.bfloat16),
    "f16": jnp.asarray(special, jnp.float16),
}
i32 = jnp.array([-7, -2, -1, 0, 1, 3, 8], jnp.int32)
e0 = jnp.zeros((0, 2), jnp.float32)
one = jnp.array([[0.7]], jnp.float32)

unary = {
    "tan": jnp.tan, "arcsin": jnp.arcsin, "arccos": jnp.arccos, "arctan": jnp.arctan,
    "sinh": jnp.sinh, "cosh": jnp.cosh, "arcsinh": jnp.arcsinh, "arccosh": jnp.arccosh,
    "arctanh": jnp.arctanh, "log2": jnp.log2, "log10": jnp.log10, "exp2": jnp.exp2,
    "cbrt": jnp.cbrt, "reciprocal": jnp.reciprocal, "isnan": jnp.isnan, "isinf": jnp.isinf,
    "signbit": jnp.signbit, "trunc": jnp.trunc, "rint": jnp.rint, "logical_not": jnp.logical_not,
    "deg2rad": jnp.deg2rad, "rad2deg": jnp.rad2deg,
}
for name, f in unary.items():
    for dn, x in fl.items():
        case(f"u_{name}_{dn}", [x], f(x))
    case(f"u_{name}_empty", [e0], f(e0))
    case(f"u_{name}_one", [one], f(one))
    if name != "reciprocal":
        case(f"u_{name}_i32", [i32], f(i32))
case("u_reciprocal_i32", [jnp.array([-2, -1, 1, 2, 5], jnp.int32)], jnp.reciprocal(jnp.array([-2, -1, 1, 2, 5], jnp.int32)))
for name in ["bitwise_not", "invert"]:
    for x in [i32, jnp.array([0, 1, 200, 255], jnp.uint8), jnp.array([True, False])]:
        case(f"u_{name}_{x.dtype}", [x], getattr(jnp, name)(x))
case("u_logical_not_bool", [jnp.array([True, False])], jnp.logical_not(jnp.array([True, False])))

# binary: every pair of a small set, so signs, zeros and non-finite values meet.
vals = np.array([-np.inf, -2.5, -1.0, -0.0, 0.0, 0.75, 3.0, np.inf, np.nan])
a = np.repeat(vals, len(vals))
b = np.tile(vals, len(vals))
fa = {d: (jnp.asarray(a, t), jnp.asarray(b, t)) for d, t in
      [("f32", jnp.float32), ("bf16", jnp.bfloat16), ("f16", jnp.float16)]}
ivals = np.array([-7, -3, -1, 1, 2, 5])
ia = jnp.asarray(np.repeat(ivals, len(ivals)), jnp.int32)
ib = jnp.asarray(np.tile(ivals, len(ivals)), jnp.int32)
binary = {
    "arctan2": jnp.arctan2, "remainder": jnp.remainder, "mod": jnp.mod, "fmod": jnp.fmod,
    "floor_divide": jnp.floor_divide, "true_divide": jnp.true_divide, "hypot": jnp.hypot,
    "logaddexp": jnp.logaddexp, "copysign": jnp.copysign, "logical_and": jnp.logical_and,
    "logical_or": jnp.logical_or, "logical_xor": jnp.logical_xor,
}
for name, f in binary.items():
    for dn, (x, y) in fa.items():
        case(f"b_{name}_{dn}", [x, y], f(x, y))
    case(f"b_{name}_i32", [ia, ib], f(ia, ib))
bc = jnp.asarray(np.random.default_rng(3).normal(size=(3, 1)), jnp.float32)
br = jnp.asarray(np.random.default_rng(4).normal(size=(1, 4)), jnp.float32)
for name in ["arctan2", "remainder", "hypot", "floor_divide"]:
    case(f"b_{name}_bcast", [bc, br], binary[name](bc, br))
u8a = jnp.array([0, 7, 200, 255, 16], jnp.uint8)
u8b = jnp.array([3, 2, 9, 1, 5], jnp.uint8)
for name in ["remainder", "floor_divide", "fmod"]:
    case(f"b_{name}_u8", [u8a, u8b], binary[name](u8a, u8b))
ba = jnp.array([True, True, False, False])
bb = jnp.array([True, False, True, False])
for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    f = getattr(jnp, name)
    case(f"b_{name}_i32", [ia, ib], f(ia, ib))
    case(f"b_{name}_u8", [u8a, u8b], f(u8a, u8b))
    case(f"b_{name}_bool", [ba, bb], f(ba, bb))
for name in ["logical_and", "logical_or", "logical_xor"]:
    case(f"b_{name}_bool", [ba, bb], getattr(jnp, name)(ba, bb))
sh = jnp.array([0, 1, 3, 31, 32, 40, 5], jnp.int32)
sx = jnp.array([1, -1, -16, 5, 5, -5, 1 << 20], jnp.int32)
case("b_left_shift_i32", [sx, sh], jnp.left_shift(sx, sh))
case("b_right_shift_i32", [sx, sh], jnp.right_shift(sx, sh))
su = jnp.array([1, 128, 255, 16, 3], jnp.uint8)
ss = jnp.array([0, 7, 1, 8, 9], jnp.uint8)
case("b_left_shift_u8", [su, ss], jnp.left_shift(su, ss))
case("b_right_shift_u8", [su, ss], jnp.right_shift(su, ss))

# nan_to_num, isclose, allclose
for dn, x in fl.items():
    case(f"nan_to_num_default_{dn}", [x], jnp.nan_to_num(x))
    case(f"nan_to_num_custom_{dn}", [x], jnp.nan_to_num(x, nan=-1.0, posinf=7.0, neginf=-7.0))
case("nan_to_num_default_i32", [i32], jnp.nan_to_num(i32))
ca = jnp.array([1.0, 1.0, 0.0, 1e-9, np.inf, np.inf, -np.inf, np.nan, np.nan, 100.0], jnp.float32)
cb = jnp.array([1.000001, 1.001, 1e-9, 0.0, np.inf, -np.inf, 1.0, np.nan, 1.0, 100.0009], jnp.float32)
case("isclose_default_f32", [ca, cb], jnp.isclose(ca, cb))
case("isclose_equal_nan_f32", [ca, cb], jnp.isclose(ca, cb, equal_nan=True))
case("isclose_loose_f32", [ca, cb], jnp.isclose(ca, cb, rtol=1e-2, atol=1e-3))
case("isclose_default_bf16", [ca.astype(jnp.bfloat16), cb.astype(jnp.bfloat16)],
     jnp.isclose(ca.astype(jnp.bfloat16), cb.astype(jnp.bfloat16)))
case("isclose_default_i32", [ia, ib], jnp.isclose(ia, ib))
case("allclose_default_f32", [ca[:2], cb[:2]], jnp.allclose(ca[:2], cb[:2]))
case("allclose_loose_f32", [ca[:2], cb[:2]], jnp.allclose(ca[:2], cb[:2], rtol=1e-2, atol=1e-3))
case("allclose_equal_nan_f32", [ca[7:8], cb[7:8]], jnp.allclose(ca[7:8], cb[7:8], equal_nan=True))

cases.write(f"ufuncs_jax{jax.__version__}.json")
