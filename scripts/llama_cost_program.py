"""A LLaMA-3-70B-shaped training step as StableHLO with automatic shardings, for
`systolic simulate FILE --slice v5p:... --cost-only`.

Run with the JAX venv (JAX 0.10.2); no devices are needed (an abstract mesh):

    /root/.cache/systolic-jax-venv/bin/python scripts/llama_cost_program.py

The model is LLaMA 3 70B as the scaling book's "Training LLaMA 3 on TPUs" chapter tabulates it
(80 layers, d_model 8192, 64 query heads and 8 key/value heads of 128 (grouped-query
attention), SwiGLU feed-forward of 28672, vocabulary 128256), bf16 parameters and activations,
an f32 loss. The 80 layers are one `jax.lax.scan` over stacked layer weights, each layer under
`jax.checkpoint` (the backward pass recomputes it from its input), so the module stays small.

Shardings follow the book's plan for this model (mixed FSDP and tensor parallelism, about
1024–2048-way FSDP × 4-way model parallelism, 4M-token batch): a mesh ('data', 'model'); the
batch is split over 'data'; every weight matrix is split over 'data' on its d_model side (FSDP:
gathered before use, its gradient reduce-scattered back) and over 'model' on its heads / d_ff /
vocabulary side (Megatron-style tensor parallelism: attention heads and the feed-forward hidden
dimension split, the d_model outputs summed over 'model'). The gathered weights are pinned with
`with_sharding_constraint` so that propagation cannot choose otherwise.

The step is loss, gradients and an SGD update (new parameters returned); the optimiser is kept
trivial on purpose: its cost is elementwise over the parameters and small next to the layers.

Variants written to crates/systolic-cli/tests/data/cost/ (each `NAME.mlir`):

- `llama3_70b_v5p_4096`: mesh data=1024 × model=4 (v5p:16x16x16), 1024 sequences × 4096
  tokens (the book's 4M-token batch at the 4K pre-training sequence length);
- `llama3_70b_v5p_64`: mesh data=16 × model=4 (v5p:4x4x4), 64 sequences × 4096 tokens;
- `llama3_70b_v5p_64_noremat`: as above without rematerialisation: every layer's
  intermediates (attention probabilities included) are saved for the backward pass and do not
  fit a v5p's HBM.

`Config(scan=False)` writes the layers out one by one instead (for partitioners without
`while`); no committed variant uses it.

Options: `--only NAME` writes one variant; `--out DIR` another directory.
"""

import argparse
import math
import os
from dataclasses import dataclass

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "crates",
    "systolic-cli",
    "tests",
    "data",
    "cost",
)


@dataclass(frozen=True)
class Config:
    layers: int = 80
    d_model: int = 8192
    heads: int = 64
    kv_heads: int = 8
    head_dim: int = 128
    d_ff: int = 28672
    vocab: int = 128256
    batch: int = 1024
    seq: int = 4096
    data: int = 1024
    model: int = 4
    remat: bool = True
    scan: bool = True


VARIANTS = {
    "llama3_70b_v5p_4096": Config(),
    "llama3_70b_v5p_64": Config(batch=64, data=16),
    "llama3_70b_v5p_64_noremat": Config(batch=64, data=16, remat=False),
}


def param_specs(c):
    """Global shapes and partition specs of the parameters (layer weights stacked on dim 0)."""
    L, D, F, V = c.layers, c.d_model, c.d_ff, c.vocab
    NH, KH = c.heads * c.head_dim, c.kv_heads * c.head_dim
    return {
        "embed": ((V, D), P(None, "data")),
        "wq": ((L, D, NH), P(None, "data", "model")),
        "wk": ((L, D, KH), P(None, "data", "model")),
        "wv": ((L, D, KH), P(None, "data", "model")),
        "wo": ((L, NH, D), P(None, "model", "data")),
        "w_gate": ((L, D, F), P(None, "data", "model")),
        "w_up": ((L, D, F), P(None, "data", "model")),
        "w_down": ((L, F, D), P(None, "model", "data")),
        "attn_norm": ((L, D), P(None, None)),
        "mlp_norm": ((L, D), P(None, None)),
        "final_norm": ((D,), P(None)),
        "unembed": ((D, V), P("data", "model")),
    }


# Inside a layer: the FSDP-gathered weight layouts (the 'data' split removed).
GATHERED = {
    "wq": P(None, "model"),
    "wk": P(None, "model"),
    "wv": P(None, "model"),
    "wo": P("model", None),
    "w_gate": P(None, "model"),
    "w_up": P(None, "model"),
    "w_down": P("model", None),
}


def rms_norm(x, scale):
    xf = x.astype(jnp.float32)
    y = xf * jax.lax.rsqrt(jnp.mean(xf * xf, axis=-1, keepdims=True) + 1e-5)
    return (y * scale.astype(jnp.float32)).astype(x.dtype)


def rope(x, positions):
    """Rotary position embedding of `x` [..., position, head dim], rotate-half form."""
    half = x.shape[-1] // 2
    freq = 1.0 / (500000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
    angle = positions[:, None].astype(jnp.float32) * freq[None, :]  # [S, half]
    cos, sin = jnp.cos(angle), jnp.sin(angle)  # broadcast over the leading dimensions
    xf = x.astype(jnp.float32)
    x1, x2 = xf[..., :half], xf[..., half:]
    out = jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
    return out.astype(x.dtype)


def make_step(c, mesh):
    wsc = jax.lax.with_sharding_constraint
    act = NamedSharding(mesh, P("data", None, None))
    G = c.heads // c.kv_heads

    def layer(x, w):
        B, S, D = x.shape
        g = {k: wsc(w[k], NamedSharding(mesh, GATHERED[k])) for k in GATHERED}
        h = rms_norm(x, w["attn_norm"])
        # Heads before positions ([batch, kv head, group, position, head dim]) so that every
        # attention product has its two large dimensions minor, as on a TPU's tiles.
        q = (h @ g["wq"]).reshape(B, S, c.kv_heads, G, c.head_dim).transpose(0, 2, 3, 1, 4)
        k = (h @ g["wk"]).reshape(B, S, c.kv_heads, c.head_dim).transpose(0, 2, 1, 3)
        v = (h @ g["wv"]).reshape(B, S, c.kv_heads, c.head_dim).transpose(0, 2, 1, 3)
        pos = jnp.arange(S)
        q, k = rope(q, pos), rope(k, pos)
        scores = jnp.einsum("bkgqh,bksh->bkgqs", q, k, preferred_element_type=jnp.float32)
        scores = scores / math.sqrt(c.head_dim)
        causal = pos[:, None] >= pos[None, :]
        scores = jnp.where(causal, scores, -1e30)
        probs = jax.nn.softmax(scores, axis=-1).astype(x.dtype)
        attn = jnp.einsum("bkgqs,bksh->bkgqh", probs, v)
        attn = attn.transpose(0, 3, 1, 2, 4).reshape(B, S, c.heads * c.head_dim)
        x = wsc(x + attn @ g["wo"], act)
        h = rms_norm(x, w["mlp_norm"])
        ff = jax.nn.silu(h @ g["w_gate"]) * (h @ g["w_up"])
        return wsc(x + ff @ g["w_down"], act)

    if c.remat:
        # prevent_cse=False: inside a scan (JAX's advice) the loop already keeps the
        # recomputation apart, and it leaves out the optimization_barrier.
        layer = jax.checkpoint(layer, prevent_cse=False)

    layer_keys = list(GATHERED) + ["attn_norm", "mlp_norm"]

    def loss_fn(params, tokens, labels):
        x = wsc(jnp.take(params["embed"], tokens, axis=0), act)
        stacked = {k: params[k] for k in layer_keys}
        if c.scan:
            x, _ = jax.lax.scan(lambda x, w: (layer(x, w), None), x, stacked)
        else:
            for i in range(c.layers):
                x = layer(x, {k: v[i] for k, v in stacked.items()})
        x = rms_norm(x, params["final_norm"])
        unembed = wsc(params["unembed"], NamedSharding(mesh, P(None, "model")))
        logits = (x @ unembed).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, axis=-1)
        onehot = jax.nn.one_hot(labels, c.vocab, dtype=jnp.float32)
        return -jnp.mean(jnp.sum(logp * onehot, axis=-1))

    def step(params, tokens, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, labels)
        new = jax.tree.map(lambda p, g: (p - 1e-4 * g).astype(p.dtype), params, grads)
        return new, loss

    return step


def lower(c):
    mesh = AbstractMesh((c.data, c.model), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    specs = param_specs(c)
    params = {
        k: jax.ShapeDtypeStruct(shape, jnp.bfloat16, sharding=NamedSharding(mesh, spec))
        for k, (shape, spec) in specs.items()
    }
    batch = NamedSharding(mesh, P("data", None))
    tokens = jax.ShapeDtypeStruct((c.batch, c.seq), jnp.int32, sharding=batch)
    labels = jax.ShapeDtypeStruct((c.batch, c.seq), jnp.int32, sharding=batch)
    out_shardings = ({k: NamedSharding(mesh, s) for k, (_, s) in specs.items()}, None)
    step = jax.jit(make_step(c, mesh), out_shardings=out_shardings, donate_argnums=0)
    traced = step.trace(params, tokens, labels)
    return traced.lower(lowering_platforms=("tpu",)).as_text()


def parameter_count(c):
    return sum(math.prod(shape) for shape, _ in param_specs(c).values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, c in VARIANTS.items():
        if args.only and name != args.only:
            continue
        text = lower(c)
        path = os.path.join(args.out, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        n = parameter_count(c)
        print(
            f"{name}: {len(text)} chars, {n / 1e9:.2f}e9 parameters, "
            f"{c.batch * c.seq} tokens, mesh data={c.data} x model={c.model} -> {path}"
        )


if __name__ == "__main__":
    main()
