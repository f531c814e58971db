//! The tour's training program, written with the Rust front end (`systolic`) the way a JAX
//! user writes it: a synthetic classification data set drawn from `PRNGKey(0)`, an MLP whose
//! parameters are a `#[derive(Tree)]` struct initialised from the same key, SGD steps of a
//! `jit(value_and_grad)`, and per-example gradient norms with `vmap(grad)`.
//!
//! `scripts/export_tour_training.py` runs the identical program in JAX and records its numbers
//! in `tests/data/tour_training.json`, embedded here as [`REFERENCE_JSON`]. This file depends
//! only on `systolic` and `serde_json`, so that the integration test `tests/tour_training.rs`
//! runs it in-process (`#[path]`); the tour stages that print it are in `training.rs`.

use std::cell::RefCell;
use std::time::Instant;
use systolic::numpy::{self as np, Split, TakeMode};
use systolic::{grad, jit, nn, random, tree_leaves, value_and_grad, vmap, Array, Tree};
use systolic_ir::DType;

/// JAX's numbers for this program (`scripts/export_tour_training.py`).
pub const REFERENCE_JSON: &str = include_str!("../../tests/data/tour_training.json");

/// Layer widths: features, hidden, hidden, classes.
pub const SIZES: [i64; 4] = [8, 64, 64, 4];
/// Examples in the data set.
pub const EXAMPLES: i64 = 512;
/// Examples per SGD step; the data set is cut into `EXAMPLES / BATCH` fixed batches, used in
/// turn.
pub const BATCH: i64 = 64;
/// SGD steps.
pub const STEPS: usize = 120;
/// Learning rate.
pub const LR: f64 = 0.1;
/// The loss is printed (and checked) every this many steps, and at the last step.
pub const PRINT_EVERY: usize = 10;
/// Class centres are `normal * CENTER_SCALE`; the noise around them is unit normal.
pub const CENTER_SCALE: f64 = 0.6;
/// Examples whose per-example gradient norms are computed.
pub const PER_EXAMPLE: i64 = 16;

/// Relative tolerance of a loss against JAX's. Both sides compute in f32 with different
/// summation orders (matmul blocking, reduction trees), so each step differs by a few ulp
/// (~1e-7 relative) and SGD carries those differences along. Over these 120 steps of a
/// well-conditioned problem the losses stayed within 1.2e-7 of JAX's when recorded (the
/// stage prints the largest difference); 1e-5 leaves two orders of magnitude for other
/// kernels and summation orders and is still far below what a wrong program gives (a
/// different initialisation, gradient or learning rate moves the losses by 1e-3 or more).
pub const LOSS_RTOL: f64 = 1e-5;
/// Relative tolerance of a per-example gradient norm: one forward and backward pass at the
/// initial parameters, a few ulp of f32 summation-order differences (3.1e-7 when recorded).
pub const NORM_RTOL: f64 = 1e-5;
/// Correct predictions may differ from JAX's by this many examples: an example within a
/// rounding error of the decision boundary may fall either way (none did when recorded).
pub const CORRECT_SLACK: i64 = 2;
/// Relative tolerance of the data set's checksum (a sum of 4096 f32 values in some order).
pub const SUM_RTOL: f64 = 1e-5;

/// One dense layer.
#[derive(Tree, Clone)]
pub struct Dense {
    /// Weights, `[fan_in, fan_out]`.
    pub w: Array,
    /// Bias, `[fan_out]`.
    pub b: Array,
}

/// The model: its parameters as a pytree (JAX's list of `{"w", "b"}` dicts).
#[derive(Tree, Clone)]
pub struct Mlp {
    /// Hidden layers (relu), then the output layer.
    pub layers: Vec<Dense>,
}

/// JAX's recorded numbers.
pub struct Reference {
    /// `jax.__version__` of the recording.
    pub jax_version: String,
    /// (step, loss) at every printed step.
    pub losses: Vec<(usize, f64)>,
    /// Full-data loss and correct predictions before training.
    pub initial: (f64, i64),
    /// Full-data loss and correct predictions after training.
    pub final_: (f64, i64),
    /// Per-example gradient norms at the initial parameters.
    pub norms: Vec<f64>,
    /// Sum of the data set's features.
    pub x_sum: f64,
    /// Examples per class.
    pub label_counts: Vec<i64>,
}

/// Parses [`REFERENCE_JSON`] and checks that it was recorded for this program's constants.
pub fn reference() -> Result<Reference, String> {
    let bad = |what: &str| format!("the bundled tour_training.json lacks {what}");
    let j: serde_json::Value = serde_json::from_str(REFERENCE_JSON)
        .map_err(|e| format!("the bundled tour_training.json is invalid: {e}"))?;
    let f = |v: &serde_json::Value, what: &str| v.as_f64().ok_or_else(|| bad(what));
    let i = |v: &serde_json::Value, what: &str| v.as_i64().ok_or_else(|| bad(what));
    let c = &j["config"];
    let sizes: Vec<i64> = c["sizes"]
        .as_array()
        .ok_or_else(|| bad("config.sizes"))?
        .iter()
        .map(|v| i(v, "config.sizes"))
        .collect::<Result<_, _>>()?;
    let same = sizes == SIZES
        && i(&c["examples"], "config.examples")? == EXAMPLES
        && i(&c["batch"], "config.batch")? == BATCH
        && i(&c["steps"], "config.steps")? == STEPS as i64
        && f(&c["lr"], "config.lr")? == LR
        && i(&c["print_every"], "config.print_every")? == PRINT_EVERY as i64
        && f(&c["center_scale"], "config.center_scale")? == CENTER_SCALE
        && i(&c["per_example"], "config.per_example")? == PER_EXAMPLE;
    if !same {
        return Err(format!(
            "the bundled tour_training.json was recorded for another configuration ({c}); \
             rerun scripts/export_tour_training.py"
        ));
    }
    let pair = |v: &serde_json::Value, what: &str| -> Result<(f64, i64), String> {
        Ok((f(&v["loss"], what)?, i(&v["correct"], what)?))
    };
    Ok(Reference {
        jax_version: j["jax_version"]
            .as_str()
            .ok_or_else(|| bad("jax_version"))?
            .into(),
        losses: j["losses"]
            .as_array()
            .ok_or_else(|| bad("losses"))?
            .iter()
            .map(|e| Ok((i(&e["step"], "losses")? as usize, f(&e["loss"], "losses")?)))
            .collect::<Result<_, String>>()?,
        initial: pair(&j["initial"], "initial")?,
        final_: pair(&j["final"], "final")?,
        norms: j["per_example_grad_norms"]
            .as_array()
            .ok_or_else(|| bad("per_example_grad_norms"))?
            .iter()
            .map(|v| f(v, "per_example_grad_norms"))
            .collect::<Result<_, _>>()?,
        x_sum: f(&j["data_checksum"]["x_sum"], "data_checksum.x_sum")?,
        label_counts: j["data_checksum"]["label_counts"]
            .as_array()
            .ok_or_else(|| bad("data_checksum.label_counts"))?
            .iter()
            .map(|v| i(v, "data_checksum.label_counts"))
            .collect::<Result<_, _>>()?,
    })
}

/// `make_data(key)`: a random centre per class, a random label per example, unit noise.
pub fn make_data(key: &Array) -> (Array, Array) {
    let keys = random::split(key, 3);
    let (features, classes) = (SIZES[0], SIZES[SIZES.len() - 1]);
    let centers = random::normal(&keys[0], &[classes, features], DType::F32) * CENTER_SCALE;
    let labels = random::randint(&keys[1], &[EXAMPLES], 0i32, classes as i32, DType::I32);
    let x = &np::take(&centers, &labels, Some(0), TakeMode::Fill)
        + &random::normal(&keys[2], &[EXAMPLES, features], DType::F32);
    (x, labels)
}

/// `init_mlp(key)`: one key per layer, He-normal weights, zero biases.
pub fn init_mlp(key: &Array) -> Mlp {
    let keys = random::split(key, SIZES.len() as i64 - 1);
    let layers = SIZES
        .windows(2)
        .zip(&keys)
        .map(|(mn, k)| {
            let (m, n) = (mn[0], mn[1]);
            Dense {
                w: random::normal(k, &[m, n], DType::F32) * (2.0 / m as f64).sqrt(),
                b: np::zeros(&[n], DType::F32),
            }
        })
        .collect();
    Mlp { layers }
}

/// The logits: relu hidden layers, a linear output layer.
pub fn logits_of(p: &Mlp, x: &Array) -> Array {
    let (last, hidden) = p.layers.split_last().expect("the MLP has layers");
    let mut h = x.clone();
    for l in hidden {
        h = nn::relu(&(&np::matmul(&h, &l.w) + &l.b));
    }
    &np::matmul(&h, &last.w) + &last.b
}

/// Mean softmax cross-entropy of `logits` against integer labels `y`.
fn cross_entropy(logits: &Array, y: &Array) -> Array {
    let classes = SIZES[SIZES.len() - 1];
    let ll = &nn::log_softmax(logits, -1) * &nn::one_hot(y, classes, DType::F32);
    -np::mean(&np::sum(&ll, Some(&[-1]), false), None, false)
}

/// The training loss.
pub fn loss_fn(p: &Mlp, x: &Array, y: &Array) -> Array {
    cross_entropy(&logits_of(p, x), y)
}

/// The first error a transformation reported while a function was being traced: `jit`'s
/// functions return trees, not `Result`s, so an error inside is kept here and reported after
/// the call instead of panicking.
#[derive(Default)]
struct TraceError(RefCell<Option<systolic::Error>>);

impl TraceError {
    /// `r`'s value, or `fallback` after keeping the error.
    fn keep<T>(&self, r: systolic::Result<T>, fallback: impl FnOnce() -> T) -> T {
        r.unwrap_or_else(|e| {
            self.0.borrow_mut().get_or_insert(e);
            fallback()
        })
    }

    /// The kept error, if any.
    fn check(&self) -> systolic::Result<()> {
        match self.0.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// What training did.
pub struct Training {
    /// (step, loss) at every printed step.
    pub losses: Vec<(usize, f32)>,
    /// Full-data (loss, correct) before and after training.
    pub initial: (f32, i64),
    /// See `initial`.
    pub final_: (f32, i64),
    /// Sum of the data set's features.
    pub x_sum: f64,
    /// Examples per class.
    pub label_counts: Vec<i64>,
    /// Data generation and initialisation, ms (eager ops, each compiled once).
    pub setup_ms: f64,
    /// The first step: tracing, differentiation, compilation and the run, ms.
    pub compile_first_ms: f64,
    /// Every later step's time, ms (each waits for its loss).
    pub step_ms: Vec<f64>,
    /// Parameters of the model.
    pub parameters: usize,
}

/// Full-data (loss, correct predictions) of `p`.
fn evaluate(p: &Mlp, x: &Array, y: &Array) -> systolic::Result<(f32, i64)> {
    let eval = jit(|(p, x, y): &(Mlp, Array, Array)| {
        let logits = logits_of(p, x);
        let hit = np::equal(&np::argmax(&logits, -1, false), y);
        let correct = np::sum(&np::astype(&hit, DType::I32), None, false);
        (cross_entropy(&logits, y), correct)
    })
    .named("evaluate");
    let (loss, correct) = eval.call(&(p.clone(), x.clone(), y.clone()))?;
    Ok((loss.to_vec::<f32>()?[0], correct.to_vec::<i32>()?[0] as i64))
}

/// Generates the data, initialises the model and trains it for [`STEPS`] SGD steps.
pub fn train() -> systolic::Result<Training> {
    let t0 = Instant::now();
    let keys = random::split(&random::key(0), 2);
    let (x, y) = make_data(&keys[0]);
    let mut params = init_mlp(&keys[1]);
    let batches = (EXAMPLES / BATCH) as usize;
    let xs = np::split(&x, Split::Sections(batches as i64), 0)?;
    let ys = np::split(&y, Split::Sections(batches as i64), 0)?;
    let x_sum = f64::from(np::sum(&x, None, false).to_vec::<f32>()?[0]);
    let mut label_counts = vec![0i64; SIZES[SIZES.len() - 1] as usize];
    for l in y.to_vec::<i32>()? {
        label_counts[l as usize] += 1;
    }
    let parameters = tree_leaves(&params).iter().map(Array::size).sum();
    let initial = evaluate(&params, &x, &y)?;
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;

    let failed = TraceError::default();
    let step = jit(|(p, x, y): &(Mlp, Array, Array)| {
        let vg = value_and_grad(|p: &Mlp| loss_fn(p, x, y)).call(p);
        let (loss, g) = failed.keep(vg, || (np::zeros(&[], DType::F32), p.clone()));
        let new = Mlp {
            layers: p
                .layers
                .iter()
                .zip(&g.layers)
                .map(|(l, d)| Dense {
                    w: &l.w - &(&d.w * LR),
                    b: &l.b - &(&d.b * LR),
                })
                .collect(),
        };
        (loss, new)
    })
    .named("train_step");

    let mut losses = vec![];
    let mut step_ms = Vec::with_capacity(STEPS);
    let mut compile_first_ms = 0.0;
    for s in 0..STEPS {
        let i = s % batches;
        let t = Instant::now();
        let (loss, new) = step.call(&(params, xs[i].clone(), ys[i].clone()))?;
        failed.check()?;
        loss.block_until_ready()?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if s == 0 {
            compile_first_ms = ms;
        } else {
            step_ms.push(ms);
        }
        params = new;
        if s % PRINT_EVERY == 0 || s == STEPS - 1 {
            losses.push((s, loss.to_vec::<f32>()?[0]));
        }
    }
    let final_ = evaluate(&params, &x, &y)?;
    Ok(Training {
        losses,
        initial,
        final_,
        x_sum,
        label_counts,
        setup_ms,
        compile_first_ms,
        step_ms,
        parameters,
    })
}

/// What the per-example gradients gave.
pub struct PerExample {
    /// The gradient's norm for each of the first [`PER_EXAMPLE`] examples.
    pub norms: Vec<f32>,
    /// The norm of the batch gradient, and of the mean of the per-example gradients (equal
    /// up to rounding: the loss is a mean over examples).
    pub batch_norm: (f32, f32),
    /// Compile + first run, ms.
    pub compile_first_ms: f64,
    /// A second run, ms.
    pub run_ms: f64,
}

/// `sqrt(sum of squares)` over every axis but the first, summed over the leaves of `g`.
fn norms_per_row(g: &Mlp) -> Array {
    let squares: Vec<Array> = tree_leaves(g)
        .iter()
        .map(|leaf| {
            let axes: Vec<i64> = (1..leaf.ndim() as i64).collect();
            np::sum(&(leaf * leaf), Some(&axes), false)
        })
        .collect();
    let total = squares[1..].iter().fold(squares[0].clone(), |a, b| &a + b);
    np::sqrt(&total)
}

/// Per-example gradient norms at the initial parameters on the first [`PER_EXAMPLE`]
/// examples: `vmap(grad(loss))` over (x, y) with the parameters unmapped, under `jit`.
pub fn per_example_grad_norms() -> systolic::Result<PerExample> {
    let keys = random::split(&random::key(0), 2);
    let (x, y) = make_data(&keys[0]);
    let params = init_mlp(&keys[1]);
    let cut = Split::Indices(vec![PER_EXAMPLE]);
    let x = np::split(&x, cut.clone(), 0)?.swap_remove(0);
    let y = np::split(&y, cut, 0)?.swap_remove(0);

    let failed = TraceError::default();
    let f = jit(|(p, x, y): &(Mlp, Array, Array)| {
        // The loss of one example, as a batch of one.
        let one = |(p, x, y): &(Mlp, Array, Array)| -> Mlp {
            let (x, y) = (np::expand_dims(x, 0), np::expand_dims(y, 0));
            failed.keep(grad(|p: &Mlp| loss_fn(p, &x, &y)).call(p), || p.clone())
        };
        let mut axes = vec![None; tree_leaves(p).len()];
        axes.extend([Some(0), Some(0)]);
        let per = vmap(one)
            .in_axes(axes)
            .call(&(p.clone(), x.clone(), y.clone()));
        let per = failed.keep(per, || p.clone());
        let whole = failed.keep(grad(|p: &Mlp| loss_fn(p, x, y)).call(p), || p.clone());
        let mean_of_per = Mlp {
            layers: per
                .layers
                .iter()
                .map(|l| Dense {
                    w: np::mean(&l.w, Some(&[0]), true),
                    b: np::mean(&l.b, Some(&[0]), true),
                })
                .collect(),
        };
        let whole = Mlp {
            layers: whole
                .layers
                .iter()
                .map(|l| Dense {
                    w: np::expand_dims(&l.w, 0),
                    b: np::expand_dims(&l.b, 0),
                })
                .collect(),
        };
        (
            norms_per_row(&per),
            norms_per_row(&whole),
            norms_per_row(&mean_of_per),
        )
    })
    .named("per_example_grad_norms");
    let args = (params, x, y);
    let t = Instant::now();
    let (norms, whole, mean) = f.call(&args)?;
    failed.check()?;
    norms.block_until_ready()?;
    let compile_first_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    f.call(&args)?.0.block_until_ready()?;
    let run_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(PerExample {
        norms: norms.to_vec::<f32>()?,
        batch_norm: (whole.to_vec::<f32>()?[0], mean.to_vec::<f32>()?[0]),
        compile_first_ms,
        run_ms,
    })
}

/// `|got - want| / |want|`, the relative difference.
pub fn rel(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs().max(f64::MIN_POSITIVE)
}

/// Checks training against JAX: the data set (label counts exactly, the feature sum within
/// [`SUM_RTOL`]), every printed loss and the full-data losses within [`LOSS_RTOL`], and the
/// correct predictions within [`CORRECT_SLACK`].
/// Returns the largest relative loss difference.
pub fn check_training(t: &Training, r: &Reference) -> Result<f64, String> {
    if t.label_counts != r.label_counts {
        return Err(format!(
            "the generated labels differ from JAX's: {:?} examples per class, JAX {:?}",
            t.label_counts, r.label_counts
        ));
    }
    if rel(t.x_sum, r.x_sum) > SUM_RTOL {
        return Err(format!(
            "the generated features differ from JAX's: they sum to {}, JAX's to {}",
            t.x_sum, r.x_sum
        ));
    }
    let steps: Vec<usize> = t.losses.iter().map(|l| l.0).collect();
    let want_steps: Vec<usize> = r.losses.iter().map(|l| l.0).collect();
    if steps != want_steps {
        return Err(format!(
            "losses recorded at steps {steps:?}, JAX's at {want_steps:?}"
        ));
    }
    let mut worst = 0.0f64;
    let named = t
        .losses
        .iter()
        .zip(&r.losses)
        .map(|(&(s, got), &(_, want))| (format!("step {s}"), got, want))
        .chain([
            (
                "the initial full-data loss".to_string(),
                t.initial.0,
                r.initial.0,
            ),
            (
                "the final full-data loss".to_string(),
                t.final_.0,
                r.final_.0,
            ),
        ]);
    for (what, got, want) in named {
        let d = rel(f64::from(got), want);
        if d > LOSS_RTOL {
            return Err(format!(
                "{what}: loss {got} differs from JAX's {want} by {d:.1e} (relative tolerance \
                 {LOSS_RTOL:.0e})"
            ));
        }
        worst = worst.max(d);
    }
    for (what, got, want) in [
        ("before", t.initial.1, r.initial.1),
        ("after", t.final_.1, r.final_.1),
    ] {
        if (got - want).abs() > CORRECT_SLACK {
            return Err(format!(
                "{got} of {EXAMPLES} examples classified correctly {what} training, JAX {want}"
            ));
        }
    }
    Ok(worst)
}

/// Checks the per-example gradient norms against JAX's within [`NORM_RTOL`]; returns the
/// largest relative difference.
pub fn check_per_example(p: &PerExample, r: &Reference) -> Result<f64, String> {
    if p.norms.len() != r.norms.len() {
        return Err(format!(
            "{} per-example gradient norms, JAX has {}",
            p.norms.len(),
            r.norms.len()
        ));
    }
    let mut worst = 0.0f64;
    for (i, (&got, &want)) in p.norms.iter().zip(&r.norms).enumerate() {
        let d = rel(f64::from(got), want);
        if d > NORM_RTOL {
            return Err(format!(
                "example {i}: gradient norm {got} differs from JAX's {want} by {d:.1e} \
                 (relative tolerance {NORM_RTOL:.0e})"
            ));
        }
        worst = worst.max(d);
    }
    let (whole, mean) = p.batch_norm;
    if rel(f64::from(mean), f64::from(whole)) > NORM_RTOL {
        return Err(format!(
            "the mean of the per-example gradients (norm {mean}) is not the batch gradient \
             (norm {whole})"
        ));
    }
    Ok(worst)
}
