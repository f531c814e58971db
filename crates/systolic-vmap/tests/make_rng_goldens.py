"""Writes tests/data/rng_goldens.json: JAX's outputs of `jax.vmap` over `lax.rng_bit_generator`
(jax 0.10.2 on CPU), for tests/rng.rs. Each case has the per-example program
(`jax.jit(f).lower(...).as_text()`), the vmaps applied to it (innermost first: in_axes, axis
size, out_axes), the batched arguments and JAX's batched outputs. JAX batches a batched key by
drawing every example's bits from the first example's key and advancing only that key.
The tests never need JAX; regenerate with the JAX venv:
  /root/.cache/systolic-jax-venv/bin/python tests/make_rng_goldens.py
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)  # uint64 bits
rng = np.random.default_rng(7)
u32 = np.uint32


def keys(*shape):
    return rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(u32)


def gen(shape, dtype=jnp.uint32, algorithm=lax.RandomAlgorithm.RNG_DEFAULT):
    return lambda k: lax.rng_bit_generator(k, shape, dtype=dtype, algorithm=algorithm)


def bits_xor(k, x):
    return lax.rng_bit_generator(k, (2, 3), dtype=jnp.uint32)[1] ^ x


# name: (per-example function, per-example argument shapes/dtypes, vmaps innermost first, args)
CASES = {
    "u32_2x3": (gen((2, 3)), [((4,), u32)], [((0,), 3, (0, 0))], [keys(3, 4)]),
    "u32_key_axis1_bits_axis1": (
        gen((2, 3)), [((4,), u32)], [((1,), 3, (0, 1))], [keys(4, 3)]
    ),
    "u8_5": (gen((5,), jnp.uint8), [((4,), u32)], [((0,), 2, (0, 0))], [keys(2, 4)]),
    "u64_threefry": (
        gen((3,), jnp.uint64, lax.RandomAlgorithm.RNG_THREE_FRY),
        [((4,), u32)],
        [((0,), 3, (0, 0))],
        [keys(3, 4)],
    ),
    "u32_philox_4": (
        gen((4,), jnp.uint32, lax.RandomAlgorithm.RNG_PHILOX),
        [((4,), u32)],
        [((0,), 2, (0, 0))],
        [keys(2, 4)],
    ),
    "u16_scalar_batch1": (gen((), jnp.uint16), [((4,), u32)], [((0,), 1, (0, 0))], [keys(1, 4)]),
    # The key is not mapped: every example shares its bits; only x is batched.
    "unbatched_key": (
        bits_xor,
        [((4,), u32), ((2, 3), u32)],
        [((None, 0), 3, 0)],
        [keys(4), keys(3, 2, 3)],
    ),
    # vmap of vmap: the inner map takes each outer example's first key.
    "nested": (gen((2,)), [((4,), u32)], [((0,), 3, (0, 0)), ((0,), 2, (0, 0))], [keys(2, 3, 4)]),
}


def tolist(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": [int(v) for v in a.ravel()]}


out = []
for name, (f, sig, maps, args) in CASES.items():
    text = jax.jit(f).lower(*[jax.ShapeDtypeStruct(s, d) for s, d in sig]).as_text()
    g = f
    for in_axes, _, out_axes in maps:
        g = jax.vmap(g, in_axes=in_axes, out_axes=out_axes)
    ys = g(*args)
    ys = ys if isinstance(ys, (tuple, list)) else (ys,)
    out.append(
        {
            "name": name,
            "mlir": text,
            "maps": [
                {
                    "in_axes": list(i),
                    "size": n,
                    "out_axes": list(o) if isinstance(o, tuple) else [o] * len(ys),
                }
                for i, n, o in maps
            ],
            "args": [tolist(a) for a in args],
            "outputs": [tolist(y) for y in ys],
        }
    )

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "rng_goldens.json")
with open(path, "w") as fh:
    json.dump(out, fh, indent=1)
print(f"wrote {len(out)} cases to {path}")
