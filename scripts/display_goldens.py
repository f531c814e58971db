"""Goldens for `Display` of arrays: numpy's `str` of each case, as `print(jax_array)` shows it.

Writes crates/systolic/tests/data/display/cases.json: for each case its dtype, shape, values
(floats as repr strings so nan/inf survive JSON; bfloat16 through ml_dtypes) and the expected
text. Run with the JAX venv: `/root/.cache/systolic-jax-venv/bin/python scripts/display_goldens.py`.
"""
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

# float64 cases print as float64 (JAX would otherwise narrow them to float32).
jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(0)
cases = []


def add(name, a):
    a = np.asarray(a)
    text = str(jnp.asarray(a))
    cases.append({
        "name": name,
        "dtype": str(a.dtype),
        "shape": list(a.shape),
        "values": [repr(float(x)) if a.dtype.kind == "f" else (bool(x) if a.dtype == bool else int(x)) for x in a.reshape(-1).tolist()],
        "text": text,
    })


f32 = np.float32
add("ints_as_floats", np.arange(6, dtype=f32).reshape(2, 3))
add("mixed_fraction", np.array([1.0, 2.5, 3.0, -4.25], f32))
add("thirds", (np.arange(1, 7, dtype=f32) / 3).reshape(3, 2))
add("normal_3x4", rng.standard_normal((3, 4)).astype(f32))
add("normal_2x3x4", rng.standard_normal((2, 3, 4)).astype(f32))
add("normal_2x2x2x2", rng.standard_normal((2, 2, 2, 2)).astype(f32))
add("small_values", np.array([1e-5, 2.5e-5, 3e-6], f32))
add("large_values", np.array([1e9, 2.5e10, -3e8], f32))
add("spread", np.array([0.001, 2.0, 30.0], f32))
add("spread_wide", np.array([0.001, 2.0, 3000.0], f32))
add("nan_inf", np.array([np.nan, 1.5, -np.inf, np.inf], f32))
add("all_nan", np.array([np.nan, np.nan], f32))
add("neg_zero", np.array([-0.0, 1.0], f32))
add("zeros", np.zeros((2, 2), f32))
add("long_row", rng.standard_normal(40).astype(f32))
add("long_row_ints", np.arange(100, dtype=f32))
add("summarised_vector", np.arange(2000, dtype=f32) * 0.5)
add("summarised_matrix", rng.standard_normal((50, 40)).astype(f32))
add("summarised_3d", np.arange(4000, dtype=f32).reshape(10, 20, 20))
add("scalar_f32", f32(5.0))
add("scalar_tenth", f32(0.1))
add("scalar_small", f32(1e-5))
add("scalar_big", np.float64(1.5e16))
add("scalar_int", np.int32(-7))
add("scalar_bool", np.bool_(True))
add("f64_pi", np.array([np.pi, np.e, 1.0]))
add("f64_tiny", np.array([1e-300, 1e300]))
add("int32", np.array([[1, -20], [300, 4]], np.int32))
add("uint8", np.arange(12, dtype=np.uint8).reshape(3, 4))
add("int_long", np.arange(-50, 50, dtype=np.int32))
add("bools", np.array([[True, False], [False, True]]))
add("all_true", np.array([True, True]))
add("empty", np.zeros((0,), f32))
add("empty_2d", np.zeros((2, 0), f32))
add("wide_matrix", rng.standard_normal((3, 12)).astype(f32) * 100)
add("f16", np.array([0.1, 1.5, 1000.0], np.float16))

out = pathlib.Path(__file__).resolve().parent.parent / "crates/systolic/tests/data/display/cases.json"
out.write_text(json.dumps(cases, indent=1) + "\n")
print(f"{len(cases)} cases -> {out}")
