"""JAX exports of jit-with-shardings programs whose windows slide along a split dimension, for
crates/systolic-compiler/tests/spmd_partitioner_windows.rs: a small NHWC CNN (3x3 SAME
convolutions, 2x2 max pooling) with the image split over its height, its gradient, and
cumulative reductions (cumsum, reverse cumsum, cummax, cumprod) along a split axis, lowered
for TPU (where JAX writes them as one `reduce_window` over the whole axis; on CPU it writes an
associative scan). Inputs and JAX's outputs on 8 host devices, mesh data=4 x model=2.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        /root/.cache/systolic-jax-venv/bin/python scripts/window_goldens.py
"""
import os
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic-compiler", "tests",
                   "data", "windows")
AUTO = jax.sharding.AxisType.Auto


def save(name, f, args, ins, outs, platform=None):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    jitted = jax.jit(f, in_shardings=ins, out_shardings=outs)
    if platform is None:
        lowered = jitted.lower(*args)
    else:
        lowered = jitted.trace(*args).lower(lowering_platforms=(platform,))
    with open(os.path.join(d, "module.mlir"), "w") as fh:
        fh.write(lowered.as_text())
    # The outputs of the program run on one device. (The 8-device run of `cumulative_rows`
    # got cummax wrong with JAX 0.10.2 on CPU: zeros where a column's running maximum is
    # negative; it is printed here when the two differ.)
    results = jax.jit(f)(*args)
    sharded = jitted(*args)
    if not isinstance(results, (tuple, list)):
        results, sharded = (results,), (sharded,)
    for i, (r, t) in enumerate(zip(results, sharded)):
        err = float(np.max(np.abs(np.asarray(r) - np.asarray(t))))
        if err > 1e-4:
            print(f"{name}: output {i} on 8 devices differs from one device by {err}")
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
    for i, r in enumerate(results):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(r))


def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def max_pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def cnn(x, w1, w2, wd):
    h = max_pool(jax.nn.relu(conv(x, w1)))
    h = max_pool(jax.nn.relu(conv(h, w2)))
    return jnp.mean(h, axis=(1, 2)) @ wd


def main():
    rng = np.random.default_rng(0)
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AUTO, AUTO))
    s = lambda *spec: NamedSharding(mesh, P(*spec))
    normal = lambda *shape: (0.5 * rng.standard_normal(shape)).astype(np.float32)

    # The image split over its height on all 8 devices (pieces of 4 rows, then 2 after the
    # first pooling, then 1), the weights replicated.
    x, w1, w2, wd = normal(2, 32, 16, 3), normal(3, 3, 3, 8), normal(3, 3, 8, 8), normal(8, 4)
    rows = s(None, ("data", "model"), None, None)
    save("cnn_height", cnn, (x, w1, w2, wd), (rows, s(), s(), s()), s())

    # The image's batch over "model", its height over "data".
    save("cnn_batch_height", cnn, (x, w1, w2, wd),
         (s("model", "data", None, None), s(), s(), s()), s())

    # Its gradient with respect to the weights and the image (the convolutions' transposes,
    # max pooling's select_and_scatter).
    def loss(w1, w2, wd, x):
        return jnp.sum(jnp.tanh(cnn(x, w1, w2, wd)))

    save("cnn_height_grad", jax.grad(loss, argnums=(0, 1, 2, 3)), (w1, w2, wd, x),
         (s(), s(), s(), rows), (s(), s(), s(), rows))

    # Cumulative reductions along the rows, split over all 8 devices, as lowered for TPU.
    def cumulative(x):
        return (jnp.cumsum(x, axis=0), jax.lax.cumsum(x, axis=0, reverse=True),
                jax.lax.cummax(x, axis=0), jnp.cumprod(1.0 + 0.1 * x, axis=0))

    y = normal(32, 6)
    split = s(("data", "model"), None)
    save("cumulative_rows", cumulative, (y,), (split,), (split,) * 4, platform="tpu")


if __name__ == "__main__":
    main()
