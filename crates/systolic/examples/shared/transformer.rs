//! A small decoder-only transformer (token embedding, pre-norm causal attention and SwiGLU
//! blocks, RMS norms, a vocabulary head, next-token cross-entropy, SGD) and the shardings of
//! its training step under data parallelism, FSDP and FSDP + tensor parallelism, shared by
//! `examples/sharded_transformer.rs` and the tour's sharding stage
//! (`systolic-cli/src/tour/sharded_transformer.rs` includes this file by path), so both train
//! the same model the same way.
//!
//! The step is one global program: `jit(step).in_shardings(…).out_shardings(…)` and the
//! compiler propagates the shardings and partitions it, as `jax.jit` with shardings does.

use systolic::{
    lax, nn, numpy as np, random, tree_map, value_and_grad, Array, Mesh, NamedSharding,
    PartitionSpec, Tree, P,
};
use systolic_ir::DType;

/// The model's and the batch's sizes.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub vocab: i64,
    pub d_model: i64,
    pub heads: i64,
    pub d_ff: i64,
    pub layers: usize,
    pub seq: i64,
    pub batch: i64,
}

impl Config {
    /// Trained on the host devices: small enough for a few steps a second on two cores.
    #[allow(dead_code)] // each includer of this file uses its own configurations
    pub const HOST: Config = Config {
        vocab: 512,
        d_model: 256,
        heads: 8,
        d_ff: 768,
        layers: 2,
        seq: 64,
        batch: 32,
    };

    /// The tour's: the same model, smaller.
    #[allow(dead_code)] // each includer of this file uses its own configurations
    pub const TOUR: Config = Config {
        vocab: 128,
        d_model: 64,
        heads: 4,
        d_ff: 192,
        layers: 2,
        seq: 16,
        batch: 16,
    };

    /// Costed on TPU slices (bf16): a model a slice would train.
    #[allow(dead_code)]
    pub const SLICE: Config = Config {
        vocab: 32_768,
        d_model: 2048,
        heads: 16,
        d_ff: 5632,
        layers: 4,
        seq: 2048,
        batch: 64,
    };

    /// The tour's slice configuration: costed in a second, still a model a chip would hold.
    #[allow(dead_code)]
    pub const TOUR_SLICE: Config = Config {
        vocab: 8192,
        d_model: 1024,
        heads: 8,
        d_ff: 2816,
        layers: 2,
        seq: 1024,
        batch: 16,
    };

    /// Parameters.
    pub fn params(&self) -> i64 {
        let (d, f) = (self.d_model, self.d_ff);
        let layer = 4 * d * d + 3 * d * f + 2 * d;
        2 * self.vocab * d + self.layers as i64 * layer + d
    }
}

/// One block's parameters.
#[derive(Tree, Clone)]
pub struct Layer {
    pub attn_norm: Array,
    pub wq: Array,
    pub wk: Array,
    pub wv: Array,
    pub wo: Array,
    pub mlp_norm: Array,
    pub w_gate: Array,
    pub w_up: Array,
    pub w_down: Array,
}

/// The model's parameters.
#[derive(Tree, Clone)]
pub struct Params {
    /// Attention heads (part of the tree's structure, not an array).
    #[tree(static)]
    pub heads: i64,
    /// How the activations are split (a `with_sharding_constraint` on the embedded tokens,
    /// as JAX models pin their activations' batch dimension), if at all.
    #[tree(static)]
    pub activations: Option<NamedSharding>,
    pub embed: Array,
    pub layers: Vec<Layer>,
    pub final_norm: Array,
    pub head: Array,
}

/// The SGD learning rate.
pub const LEARNING_RATE: f64 = 0.5;

/// Weights `normal / sqrt(fan_in)`, norm scales one.
pub fn init(cfg: &Config, key: &Array, dtype: DType) -> Params {
    let keys = random::split(key, 2 + 7 * cfg.layers as i64);
    let mut k = keys.iter();
    let dense = |shape: &[i64]| {
        let w = random::normal(k.next().expect("enough keys"), shape, DType::F32)
            * (1.0 / (shape[0] as f64).sqrt());
        np::astype(&w, dtype)
    };
    shaped(cfg, dense, |shape| np::ones(shape, dtype))
}

/// Zero parameters of the right shapes (for lowering only: nothing is computed with them).
pub fn zeros(cfg: &Config, dtype: DType) -> Params {
    shaped(
        cfg,
        |shape| np::zeros(shape, dtype),
        |shape| np::zeros(shape, dtype),
    )
}

/// The parameters, each matrix made by `dense` (in the order embedding, each layer's
/// wq, wk, wv, wo, w_gate, w_up, w_down, head) and each norm scale by `norm`.
fn shaped(
    cfg: &Config,
    mut dense: impl FnMut(&[i64]) -> Array,
    norm: impl Fn(&[i64]) -> Array,
) -> Params {
    let (d, f, v) = (cfg.d_model, cfg.d_ff, cfg.vocab);
    let embed = dense(&[v, d]);
    let layers = (0..cfg.layers)
        .map(|_| Layer {
            attn_norm: norm(&[d]),
            wq: dense(&[d, d]),
            wk: dense(&[d, d]),
            wv: dense(&[d, d]),
            wo: dense(&[d, d]),
            mlp_norm: norm(&[d]),
            w_gate: dense(&[d, f]),
            w_up: dense(&[d, f]),
            w_down: dense(&[f, d]),
        })
        .collect();
    Params {
        heads: cfg.heads,
        activations: None,
        embed,
        layers,
        final_norm: norm(&[d]),
        head: dense(&[d, v]),
    }
}

/// A synthetic batch with structure to learn: each sequence counts up by a stride of its own
/// modulo the vocabulary; the targets are the tokens shifted by one.
pub fn batch(cfg: &Config, step: usize) -> (Array, Array) {
    let (b, s, v) = (cfg.batch, cfg.seq, cfg.vocab);
    let token = |i: i64, t: i64| ((i * 7 + step as i64 * 13 + t * (1 + i % 5)) % v) as i32;
    let tokens = (0..b).flat_map(|i| (0..s).map(move |t| token(i, t)));
    let targets = (0..b).flat_map(|i| (0..s).map(move |t| token(i, t + 1)));
    (
        Array::from_vec(tokens.collect(), &[b, s]),
        Array::from_vec(targets.collect(), &[b, s]),
    )
}

fn dense(x: &Array, w: &Array) -> Array {
    np::matmul(x, w)
}

/// Mean next-token cross-entropy (f32) of the model on `tokens` → `targets`.
pub fn loss(p: &Params, tokens: &Array, targets: &Array) -> Array {
    let (b, s) = (tokens.shape()[0], tokens.shape()[1]);
    let d = p.embed.shape()[1];
    let vocab = p.embed.shape()[0];
    let heads = p.heads;
    let dh = d / heads;
    let mut x = np::take(&p.embed, tokens, Some(0), np::TakeMode::Clip);
    if let Some(s) = &p.activations {
        x = lax::with_sharding_constraint(&x, s);
    }
    for l in &p.layers {
        let h = nn::rms_norm(&x, Some(&l.attn_norm), None, 1e-6);
        let split = |w: &Array| np::reshape(&dense(&h, w), &[b, s, heads, dh]);
        let (q, k, v) = (split(&l.wq), split(&l.wk), split(&l.wv));
        let a = nn::dot_product_attention(&q, &k, &v, None, None, None, true);
        x = &x + &dense(&np::reshape(&a, &[b, s, d]), &l.wo);
        let h = nn::rms_norm(&x, Some(&l.mlp_norm), None, 1e-6);
        let gated = &nn::silu(&dense(&h, &l.w_gate)) * &dense(&h, &l.w_up);
        x = &x + &dense(&gated, &l.w_down);
    }
    let h = nn::rms_norm(&x, Some(&p.final_norm), None, 1e-6);
    let logits = np::astype(&dense(&h, &p.head), DType::F32);
    let picked = &nn::log_softmax(&logits, -1) * &nn::one_hot(targets, vocab, DType::F32);
    -np::sum(&picked, None, false) / (b * s) as f64
}

/// The step's argument: the parameters and a batch of (tokens, targets).
pub type StepArgs = (Params, (Array, Array));

/// One SGD step: the new parameters and the loss before it.
pub fn step((p, (tokens, targets)): &StepArgs) -> (Params, Array) {
    let (tokens, targets) = (tokens.clone(), targets.clone());
    let (l, g) = value_and_grad(move |p: &Params| loss(p, &tokens, &targets))
        .call(p)
        .expect("the loss is a float scalar");
    let mut grads = systolic::tree_leaves(&g).into_iter();
    let new = tree_map(p, |w| {
        let gw = grads.next().expect("one gradient per parameter");
        w - &np::astype(&(&gw * LEARNING_RATE), w.dtype())
    })
    .expect("same tree");
    (new, l)
}

/// How the step is split over a mesh with axes `data` and `model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The batch over every device, the parameters replicated (gradients all-reduced).
    DataParallel,
    /// The batch over every device, each weight's rows split over every device too (gathered
    /// where used, gradients reduce-scattered): ZeRO-3 / FSDP.
    Fsdp,
    /// The batch and the weights' FSDP dimension over `data`; attention heads and the MLP's
    /// hidden units over `model` (Megatron's column- then row-parallel pairs), the vocabulary
    /// of the head over `model`.
    FsdpTp,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::DataParallel, Strategy::Fsdp, Strategy::FsdpTp];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::DataParallel => "data parallel",
            Strategy::Fsdp => "FSDP",
            Strategy::FsdpTp => "FSDP + TP",
        }
    }

    /// One sharding per leaf of `(Params, (tokens, targets))`, in leaf order.
    pub fn in_shardings(self, mesh: &Mesh, cfg: &Config) -> Vec<NamedSharding> {
        let ns = |spec: PartitionSpec| NamedSharding::new(mesh, spec).expect("axes of the mesh");
        let all = || P!(("data", "model"));
        let (rows, cols, norm, batch) = match self {
            Strategy::DataParallel => (P!(), P!(), P!(), all()),
            Strategy::Fsdp => (all(), all(), P!(), all()),
            Strategy::FsdpTp => (P!("data", "model"), P!("model", "data"), P!(), P!("data")),
        };
        // `rows`: matrices whose columns are the split (column-parallel) side; `cols`: the
        // row-parallel ones. Under FSDP both are split along their first dimension.
        let mut out = vec![match self {
            Strategy::FsdpTp => ns(P!(None, "data")),
            _ => ns(rows.clone()),
        }];
        for _ in 0..cfg.layers {
            out.push(ns(norm.clone()));
            for _ in 0..3 {
                out.push(ns(rows.clone()));
            }
            out.push(ns(cols.clone()));
            out.push(ns(norm.clone()));
            out.push(ns(rows.clone()));
            out.push(ns(rows.clone()));
            out.push(ns(cols.clone()));
        }
        out.push(ns(norm));
        out.push(ns(rows));
        out.push(ns(batch.clone()));
        out.push(ns(batch));
        out
    }

    /// `params` with the activations pinned to this strategy's batch split (the embedded
    /// tokens' batch dimension over the batch's axes): without it propagation may split the
    /// activations like an FSDP embedding table's features instead, and replicate the batch.
    pub fn pin_activations(self, params: &Params, mesh: &Mesh) -> Params {
        let batch = match self {
            Strategy::DataParallel | Strategy::Fsdp => P!(("data", "model"), None, None),
            Strategy::FsdpTp => P!("data", None, None),
        };
        Params {
            activations: Some(NamedSharding::new(mesh, batch).expect("axes of the mesh")),
            ..params.clone()
        }
    }

    /// The step's out shardings: the parameters as they came in, the loss as propagated.
    pub fn out_shardings(self, mesh: &Mesh, cfg: &Config) -> Vec<Option<NamedSharding>> {
        let ins = self.in_shardings(mesh, cfg);
        let params = ins.len() - 2;
        ins.into_iter()
            .take(params)
            .map(Some)
            .chain([None])
            .collect()
    }
}

/// The step's global program (`lowered` on any mesh with axes `data` and `model`) on a
/// `data`×`model` mesh of `slice`'s chips, partitioned and costed on every chip. The program
/// names mesh axes, not their sizes (as JAX's lowering on an abstract mesh does), so setting
/// the sizes re-meshes it.
pub fn cost_on_slice(
    lowered: &systolic_ir::Module,
    slice: &str,
    data: usize,
    model: usize,
) -> Result<systolic_tpu::SpmdReport, String> {
    let slice: systolic_tpu::slice::Slice = slice.parse().map_err(|e| format!("{slice}: {e}"))?;
    let mut module = lowered.clone();
    for mesh in &mut module.meshes {
        mesh.axes = vec![("data".into(), data as i64), ("model".into(), model as i64)];
    }
    let options = systolic_tpu::SimOptions {
        enforce_hbm: false,
        ..systolic_tpu::SimOptions::default()
    };
    systolic_tpu::simulate_global(&module, &slice, &options, true).map_err(|e| e.to_string())
}
