"""Goldens for systolic's `nn` layers and initializers, from flax.linen and jax.nn.initializers.

Run with the JAX venv (JAX 0.10.2, flax installed into it):
    /root/.cache/systolic-jax-venv/bin/python scripts/nn_layers_goldens.py
It writes crates/systolic/tests/data/nn_layers/:
  manifest.json           the cases: initializer specs and layer cases with their files
  init/<name>.npy         jax.nn.initializers.<...>(key, shape, dtype) for each spec
  <case>/params.<path>.npy  the flax module's parameters (perturbed away from their init, so
                          that ones/zeros do not hide a missing scale or bias)
  <case>/<input>.npy      the inputs
  <case>/y.npy            the module's output
  <case>/grad.<path>.npy  d sum(y**2) / d params
  <case>/grad_<input>.npy d sum(y**2) / d input (float inputs)
crates/systolic/tests/nn_layers.rs checks systolic against them, eagerly and under jit.
"""

import json
import os
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import flax
import flax.linen as nn
from jax.nn import initializers as I

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "systolic", "tests", "data", "nn_layers")


def save(path, a):
    np.save(path, np.asarray(a))


def dtype_name(a):
    return str(np.asarray(a).dtype)


# ---------------------------------------------------------------- initializers

def init_cases():
    f32, bf16, f16 = jnp.float32, jnp.bfloat16, jnp.float16
    vs = I.variance_scaling
    cases = [
        # name, spec (read by the Rust test), jax initializer, shape, dtype, seed
        ("zeros", {"init": "zeros"}, I.zeros, (3, 4), f32, 0),
        ("ones", {"init": "ones"}, I.ones, (3, 4), f32, 0),
        ("constant", {"init": "constant", "value": -0.5}, I.constant(-0.5), (2, 3), f32, 0),
        ("uniform", {"init": "uniform", "scale": 2.0}, I.uniform(2.0), (5, 7), f32, 1),
        ("normal", {"init": "normal", "stddev": 0.5}, I.normal(0.5), (5, 7), f32, 2),
        ("truncated_normal", {"init": "truncated_normal", "stddev": 1.5},
         I.truncated_normal(1.5), (6, 5), f32, 3),
        ("lecun_normal", {"init": "lecun_normal"}, I.lecun_normal(), (4, 6), f32, 4),
        ("lecun_uniform", {"init": "lecun_uniform"}, I.lecun_uniform(), (4, 6), f32, 5),
        ("glorot_normal", {"init": "glorot_normal"}, I.glorot_normal(), (4, 6), f32, 6),
        ("glorot_uniform", {"init": "glorot_uniform"}, I.glorot_uniform(), (4, 6), f32, 7),
        ("he_normal", {"init": "he_normal"}, I.he_normal(), (4, 6), f32, 8),
        ("he_uniform", {"init": "he_uniform"}, I.he_uniform(), (4, 6), f32, 9),
        ("he_normal_conv", {"init": "he_normal"}, I.he_normal(), (3, 3, 4, 8), f32, 10),
        ("glorot_uniform_conv", {"init": "glorot_uniform"}, I.glorot_uniform(), (3, 2, 5, 4), f32, 11),
        ("vs_fan_in_normal", {"init": "variance_scaling", "scale": 2.0, "mode": "fan_in",
                              "distribution": "normal"}, vs(2.0, "fan_in", "normal"), (7, 3), f32, 12),
        ("vs_fan_out_uniform", {"init": "variance_scaling", "scale": 0.5, "mode": "fan_out",
                                "distribution": "uniform"}, vs(0.5, "fan_out", "uniform"), (7, 3), f32, 13),
        ("vs_fan_avg_truncated", {"init": "variance_scaling", "scale": 3.0, "mode": "fan_avg",
                                  "distribution": "truncated_normal"},
         vs(3.0, "fan_avg", "truncated_normal"), (5, 9), f32, 14),
        ("vs_fan_geo_avg_normal", {"init": "variance_scaling", "scale": 1.0, "mode": "fan_geo_avg",
                                   "distribution": "normal"}, vs(1.0, "fan_geo_avg", "normal"), (5, 9), f32, 15),
        ("vs_axes", {"init": "variance_scaling", "scale": 1.0, "mode": "fan_in", "distribution": "normal",
                     "in_axis": [0], "out_axis": [1, 2], "batch_axis": [3]},
         vs(1.0, "fan_in", "normal", in_axis=0, out_axis=(1, 2), batch_axis=3), (5, 2, 3, 4), f32, 16),
        ("embed_default", {"init": "variance_scaling", "scale": 1.0, "mode": "fan_in", "distribution": "normal",
                           "in_axis": [-2], "out_axis": [0], "batch_axis": []},
         vs(1.0, "fan_in", "normal", out_axis=0), (10, 4), f32, 17),
        ("lecun_uniform_bf16", {"init": "lecun_uniform"}, I.lecun_uniform(), (4, 6), bf16, 18),
        ("he_normal_bf16", {"init": "he_normal"}, I.he_normal(), (4, 6), bf16, 19),
        ("normal_bf16", {"init": "normal", "stddev": 0.5}, I.normal(0.5), (3, 5), bf16, 20),
        ("glorot_uniform_f16", {"init": "glorot_uniform"}, I.glorot_uniform(), (4, 6), f16, 21),
        ("uniform_f16", {"init": "uniform", "scale": 3.0}, I.uniform(3.0), (4, 6), f16, 22),
        ("orthogonal", {"init": "orthogonal", "scale": 1.0, "column_axis": -1},
         I.orthogonal(), (6, 4), f32, 23),
        ("orthogonal_wide", {"init": "orthogonal", "scale": 2.0, "column_axis": -1},
         I.orthogonal(2.0), (3, 5), f32, 24),
        ("orthogonal_conv", {"init": "orthogonal", "scale": 1.0, "column_axis": -1},
         I.orthogonal(), (3, 3, 4, 8), f32, 25),
        ("orthogonal_axis0", {"init": "orthogonal", "scale": 0.5, "column_axis": 0},
         I.orthogonal(0.5, column_axis=0), (5, 2, 3), f32, 26),
    ]
    os.makedirs(os.path.join(OUT, "init"), exist_ok=True)
    out = []
    for name, spec, init, shape, dtype, seed in cases:
        v = init(jax.random.PRNGKey(seed), shape, dtype)
        save(os.path.join(OUT, "init", name + ".npy"), v)
        out.append(dict(spec, name=name, shape=list(shape), dtype=dtype_name(v), seed=seed))
    return out


# ---------------------------------------------------------------- layers

def flat(tree, prefix=""):
    """{'query': {'kernel': a}} -> {'query.kernel': a}."""
    out = {}
    for k, v in tree.items():
        p = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(flat(v, p))
        else:
            out[p] = v
    return out


def perturb(params, seed):
    """Adds small random values to every parameter (scale ones become ~1, zeros ~0)."""
    leaves, treedef = jax.tree_util.tree_flatten(params)
    keys = jax.random.split(jax.random.PRNGKey(1000 + seed), len(leaves))
    leaves = [l + 0.1 * jax.random.normal(k, l.shape, l.dtype) for l, k in zip(leaves, keys)]
    return jax.tree_util.tree_unflatten(treedef, leaves)


class GQA(nn.Module):
    """Grouped-query attention written with flax's parts: fewer key/value heads, each repeated
    for its group of query heads, then flax's dot_product_attention and output projection."""
    num_heads: int
    num_kv_heads: int
    head_dim: int
    out_features: int

    @nn.compact
    def __call__(self, x, mask):
        q = nn.DenseGeneral((self.num_heads, self.head_dim), name="query")(x)
        k = nn.DenseGeneral((self.num_kv_heads, self.head_dim), name="key")(x)
        v = nn.DenseGeneral((self.num_kv_heads, self.head_dim), name="value")(x)
        g = self.num_heads // self.num_kv_heads
        k = jnp.repeat(k, g, axis=-2)
        v = jnp.repeat(v, g, axis=-2)
        o = nn.dot_product_attention(q, k, v, mask=mask)
        return nn.DenseGeneral(self.out_features, axis=(-2, -1), name="out")(o)


class MLP(nn.Module):
    hidden: int
    out: int

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.hidden, name="hidden")(x)
        h = nn.gelu(h)
        return nn.Dense(self.out, name="output")(h)


def normal(seed, shape, dtype=jnp.float32):
    return jax.random.normal(jax.random.PRNGKey(seed), shape, dtype)


def layer_cases():
    ids = jnp.array([[1, 4, 0, 10, -1], [3, 3, 7, 2, 9]], jnp.int32)
    tokens = jnp.array([[5, 2, 0], [1, 0, 0]], jnp.int32)
    ktokens = jnp.array([[3, 1, 4, 0], [2, 2, 0, 0]], jnp.int32)
    causal = nn.make_causal_mask(jnp.zeros((2, 5), jnp.int32))
    padding = nn.make_attention_mask(tokens > 0, ktokens > 0)
    # name, module, inputs (name -> array), call(module, params, inputs) -> y, differentiable inputs
    return [
        ("dense", nn.Dense(5), {"x": normal(1, (2, 3, 4))}, None),
        ("dense_nobias", nn.Dense(3, use_bias=False), {"x": normal(2, (4, 6))}, None),
        ("dense_general", nn.DenseGeneral((2, 3), axis=(-2, -1)), {"x": normal(3, (2, 4, 5))}, None),
        ("embed", nn.Embed(11, 6), {"ids": ids}, None),
        ("embed_attend", nn.Embed(11, 6), {"query": normal(4, (2, 3, 6))},
         lambda m, p, i: m.apply(p, i["query"], method=nn.Embed.attend)),
        ("layer_norm", nn.LayerNorm(), {"x": 3.0 + 2.0 * normal(5, (2, 3, 8))}, None),
        ("layer_norm_noscale", nn.LayerNorm(use_scale=False, epsilon=1e-3), {"x": normal(6, (4, 8))}, None),
        ("rms_norm", nn.RMSNorm(), {"x": 1.0 + normal(7, (3, 8))}, None),
        ("conv_same", nn.Conv(4, (3, 3)), {"x": normal(8, (2, 6, 6, 3))}, None),
        ("conv_strided_dilated", nn.Conv(4, (3, 3), strides=2, padding="VALID", kernel_dilation=(1, 2)),
         {"x": normal(9, (2, 9, 9, 2))}, None),
        ("conv_explicit_groups", nn.Conv(6, (2, 2), padding=((1, 0), (0, 1)), feature_group_count=2),
         {"x": normal(10, (1, 5, 5, 4))}, None),
        ("conv1d_causal", nn.Conv(3, (3,), padding="CAUSAL"), {"x": normal(11, (2, 7, 2))}, None),
        ("dropout", nn.Dropout(0.3), {"x": normal(12, (4, 8))},
         lambda m, p, i: m.apply(p, i["x"], deterministic=False, rng=jax.random.PRNGKey(42))),
        ("dropout_broadcast", nn.Dropout(0.5, broadcast_dims=(0,)), {"x": normal(13, (3, 10))},
         lambda m, p, i: m.apply(p, i["x"], deterministic=False, rng=jax.random.PRNGKey(7))),
        ("mha_causal", nn.MultiHeadDotProductAttention(num_heads=4, qkv_features=16),
         {"x": normal(14, (2, 5, 12))},
         lambda m, p, i: m.apply(p, i["x"], mask=causal)),
        ("mha_cross_padding", nn.MultiHeadDotProductAttention(num_heads=2, out_features=6),
         {"q": normal(15, (2, 3, 8)), "kv": normal(16, (2, 4, 10))},
         lambda m, p, i: m.apply(p, i["q"], i["kv"], mask=padding)),
        ("mha_dropout", nn.MultiHeadDotProductAttention(num_heads=2, dropout_rate=0.25),
         {"x": normal(17, (2, 4, 6))},
         lambda m, p, i: m.apply(p, i["x"], mask=None, deterministic=False,
                                 dropout_rng=jax.random.PRNGKey(3))),
        ("mha_gqa", GQA(num_heads=4, num_kv_heads=2, head_dim=3, out_features=8),
         {"x": normal(18, (2, 5, 8))},
         lambda m, p, i: m.apply(p, i["x"], causal)),
        ("mlp", MLP(hidden=16, out=6), {"x": normal(19, (3, 8))}, None),
        ("mha_normalize_qk", nn.MultiHeadDotProductAttention(num_heads=2, normalize_qk=True),
         {"x": normal(20, (2, 4, 8))}, None),
        ("dense_bf16", nn.Dense(4, dtype=jnp.bfloat16), {"x": normal(21, (3, 5))}, None),
        ("layer_norm_bf16_input", nn.LayerNorm(), {"x": normal(22, (2, 8), jnp.bfloat16)}, None),
        ("conv_transpose_same", nn.ConvTranspose(3, (3, 3), strides=(2, 2)), {"x": normal(23, (1, 4, 4, 2))}, None),
        ("conv_transpose_valid_dilated", nn.ConvTranspose(2, (2, 3), strides=(1, 2), padding="VALID",
                                                          kernel_dilation=(2, 1)),
         {"x": normal(24, (2, 3, 4, 3))}, None),
        ("conv_transpose_kernel", nn.ConvTranspose(4, (3,), strides=(2,), padding=((1, 2),),
                                                   transpose_kernel=True), {"x": normal(25, (2, 5, 3))}, None),
    ]


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    manifest = {"jax": jax.__version__, "flax": flax.__version__,
                "initializers": init_cases(), "layers": []}
    for seed, (name, module, inputs, call) in enumerate(layer_cases()):
        d = os.path.join(OUT, name)
        os.makedirs(d)
        first = list(inputs.values())
        if name == "embed_attend":
            params = module.init(jax.random.PRNGKey(seed), jnp.zeros((1,), jnp.int32))
        elif name == "mha_gqa":
            params = module.init(jax.random.PRNGKey(seed), first[0], None)
        elif name == "mha_dropout":
            params = module.init(jax.random.PRNGKey(seed), first[0], deterministic=True)
        elif name.startswith("dropout"):
            params = {"params": {}}
        elif name.startswith("mha_cross"):
            params = module.init(jax.random.PRNGKey(seed), first[0], first[1])
        else:
            params = module.init(jax.random.PRNGKey(seed), *first)
        params = perturb(params, seed)
        if call is None:
            call = (lambda m, p, i: m.apply(p, *i.values()))
        y = call(module, params, inputs)
        float_inputs = [k for k, v in inputs.items() if jnp.issubdtype(v.dtype, jnp.floating)]

        def loss(p, fi):
            return jnp.sum(call(module, p, dict(inputs, **fi)) ** 2)

        gp, gx = jax.grad(loss, argnums=(0, 1))(params, {k: inputs[k] for k in float_inputs})
        fp, fg = flat(params["params"]), flat(gp["params"])
        for path, a in fp.items():
            save(os.path.join(d, f"params.{path}.npy"), a)
            save(os.path.join(d, f"grad.{path}.npy"), fg[path])
        for k, v in inputs.items():
            save(os.path.join(d, f"{k}.npy"), v)
        for k, v in gx.items():
            save(os.path.join(d, f"grad_{k}.npy"), v)
        save(os.path.join(d, "y.npy"), y)
        manifest["layers"].append({
            "name": name, "params": sorted(fp), "inputs": list(inputs),
            "grad_inputs": float_inputs, "y_shape": list(y.shape)})
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    total = sum(os.path.getsize(os.path.join(r, n)) for r, _, ns in os.walk(OUT) for n in ns)
    print(f"wrote {OUT}: {total} bytes")


if __name__ == "__main__":
    main()
