"""Goldens for the front end's numpy reductions beyond sum/mean/max/min (prod, all, any,
count_nonzero, ptp, var/std with ddof, average with weights, median/quantile, nansum/nanmean/
nanmax/nanmin), observed with JAX 0.10.2 on CPU. Each case records its inputs and JAX's
outputs; tests/reductions_golden.rs rebuilds the inputs and compares eagerly and under jit.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_goldens_reductions.py
Writes crates/systolic/tests/data/reductions_jax0.10.2.json next to this script.
"""

import jax
import jax.numpy as jnp
import numpy as np
from golden_cases import Cases


cases = Cases()
case = cases.case


rng = np.random.default_rng(11)
f3 = jnp.asarray(rng.normal(size=(2, 3, 4)) * 2, jnp.float32)
b3 = f3.astype(jnp.bfloat16)
h3 = f3.astype(jnp.float16)
i3 = jnp.asarray(rng.integers(-5, 6, size=(2, 3, 4)), jnp.int32)
i8 = jnp.asarray(rng.integers(-4, 5, size=(3, 5)), jnp.int8)
u8 = jnp.asarray(rng.integers(0, 9, size=(3, 5)), jnp.uint8)
bl = jnp.asarray(rng.random(size=(3, 4)) > 0.4)
nan = jnp.array([[1.0, np.nan, 3.0, -2.0], [np.nan, np.nan, np.nan, np.nan],
                 [0.0, -0.0, np.inf, 2.0]], jnp.float32)
e0 = jnp.zeros((0, 3), jnp.float32)
one = jnp.asarray(rng.normal(size=(1, 5)), jnp.float32)

# (name, x, axis, keepdims); axis None or a tuple
shapes = [
    ("f32_ax1", f3, (1,), False), ("f32_ax02", f3, (0, 2), False), ("f32_neg_keep", f3, (-1,), True),
    ("f32_all", f3, None, False), ("bf16_ax2", b3, (2,), False), ("f16_ax0", h3, (0,), True),
    ("i32_ax1", i3, (1,), False), ("i8_ax1", i8, (1,), False), ("u8_all", u8, None, False),
    ("bool_ax0", bl, (0,), False), ("nan_ax1", nan, (1,), False), ("empty_ax0", e0, (0,), False),
    ("one_ax0", one, (0,), True),
]
for tag, x, ax, kd in shapes:
    for fname, f in [("prod", jnp.prod), ("all", jnp.all), ("any", jnp.any),
                     ("count_nonzero", jnp.count_nonzero)]:
        if fname == "prod" and x.dtype == jnp.float32 and tag.startswith("f32") and tag != "f32_ax1":
            continue
        case(f"{fname}_{tag}", [x], f(x, axis=ax, keepdims=kd))
    if x.dtype != jnp.bool_ and x.size > 0:
        case(f"ptp_{tag}", [x], jnp.ptp(x, axis=ax, keepdims=kd))
    if x.dtype != jnp.bool_:
        for ddof in (0, 1):
            case(f"var_{tag}_ddof{ddof}", [x], jnp.var(x, axis=ax, ddof=ddof, keepdims=kd))
        case(f"std_{tag}", [x], jnp.std(x, axis=ax, ddof=1, keepdims=kd))
    if x.dtype != jnp.bool_ and x.size > 0:
        case(f"median_{tag}", [x], jnp.median(x, axis=ax, keepdims=kd))
        for q in (0.0, 0.3, 1.0):
            case(f"quantile_q{q}_{tag}", [x], jnp.quantile(x, q, axis=ax, keepdims=kd))
    if x.dtype != jnp.bool_:
        for fname, f in [("nansum", jnp.nansum), ("nanmean", jnp.nanmean), ("nanmax", jnp.nanmax),
                         ("nanmin", jnp.nanmin)]:
            if fname in ("nanmax", "nanmin") and x.size == 0:
                continue
            case(f"{fname}_{tag}", [x], f(x, axis=ax, keepdims=kd))

nanb = nan.astype(jnp.bfloat16)
case("nanmean_nanbf16_ax1", [nanb], jnp.nanmean(nanb, axis=1))
case("nansum_nanbf16_all", [nanb], jnp.nansum(nanb))
case("var_size1_ddof1", [one], jnp.var(one, axis=0, ddof=1))
case("var_nan_all", [nan], jnp.var(nan))

w_same = jnp.asarray(rng.random(size=(2, 3, 4)), jnp.float32)
w_1d = jnp.asarray(rng.random(size=(3,)), jnp.float32)
case("average_noweights_ax1", [f3], jnp.average(f3, axis=1))
case("average_same_ax02", [f3, w_same], jnp.average(f3, axis=(0, 2), weights=w_same))
case("average_1d_ax1_keep", [f3, w_1d], jnp.average(f3, axis=1, weights=w_1d, keepdims=True))
case("average_int_1d", [i3, w_1d], jnp.average(i3, axis=-2, weights=w_1d))
case("average_bf16_all", [b3, w_same.astype(jnp.bfloat16)], jnp.average(b3, weights=w_same.astype(jnp.bfloat16)))

cases.write(f"reductions_jax{jax.__version__}.json")
