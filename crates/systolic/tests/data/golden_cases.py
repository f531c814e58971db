"""What the make_goldens_*.py scripts share: how a JAX value is recorded and how a table of
cases is written next to them.

A value is recorded as its dtype, weak type, shape and values (as float64; JSON has no NaN or
infinities, so NaN is null and infinities are the strings "inf" and "-inf"; a complex value is
two numbers, its real and imaginary parts). A case is named
and holds its inputs and outputs; the Rust tests rebuild the inputs, run the op eagerly and
under jit, and compare.
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np


def enc(v):
    if np.isnan(v):
        return None
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def obs(x):
    x = jnp.asarray(x)
    v = np.asarray(x)
    if np.iscomplexobj(v):
        # (re, im) pairs, flattened, as the Rust side's Tensor::to_f64_vec gives them.
        v = np.stack([v.real, v.imag], axis=-1)
    return {
        "dtype": str(x.dtype),
        "weak": bool(x.weak_type),
        "shape": list(x.shape),
        "values": [enc(e) for e in np.asarray(v, dtype=np.float64).ravel().tolist()],
    }


class Cases(dict):
    """Cases by name, in the order they were added."""

    def case(self, name, inputs, out):
        assert name not in self, name
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        self[name] = {"inputs": [obs(i) for i in inputs], "outputs": [obs(o) for o in outs]}

    def write(self, file_name, indent=None):
        """Writes {"jax_version", "cases"} to `file_name` next to this module (compact unless
        `indent` is given) and returns the path."""
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), file_name)
        with open(path, "w") as f:
            if indent is None:
                json.dump({"jax_version": jax.__version__, "cases": self}, f,
                          separators=(",", ":"))
            else:
                json.dump({"jax_version": jax.__version__, "cases": self}, f, indent=indent)
        print(f"wrote {len(self)} cases to {path}")
        return path
