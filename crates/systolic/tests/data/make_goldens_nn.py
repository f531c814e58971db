"""Goldens for the jax.nn surface of the front end (activations, softmax family over several
axes, standardize, layer/RMS norm, dot_product_attention), observed with JAX 0.10.2 on CPU.
Each case records its inputs and JAX's outputs; the Rust tests (tests/nn_golden.rs) rebuild the
inputs from the JSON and compare eagerly and under jit.

flax is not installed next to JAX here, so layer_norm/rms_norm are checked against a jnp
transcription of flax.linen's LayerNorm/RMSNorm arithmetic (normalization._compute_stats with
use_fast_variance=True and _normalize): statistics in promote_types(x.dtype, float32),
var = max(0, mean(x^2) - mean^2), y = (x - mean) * (rsqrt(var + eps) * scale) + bias, cast to
result_type(x, scale, bias).

No float64 cases: the front end follows JAX with x64 disabled (promotion canonicalises
64-bit results to 32 bits), where float64 arrays do not arise.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_goldens_nn.py
Writes crates/systolic/tests/data/nn_jax0.10.2.json next to this script.
"""

import jax
import jax.numpy as jnp
import numpy as np
from golden_cases import Cases
from jax import lax


cases = Cases()
case = cases.case


rng = np.random.default_rng(7)
special = np.array([-30.0, -3.5, -1.0, -0.0, 0.0, 0.25, 1.0, 2.5, 6.5, 30.0, np.nan, np.inf, -np.inf])
sx = {
    "f32": jnp.asarray(special, jnp.float32),
    "bf16": jnp.asarray(special, jnp.bfloat16),
    "f16": jnp.asarray(special, jnp.float16),
}
ints = jnp.array([-4, -1, 0, 1, 2, 7], jnp.int32)
grid = jnp.asarray(rng.normal(size=(2, 3, 4)) * 3, jnp.float32)
empty = jnp.zeros((0, 3), jnp.float32)
one = jnp.asarray(rng.normal(size=(1, 4)), jnp.float32)

acts = {
    "softplus": jax.nn.softplus,
    "log_sigmoid": jax.nn.log_sigmoid,
    "elu": lambda x: jax.nn.elu(x, 0.5),
    "selu": jax.nn.selu,
    "celu": lambda x: jax.nn.celu(x, 2.0),
    "leaky_relu": lambda x: jax.nn.leaky_relu(x, 0.1),
    "relu6": jax.nn.relu6,
    "hard_tanh": jax.nn.hard_tanh,
    "hard_sigmoid": jax.nn.hard_sigmoid,
    "hard_silu": jax.nn.hard_silu,
}
for name, f in acts.items():
    for dn, x in sx.items():
        case(f"act_{name}_{dn}", [x], f(x))
    case(f"act_{name}_grid", [grid], f(grid))
    case(f"act_{name}_empty", [empty], f(empty))
for name in ["softplus", "log_sigmoid", "relu6", "hard_tanh", "leaky_relu", "hard_sigmoid"]:
    case(f"act_{name}_i32", [ints], acts[name](ints))

case("glu_last", [grid], jax.nn.glu(grid, -1))
g2 = jnp.asarray(rng.normal(size=(2, 4, 3)), jnp.bfloat16)
case("glu_axis1", [g2], jax.nn.glu(g2, 1))

# softmax family over one, several and all axes
sm = jnp.asarray(rng.normal(size=(2, 3, 4)) * 4, jnp.float32)
sm_inf = sm.at[0, 1, :].set(-jnp.inf).at[1, 0, 2].set(jnp.inf)
smb = sm.astype(jnp.bfloat16)
for dn, x in [("f32", sm), ("bf16", smb), ("inf", sm_inf), ("f16", sm.astype(jnp.float16))]:
    case(f"softmax_{dn}_last", [x], jax.nn.softmax(x, axis=-1))
    case(f"softmax_{dn}_02", [x], jax.nn.softmax(x, axis=(0, 2)))
    case(f"softmax_{dn}_all", [x], jax.nn.softmax(x, axis=None))
    case(f"log_softmax_{dn}_last", [x], jax.nn.log_softmax(x, axis=-1))
    case(f"log_softmax_{dn}_m1m3", [x], jax.nn.log_softmax(x, axis=(-1, -3)))
    case(f"logsumexp_{dn}_last", [x], jax.nn.logsumexp(x, axis=-1))
    case(f"logsumexp_{dn}_12_keep", [x], jax.nn.logsumexp(x, axis=(1, 2), keepdims=True))
    case(f"logsumexp_{dn}_all", [x], jax.nn.logsumexp(x))
case("logsumexp_i32", [ints], jax.nn.logsumexp(ints))
case("softmax_one", [one], jax.nn.softmax(one, axis=0))
case("logsumexp_empty_axis0", [empty], jax.nn.logsumexp(empty, axis=0))

# standardize (JAX's default "fast" variance)
st = jnp.asarray(rng.normal(size=(3, 4, 5)) * 2 + 1, jnp.float32)
case("standardize_last", [st], jax.nn.standardize(st))
case("standardize_02", [st], jax.nn.standardize(st, axis=(0, 2)))
case("standardize_all_eps", [st], jax.nn.standardize(st, axis=None, epsilon=0.5))
case("standardize_bf16", [st.astype(jnp.bfloat16)], jax.nn.standardize(st.astype(jnp.bfloat16)))
case("standardize_f16", [st.astype(jnp.float16)], jax.nn.standardize(st.astype(jnp.float16), axis=1))
case("standardize_one", [one], jax.nn.standardize(one, axis=0))
case("standardize_i32", [jnp.array([[1, 2, 3], [4, 6, 8]], jnp.int32)],
     jax.nn.standardize(jnp.array([[1, 2, 3], [4, 6, 8]], jnp.int32)))


def flax_layer_norm(x, scale, bias, axes, eps, centre=True):
    dt = jnp.promote_types(x.dtype, jnp.float32)
    xs = x.astype(dt)
    mu2 = jnp.mean(jnp.square(xs), axes, keepdims=True)
    if centre:
        mu = jnp.mean(xs, axes, keepdims=True)
        var = jnp.maximum(0.0, mu2 - jnp.square(mu))
    else:
        mu = jnp.zeros_like(mu2)
        var = mu2
    y = x - mu
    mul = lax.rsqrt(var + eps)
    if scale is not None:
        mul = mul * scale
    y = y * mul
    if bias is not None:
        y = y + bias
    return y.astype(jnp.result_type(*[a for a in (x, scale, bias) if a is not None]))


ln = jnp.asarray(rng.normal(size=(2, 3, 8)) * 3 + 2, jnp.float32)
sc = jnp.asarray(rng.normal(size=(8,)) + 1, jnp.float32)
bi = jnp.asarray(rng.normal(size=(8,)), jnp.float32)
case("layer_norm_f32", [ln, sc, bi], flax_layer_norm(ln, sc, bi, -1, 1e-6))
case("layer_norm_bf16_f32params", [ln.astype(jnp.bfloat16), sc, bi],
     flax_layer_norm(ln.astype(jnp.bfloat16), sc, bi, -1, 1e-6))
case("layer_norm_bf16", [ln.astype(jnp.bfloat16), sc.astype(jnp.bfloat16), bi.astype(jnp.bfloat16)],
     flax_layer_norm(ln.astype(jnp.bfloat16), sc.astype(jnp.bfloat16), bi.astype(jnp.bfloat16), -1, 1e-6))
case("layer_norm_f16_noparams", [ln.astype(jnp.float16)], flax_layer_norm(ln.astype(jnp.float16), None, None, -1, 1e-5))
lsc = jnp.asarray(rng.normal(size=(3, 8)), jnp.float32)
case("layer_norm_axes12", [ln, lsc], flax_layer_norm(ln, lsc, None, (1, 2), 1e-6))
case("layer_norm_const_row", [jnp.full((2, 4), 3.0, jnp.float32)],
     flax_layer_norm(jnp.full((2, 4), 3.0, jnp.float32), None, None, -1, 1e-6))
case("rms_norm_f32", [ln, sc], flax_layer_norm(ln, sc, None, -1, 1e-6, centre=False))
case("rms_norm_bf16", [ln.astype(jnp.bfloat16), sc.astype(jnp.bfloat16)],
     flax_layer_norm(ln.astype(jnp.bfloat16), sc.astype(jnp.bfloat16), None, -1, 1e-6, centre=False))
case("rms_norm_f16_noscale_all", [ln.astype(jnp.float16)],
     flax_layer_norm(ln.astype(jnp.float16), None, None, None, 1e-5, centre=False))

# dot_product_attention (XLA path)
def qkv(b, t, s, n, k, h, dt):
    q = jnp.asarray(rng.normal(size=(b, t, n, h)), dt)
    kk = jnp.asarray(rng.normal(size=(b, s, k, h)), dt)
    v = jnp.asarray(rng.normal(size=(b, s, k, h)), dt)
    return q, kk, v


q, k, v = qkv(2, 3, 5, 2, 2, 4, jnp.float32)
case("attn_plain", [q, k, v], jax.nn.dot_product_attention(q, k, v))
case("attn_scale", [q, k, v], jax.nn.dot_product_attention(q, k, v, scale=0.3))
bias = jnp.asarray(rng.normal(size=(2, 2, 3, 5)), jnp.float32)
mask = jnp.asarray(rng.random(size=(2, 1, 3, 5)) > 0.3)
case("attn_bias_mask", [q, k, v, bias, mask], jax.nn.dot_product_attention(q, k, v, bias, mask))
q2, k2, v2 = qkv(1, 4, 4, 2, 2, 3, jnp.float32)
case("attn_causal", [q2, k2, v2], jax.nn.dot_product_attention(q2, k2, v2, is_causal=True))
qg, kg, vg = qkv(2, 3, 4, 4, 2, 4, jnp.float32)
bg = jnp.asarray(rng.normal(size=(1, 4, 3, 4)), jnp.float32)
case("attn_gqa_bias", [qg, kg, vg, bg], jax.nn.dot_product_attention(qg, kg, vg, bg))
mg = jnp.asarray(rng.random(size=(2, 4, 1, 4)) > 0.4)
case("attn_gqa_mask_causal", [qg, kg, vg, mg], jax.nn.dot_product_attention(qg, kg, vg, mask=mg, is_causal=True))
qm, km, vm = qkv(1, 2, 3, 3, 1, 2, jnp.float32)
case("attn_mqa", [qm, km, vm], jax.nn.dot_product_attention(qm, km, vm))
qb, kb, vb = (a.astype(jnp.bfloat16) for a in (q, k, v))
case("attn_bf16_mask", [qb, kb, vb, mask], jax.nn.dot_product_attention(qb, kb, vb, mask=mask))
qh, kh, vh = (a.astype(jnp.float16) for a in (q2, k2, v2))
case("attn_f16_causal", [qh, kh, vh], jax.nn.dot_product_attention(qh, kh, vh, is_causal=True))
allmask = jnp.zeros((1, 1, 4, 4), bool)
case("attn_fully_masked", [q2, k2, v2, allmask], jax.nn.dot_product_attention(q2, k2, v2, mask=allmask))

# rank-3 inputs ([T, N, H]) and a rank-2 bias get leading size-1 dimensions
q3 = jnp.asarray(rng.normal(size=(3, 2, 4)), jnp.float32)
k3 = jnp.asarray(rng.normal(size=(5, 2, 4)), jnp.float32)
v3 = jnp.asarray(rng.normal(size=(5, 2, 4)), jnp.float32)
b2 = jnp.asarray(rng.normal(size=(3, 5)), jnp.float32)
case("attn_3d_causal", [q3, k3, v3], jax.nn.dot_product_attention(q3, k3, v3, is_causal=True))
case("attn_3d_bias_2d", [q3, k3, v3, b2], jax.nn.dot_product_attention(q3, k3, v3, b2))

cases.write(f"nn_jax{jax.__version__}.json")
