"""Checkpoint files written by numpy and by Python's `safetensors`, for Systolic to read back.

Writes crates/systolic/tests/data/checkpoint/:
  numpy_savez.npz              np.savez(**leaves): every dtype Systolic has (ml_dtypes' bfloat16
                               and 2/4-bit integers included, which np.save stores as '<V2'/'<V1')
  numpy_savez_compressed.npz   np.savez_compressed of the layers alone (deflated members)
  python.safetensors           safetensors.numpy.save_file(leaves): every dtype safetensors has

Keys are the key paths Systolic's `TreeDef::paths` gives the leaves of the Rust test's tree
(tests/checkpoint.rs, `Golden`):

    struct Golden { layers: Vec<Layer>, dtypes: BTreeMap<String, Array>, scale: Option<Array> }
    struct Layer { w: Array, b: Array }

and the values are the formulas `golden_values` in that test computes, so the test compares
what it reads with what it computes itself.

Run with the JAX venv (numpy, ml_dtypes; `pip install safetensors`):
    /root/.cache/systolic-jax-venv/bin/python scripts/checkpoint_goldens.py
"""

import os

import ml_dtypes
import numpy as np
import safetensors
from safetensors.numpy import save_file

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic", "tests", "data", "checkpoint")

# Per dtype: the values of a [2, 3] array, element i = 0..5 (the Rust test's formulas).
SIGNED_SCALE = {"int8": 1, "int16": 1000, "int32": 10**6, "int64": 10**12}
UNSIGNED_SCALE = {"uint8": 40, "uint16": 10**4, "uint32": 8 * 10**8, "uint64": 3 * 10**18}


def dtype_leaves(sub_byte):
    i = np.arange(6)
    out = {"bool": (i % 3 == 0)}
    for name, k in SIGNED_SCALE.items():
        out[name] = ((i - 3) * k).astype(name)
    for name, k in UNSIGNED_SCALE.items():
        out[name] = (i.astype(np.uint64) * np.uint64(k)).astype(name)
    exact = (i - 2.5) * 0.375  # exact in every float format
    out["float16"] = exact.astype(np.float16)
    out["bfloat16"] = exact.astype(ml_dtypes.bfloat16)
    out["float32"] = ((i - 2.5) / 3).astype(np.float32)  # rounded once from the f64 quotient
    out["float64"] = (i - 2.5) / 3
    if sub_byte:
        out["int4"] = (i - 3).astype(ml_dtypes.int4)
        out["uint4"] = (i * 2).astype(ml_dtypes.uint4)
        out["int2"] = (i % 4 - 2).astype(ml_dtypes.int2)
        out["uint2"] = (i % 4).astype(ml_dtypes.uint2)
    return {name: v.reshape(2, 3) for name, v in out.items()}


def layers():
    return {
        ".layers[0].w": (np.arange(6, dtype=np.float32) * 0.5).reshape(2, 3),
        ".layers[0].b": np.array([0.25, -0.25, 1.0], dtype=np.float32),
        ".layers[1].w": np.array([[1.5], [-2.0], [0.125]], dtype=np.float32),
        ".layers[1].b": np.array([-1.0], dtype=np.float32),
    }


def leaves(sub_byte):
    out = layers()
    for name, v in dtype_leaves(sub_byte).items():
        # A BTreeMap<String, _> key's path is its Debug text in brackets: ["int8"].
        out[f'.dtypes["{name}"]'] = v
    out[".scale"] = np.array(2.0, dtype=np.float32)  # Some(x) adds nothing to the path, as in JAX
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, "numpy_savez.npz"), **leaves(sub_byte=True))
    np.savez_compressed(os.path.join(OUT, "numpy_savez_compressed.npz"), **layers())
    save_file(leaves(sub_byte=False), os.path.join(OUT, "python.safetensors"))
    print("numpy", np.__version__, "ml_dtypes", ml_dtypes.__version__, "safetensors", safetensors.__version__)


if __name__ == "__main__":
    main()
