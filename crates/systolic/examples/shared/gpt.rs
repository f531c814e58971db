//! A GPT-style character-level language model (learned token and position embeddings, pre-norm
//! blocks of causal multi-head attention and a GELU MLP, a final LayerNorm, the output head
//! tied to the token embedding), its data (a text as character ids, random windows) and its
//! AdamW training step, built from `systolic::nn` layers and `systolic::optim`.
//!
//! Shared by `examples/train_lm.rs` and the tour's language-model stage
//! (`systolic-cli/src/tour/language_model.rs` includes this file by path), and mirrored op for op
//! by `scripts/train_lm_golden.py` in flax and optax: the same parameter tree (flax's leaf
//! names), the same initialisation from the same key, the same batches, so the first losses of
//! both are equal (`tests/train_lm.rs`).
//!
//! With `compute = bf16` every layer computes in bf16 from f32 parameters (flax's
//! `dtype=jnp.bfloat16, param_dtype=jnp.float32`): products in bf16 with f32 accumulation,
//! LayerNorm statistics and the loss in f32.

use systolic::{lax, nn, numpy as np, optim, random, value_and_grad, Array, Tree};
use systolic_ir::DType;

/// The model's sizes and the batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Distinct characters.
    pub vocab: i64,
    pub d_model: i64,
    pub heads: i64,
    pub layers: usize,
    /// The context: tokens per training window.
    pub context: i64,
    /// Windows per step.
    pub batch: i64,
}

impl Config {
    /// The README's model: 4 layers, d 256, context 128 (about 3.2M parameters).
    #[allow(dead_code)] // each includer of this file uses its own configurations
    pub fn standard(vocab: i64) -> Config {
        Config {
            vocab,
            d_model: 256,
            heads: 8,
            layers: 4,
            context: 128,
            batch: 32,
        }
    }

    /// The golden's and the tour's: small enough for a debug-build test.
    #[allow(dead_code)]
    pub fn tiny(vocab: i64) -> Config {
        Config {
            vocab,
            d_model: 64,
            heads: 4,
            layers: 2,
            context: 32,
            batch: 8,
        }
    }

    /// The number of parameters.
    #[allow(dead_code)]
    pub fn params(&self) -> i64 {
        let d = self.d_model;
        let block = 2 * 2 * d + 4 * (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d);
        self.vocab * d + self.context * d + self.layers as i64 * block + 2 * d
    }

    /// Model FLOPs of one training step (forward and backward: 6 per parameter per token for
    /// the products, plus attention's two `T×T` products per layer, three times).
    #[allow(dead_code)]
    pub fn step_flops(&self) -> f64 {
        let tokens = (self.batch * self.context) as f64;
        let dense = (self.params() - self.context * self.d_model) as f64;
        let attn = 2.0 * 2.0 * (self.context * self.d_model) as f64 * self.layers as f64;
        3.0 * tokens * (2.0 * dense + attn)
    }
}

/// One block's parameters, named as flax names a block of `LayerNorm`, `SelfAttention`,
/// `LayerNorm`, `Dense`, `Dense`.
#[derive(Tree, Clone)]
pub struct Block {
    pub ln1: nn::LayerNormParams,
    pub attn: nn::AttentionParams,
    pub ln2: nn::LayerNormParams,
    pub fc: nn::DenseParams,
    pub proj: nn::DenseParams,
}

/// The model's parameters (f32).
#[derive(Tree, Clone)]
pub struct Params {
    pub wte: nn::EmbedParams,
    /// Learned positions, `[context, d_model]`.
    pub wpe: Array,
    pub blocks: Vec<Block>,
    pub ln_f: nn::LayerNormParams,
}

/// How each leaf is drawn: GPT-2's `normal(0.02)` for the embeddings and kernels (the two
/// projections back into the residual stream scaled by `1/sqrt(2·layers)`), zeros for biases,
/// ones for LayerNorm scales.
fn leaf_init(path: &str, layers: usize) -> nn::initializers::Initializer {
    use nn::initializers::{normal, ones, zeros};
    if path.ends_with(".scale") {
        ones()
    } else if path.ends_with(".bias") {
        zeros()
    } else if path.contains(".proj.") || path.contains(".attn.out.") {
        normal(0.02 / (2.0 * layers as f64).sqrt())
    } else {
        normal(0.02)
    }
}

/// The parameter tree with every leaf's shape, zero-filled (the template `init` fills).
fn template(cfg: &Config) -> Params {
    let (d, h) = (cfg.d_model, cfg.heads);
    let z = |s: &[i64]| np::zeros(s, DType::F32);
    let ln = || nn::LayerNormParams {
        scale: Some(z(&[d])),
        bias: Some(z(&[d])),
    };
    let dense = |i: i64, o: i64| nn::DenseParams {
        kernel: z(&[i, o]),
        bias: Some(z(&[o])),
    };
    let heads = || nn::DenseParams {
        kernel: z(&[d, h, d / h]),
        bias: Some(z(&[h, d / h])),
    };
    let block = || Block {
        ln1: ln(),
        attn: nn::AttentionParams {
            query: heads(),
            key: heads(),
            value: heads(),
            out: nn::DenseParams {
                kernel: z(&[h, d / h, d]),
                bias: Some(z(&[d])),
            },
            query_ln: None,
            key_ln: None,
        },
        ln2: ln(),
        fc: dense(d, 4 * d),
        proj: dense(4 * d, d),
    };
    Params {
        wte: nn::EmbedParams {
            embedding: z(&[cfg.vocab, d]),
        },
        wpe: z(&[cfg.context, d]),
        blocks: (0..cfg.layers).map(|_| block()).collect(),
        ln_f: ln(),
    }
}

/// The parameters drawn from `key`: `split(key, leaves)`, leaf `i` (in the tree's order, the
/// order of `tree::flatten_with_path`) from key `i` by [`leaf_init`].
pub fn init(cfg: &Config, key: &Array) -> systolic::Result<Params> {
    let shape = template(cfg);
    let (leaves, _) = systolic::tree::flatten_with_path(&shape);
    let keys = random::split(key, leaves.len() as i64);
    let drawn: Vec<Array> = leaves
        .iter()
        .zip(&keys)
        .map(|((path, leaf), k)| {
            leaf_init(&path.to_string(), cfg.layers).init(k, leaf.shape(), DType::F32)
        })
        .collect();
    for a in &drawn {
        a.check()?;
    }
    systolic::tree::unflatten_as(&shape, drawn)
}

/// The layers, configured for a computation dtype.
struct Layers {
    wte: nn::Embed,
    norm: nn::LayerNorm,
    attn: nn::MultiHeadDotProductAttention,
    fc: nn::Dense,
    proj: nn::Dense,
    compute: DType,
}

impl Layers {
    fn new(cfg: &Config, compute: DType) -> Layers {
        let dtype = Some(compute);
        Layers {
            wte: nn::Embed {
                dtype,
                ..nn::Embed::new(cfg.vocab, cfg.d_model)
            },
            norm: nn::LayerNorm {
                epsilon: 1e-5,
                dtype,
                ..nn::LayerNorm::new()
            },
            attn: nn::MultiHeadDotProductAttention {
                dtype,
                ..nn::MultiHeadDotProductAttention::new(cfg.heads)
            },
            fc: nn::Dense {
                dtype,
                ..nn::Dense::new(4 * cfg.d_model)
            },
            proj: nn::Dense {
                dtype,
                ..nn::Dense::new(cfg.d_model)
            },
            compute,
        }
    }
}

/// The logits (f32, `[batch, T, vocab]`) of token ids `[batch, T]` (`T` ≤ the context).
pub fn logits(p: &Params, ids: &Array, compute: DType) -> Array {
    let cfg_vocab = p.wte.embedding.shape()[0];
    let d = p.wte.embedding.shape()[1];
    let cfg = Config {
        vocab: cfg_vocab,
        d_model: d,
        heads: heads_of(p),
        layers: p.blocks.len(),
        context: p.wpe.shape()[0],
        batch: 0,
    };
    let l = Layers::new(&cfg, compute);
    let t = ids.shape()[ids.ndim() - 1];
    let pos = np::astype(
        &lax::slice(&p.wpe, &[0, 0], &[t, p.wpe.shape()[1]], None),
        l.compute,
    );
    let mut x = &l.wte.apply(&p.wte, ids) + &pos;
    let mask = nn::make_causal_mask(ids, 0, DType::Bool);
    for b in &p.blocks {
        let h = l.norm.apply(&b.ln1, &x);
        x = &x + &l.attn.apply(&b.attn, &h, None, None, Some(&mask), None);
        let h = l.norm.apply(&b.ln2, &x);
        let h = nn::gelu(&l.fc.apply(&b.fc, &h), true);
        x = &x + &l.proj.apply(&b.proj, &h);
    }
    let x = l.norm.apply(&p.ln_f, &x);
    np::astype(&l.wte.attend(&p.wte, &x), DType::F32)
}

/// The number of heads, from the query kernel `[d, heads, head_dim]`.
fn heads_of(p: &Params) -> i64 {
    p.blocks
        .first()
        .map_or(1, |b| b.attn.query.kernel.shape()[1])
}

/// Mean next-token cross-entropy of `logits(inputs)` against `targets` (nats).
pub fn loss(p: &Params, inputs: &Array, targets: &Array, compute: DType) -> Array {
    let logp = nn::log_softmax(&logits(p, inputs, compute), -1);
    let picked = np::take_along_axis(&logp, &np::expand_dims(targets, -1), -1);
    -np::mean(&picked, None, false)
}

/// AdamW with warmup-cosine decay, weight decay on matrices only, gradients clipped to global
/// norm 1: nanoGPT's recipe in optax's terms.
pub fn optimizer(peak_lr: f64, warmup: i64, steps: i64) -> optim::GradientTransformation {
    let lr = optim::warmup_cosine_decay_schedule(0.0, peak_lr, warmup, steps, peak_lr / 10.0, 1.0);
    optim::chain(vec![
        optim::clip_by_global_norm(1.0),
        optim::Adamw {
            adam: optim::Adam {
                b2: 0.95,
                ..Default::default()
            },
            weight_decay: 0.1,
            mask: Some(optim::Mask::new(|_, p| p.ndim() >= 2)),
        }
        .build(lr),
    ])
}

/// What a training step takes and returns.
pub type State = (Params, optim::OptState);

/// One training step: `((params, opt_state), inputs, targets) -> ((params, opt_state), loss)`.
/// Jit it: `jit(|(s, x, y)| train_step(&opt, s, x, y, compute))`.
pub fn train_step(
    opt: &optim::GradientTransformation,
    (params, opt_state): &State,
    inputs: &Array,
    targets: &Array,
    compute: DType,
) -> systolic::Result<(State, Array)> {
    let (value, grads) =
        value_and_grad(|p: &Params| loss(p, inputs, targets, compute)).call(params)?;
    let (updates, opt_state) = opt.update(&grads, opt_state, params)?;
    let params = optim::apply_updates(params, &updates)?;
    Ok(((params, opt_state), value))
}

/// A text as character ids: the sorted distinct characters are the vocabulary.
pub struct Corpus {
    pub chars: Vec<char>,
    pub ids: Vec<i32>,
}

impl Corpus {
    pub fn new(text: &str) -> Corpus {
        let mut chars: Vec<char> = text.chars().collect();
        chars.sort_unstable();
        chars.dedup();
        let ids = text
            .chars()
            .map(|c| chars.binary_search(&c).map_or(0, |i| i as i32))
            .collect();
        Corpus { chars, ids }
    }

    /// The first 90% of the ids (training) and the rest (validation).
    pub fn split(&self) -> (&[i32], &[i32]) {
        self.ids.split_at(self.ids.len() * 9 / 10)
    }

    /// Ids to text (unknown ids as `?`).
    #[allow(dead_code)]
    pub fn decode(&self, ids: &[i32]) -> String {
        ids.iter()
            .map(|&i| self.chars.get(i as usize).copied().unwrap_or('?'))
            .collect()
    }

    /// Text to ids (characters outside the vocabulary as id 0).
    #[allow(dead_code)]
    pub fn encode(&self, text: &str) -> Vec<i32> {
        text.chars()
            .map(|c| self.chars.binary_search(&c).map_or(0, |i| i as i32))
            .collect()
    }
}

/// Batch `step`'s window starts: `randint(fold_in(key, step), [batch], 0, len - context)`, as
/// `jax.random` draws them (bit for bit), so a batch depends only on the seed and the step (a
/// resumed run sees the batches the uninterrupted one would).
pub fn batch_starts(
    cfg: &Config,
    key: &Array,
    step: i64,
    len: usize,
) -> systolic::Result<Vec<i32>> {
    let hi = len as i64 - cfg.context;
    let starts = random::randint(&random::fold_in(key, step), &[cfg.batch], 0, hi, DType::I32);
    starts.to_vec::<i32>()
}

/// `(inputs, targets)`, each `[batch, context]` int32: the windows at `starts` and the same
/// windows one character on.
pub fn batch(cfg: &Config, data: &[i32], starts: &[i32]) -> (Array, Array) {
    let t = cfg.context as usize;
    let mut x = Vec::with_capacity(starts.len() * t);
    let mut y = Vec::with_capacity(starts.len() * t);
    for &s in starts {
        let s = s as usize;
        x.extend_from_slice(&data[s..s + t]);
        y.extend_from_slice(&data[s + 1..s + t + 1]);
    }
    let shape = [starts.len() as i64, cfg.context];
    (Array::from_vec(x, &shape), Array::from_vec(y, &shape))
}
