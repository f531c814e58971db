"""Goldens for crates/systolic/tests/conv_transpose.rs: jax.lax.conv_transpose on small inputs
(strides, SAME/VALID/explicit padding, kernel dilation, transpose_kernel, 1-d/2-d, NCHW, bf16).

Run with the JAX venv: python make_conv_transpose_goldens.py (writes conv_transpose_jax<ver>.json
next to this file)."""
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_default_matmul_precision", "highest")
rng = np.random.RandomState(7)
cases = []


def arr(shape, dtype=np.float32):
    return jnp.asarray(rng.randn(*shape).astype(np.float32)).astype(dtype)


def enc(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype),
            "data": [float(v) for v in a.astype(np.float64).ravel()]}


def case(name, x, k, **kw):
    out = lax.conv_transpose(x, k, **kw)
    args = {key: (list(v) if isinstance(v, tuple) and key != "padding" else v)
            for key, v in kw.items()}
    if isinstance(kw.get("padding"), tuple):
        args["padding"] = [list(p) for p in kw["padding"]]
    cases.append({"name": name, "x": enc(x), "k": enc(k), "args": args, "out": enc(out)})


x2 = arr((2, 5, 6, 3))
k2 = arr((3, 3, 3, 4))
case("same_stride2", x2, k2, strides=(2, 2), padding="SAME")
case("valid_stride21", x2, k2, strides=(2, 1), padding="VALID")
case("explicit", x2, k2, strides=(2, 2), padding=((1, 0), (2, 1)))
case("dilated_same", x2, k2, strides=(1, 2), padding="SAME", rhs_dilation=(2, 1))
case("transpose_kernel", x2, arr((3, 3, 4, 3)), strides=(2, 2), padding="SAME",
     transpose_kernel=True)
case("even_kernel_valid", x2, arr((2, 4, 3, 2)), strides=(3, 2), padding="VALID")
case("one_d", arr((2, 7, 2)), arr((4, 2, 3)), strides=(3,), padding="SAME")
case("nchw", arr((1, 3, 4, 5)), arr((2, 3, 2, 2)), strides=(2, 2), padding="VALID",
     dimension_numbers=("NCHW", "OIHW", "NCHW"))
case("bf16", arr((1, 4, 4, 2), jnp.bfloat16), arr((3, 3, 2, 2), jnp.bfloat16), strides=(2, 2),
     padding="SAME")

out = Path(__file__).with_name(f"conv_transpose_jax{jax.__version__}.json")
out.write_text(json.dumps({"jax": jax.__version__, "cases": cases}) + "\n")
print(out, len(cases))
