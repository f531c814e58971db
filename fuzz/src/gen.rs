//! A generator of well-typed StableHLO programs from fuzz bytes (`arbitrary::Unstructured`, re-exported by libfuzzer-sys).
//!
//! The program is `@main` over one to three arguments (f32, i32 or i1; rank 0 to 3) followed
//! by a few ops, each chosen from: elementwise unary and binary ops, compare, select, convert,
//! constant, iota, broadcast_in_dim, reshape, transpose, reduce, dot_general, slice,
//! concatenate and a `while` loop with a trip count of at most four. It returns up to three of
//! the values it made. The generator tracks each value's type, so every op it writes
//! verifies; it writes text (what the parser and every user of the IR start from).
//!
//! Each value also carries an [`Exactness`]: how closely two correct backends must agree on
//! it. Integer and boolean ops, data movement and the correctly rounded float ops agree to the
//! bit; transcendental functions and float sums (whose order fusion may change) agree within
//! a tolerance; and a discontinuous op (compare, floor, a float-to-int convert) or a
//! cancelling one (add, subtract) applied to values that only agree within a tolerance may
//! legitimately differ by anything, so such values are not compared.

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use systolic_ir::{DType, Tensor};

/// How closely a compiled program and the interpreter must agree on a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exactness {
    /// Bit for bit (floats: equal values, NaN equal to NaN, -0 equal to +0).
    Exact,
    /// Within a relative tolerance (floats only).
    Close,
    /// Not compared: legitimately different results are possible.
    Unchecked,
}

/// The element types the generator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// `f32`.
    F32,
    /// `i32`.
    I32,
    /// `i1`.
    Bool,
}

impl Elem {
    fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::I32 => "i32",
            Elem::Bool => "i1",
        }
    }
}

/// The generator's knobs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Most ops after the arguments.
    pub max_ops: usize,
    /// Allow dimensions far beyond what could run (the cost model's programs, never executed).
    pub large_shapes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_ops: 12,
            large_shapes: false,
        }
    }
}

/// A generated program, with inputs for its arguments.
#[derive(Clone, Debug)]
pub struct Program {
    /// The module's text.
    pub text: String,
    /// One tensor per argument of `@main` (empty with [`Options::large_shapes`]).
    pub inputs: Vec<Tensor>,
    /// Per result of `@main`, how closely backends must agree on it.
    pub results: Vec<Exactness>,
}

#[derive(Clone, Debug)]
struct Val {
    name: String,
    shape: Vec<i64>,
    elem: Elem,
    exact: Exactness,
}

fn ty(shape: &[i64], elem: Elem) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s += &format!("{d}x");
    }
    s + elem.name() + ">"
}

impl Val {
    fn ty(&self) -> String {
        ty(&self.shape, self.elem)
    }
}

/// The f32 bits of a float literal, as MLIR's hex form (exact for every value).
fn f32_literal(x: f32) -> String {
    format!("0x{:08X}", x.to_bits())
}

struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    opts: Options,
    vals: Vec<Val>,
    body: Vec<String>,
    next: usize,
}

impl Gen<'_, '_> {
    fn fresh(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("%{stem}{}", self.next)
    }

    fn dim(&mut self) -> Result<i64> {
        if self.opts.large_shapes && self.u.ratio(1, 3)? {
            return Ok(*self.u.choose(&[
                1024,
                1 << 16,
                1 << 20,
                1 << 31,
                3_037_000_499,
                1 << 40,
                i64::MAX / 2,
            ])?);
        }
        Ok(match self.u.int_in_range(0u8..=15)? {
            0 => 0,
            n => i64::from(1 + n % 4),
        })
    }

    fn shape(&mut self) -> Result<Vec<i64>> {
        let rank = self.u.int_in_range(0..=3)?;
        (0..rank).map(|_| self.dim()).collect()
    }

    fn elem(&mut self) -> Result<Elem> {
        Ok(*self
            .u
            .choose(&[Elem::F32, Elem::F32, Elem::I32, Elem::Bool])?)
    }

    fn float(&mut self) -> Result<f32> {
        Ok(match self.u.int_in_range(0u8..=40)? {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => -0.0,
            n => (f32::from(n) - 22.0) * 0.25,
        })
    }

    fn int(&mut self) -> Result<i32> {
        Ok(match self.u.int_in_range(0u8..=40)? {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => 0,
            n => i32::from(n) - 22,
        })
    }

    fn input(&mut self, shape: &[i64], elem: Elem) -> Result<Tensor> {
        let n: i64 = shape.iter().product();
        let n = usize::try_from(n).unwrap_or(0);
        Ok(match elem {
            Elem::F32 => {
                let v = (0..n).map(|_| self.float()).collect::<Result<Vec<_>>>()?;
                Tensor::from_f32(shape.to_vec(), v)
            }
            Elem::I32 => {
                let v = (0..n)
                    .map(|_| self.int().map(i64::from))
                    .collect::<Result<Vec<_>>>()?;
                Tensor::from_i64(shape.to_vec(), DType::I32, v).expect("element count")
            }
            Elem::Bool => {
                let v = (0..n)
                    .map(|_| self.u.arbitrary::<bool>())
                    .collect::<Result<Vec<_>>>()?;
                Tensor::from_bool(shape.to_vec(), v).expect("element count")
            }
        })
    }

    fn pick(&mut self) -> Result<Val> {
        Ok(self.u.choose(&self.vals)?.clone())
    }

    /// Another value of `a`'s type if there is one (chosen by the bytes), else `a` itself.
    fn partner(&mut self, a: &Val) -> Result<Val> {
        let same: Vec<Val> = self
            .vals
            .iter()
            .filter(|v| v.shape == a.shape && v.elem == a.elem)
            .cloned()
            .collect();
        Ok(self.u.choose(&same)?.clone())
    }

    fn push(&mut self, name: String, shape: Vec<i64>, elem: Elem, exact: Exactness) {
        self.vals.push(Val {
            name,
            shape,
            elem,
            exact,
        });
    }

    fn constant(&mut self) -> Result<()> {
        let shape = self.shape()?;
        let elem = self.elem()?;
        let lit = match elem {
            Elem::F32 => {
                let x = self.float()?;
                f32_literal(x)
            }
            Elem::I32 => self.int()?.to_string(),
            Elem::Bool => self.u.arbitrary::<bool>()?.to_string(),
        };
        let v = self.fresh("c");
        let t = ty(&shape, elem);
        self.body
            .push(format!("{v} = stablehlo.constant dense<{lit}> : {t}"));
        self.push(v, shape, elem, Exactness::Exact);
        Ok(())
    }

    fn iota(&mut self) -> Result<()> {
        let mut shape = self.shape()?;
        if shape.is_empty() {
            shape.push(self.dim()?);
        }
        let elem = *self.u.choose(&[Elem::F32, Elem::I32])?;
        let dim = self.u.choose_index(shape.len())?;
        let v = self.fresh("iota");
        let t = ty(&shape, elem);
        self.body
            .push(format!("{v} = stablehlo.iota dim = {dim} : {t}"));
        self.push(v, shape, elem, Exactness::Exact);
        Ok(())
    }

    fn unary(&mut self) -> Result<()> {
        use Exactness::*;
        let a = self.pick()?;
        // (op, exactness of the result from an exact operand, from a close one)
        let choices: &[(&str, Exactness, Exactness)] = match a.elem {
            Elem::F32 => &[
                ("negate", Exact, Close),
                ("abs", Exact, Close),
                ("exponential", Close, Close),
                ("tanh", Close, Close),
                ("sqrt", Exact, Close),
                ("log", Close, Close),
                ("sine", Close, Unchecked),
                ("floor", Exact, Unchecked),
                ("sign", Exact, Unchecked),
            ],
            Elem::I32 => &[
                ("negate", Exact, Unchecked),
                ("abs", Exact, Unchecked),
                ("not", Exact, Unchecked),
                ("popcnt", Exact, Unchecked),
            ],
            Elem::Bool => &[("not", Exact, Unchecked)],
        };
        let &(op, from_exact, from_close) = self.u.choose(choices)?;
        let exact = match a.exact {
            Exact => from_exact,
            Close => from_close,
            Unchecked => Unchecked,
        };
        let v = self.fresh("u");
        self.body
            .push(format!("{v} = stablehlo.{op} {} : {}", a.name, a.ty()));
        self.push(v, a.shape, a.elem, exact);
        Ok(())
    }

    fn binary(&mut self) -> Result<()> {
        use Exactness::*;
        let a = self.pick()?;
        let b = self.partner(&a)?;
        let worst = a.exact.max(b.exact);
        // (op, whether operands that agree only closely make the result unchecked)
        let choices: &[(&str, bool)] = match a.elem {
            Elem::F32 => &[
                ("add", true),
                ("subtract", true),
                ("multiply", false),
                ("divide", true),
                ("maximum", false),
                ("minimum", false),
            ],
            Elem::I32 => &[
                ("add", false),
                ("subtract", false),
                ("multiply", false),
                ("divide", false),
                ("remainder", false),
                ("maximum", false),
                ("minimum", false),
                ("and", false),
                ("or", false),
                ("xor", false),
                ("shift_left", false),
                ("shift_right_arithmetic", false),
            ],
            Elem::Bool => &[("and", false), ("or", false), ("xor", false)],
        };
        let &(op, cancels) = self.u.choose(choices)?;
        let exact = if worst == Close && cancels {
            Unchecked
        } else {
            worst
        };
        let v = self.fresh("b");
        self.body.push(format!(
            "{v} = stablehlo.{op} {}, {} : {}",
            a.name,
            b.name,
            a.ty()
        ));
        self.push(v, a.shape, a.elem, exact);
        Ok(())
    }

    /// A compare of `a` and `b`; its value and exactness.
    fn compare_of(&mut self, a: &Val, b: &Val) -> Result<(String, Exactness)> {
        let dir = *self.u.choose(&["EQ", "NE", "LT", "LE", "GT", "GE"])?;
        let v = self.fresh("cmp");
        let t = a.ty();
        let i1 = ty(&a.shape, Elem::Bool);
        self.body.push(format!(
            "{v} = stablehlo.compare {dir}, {}, {} : ({t}, {t}) -> {i1}",
            a.name, b.name
        ));
        let exact = match a.exact.max(b.exact) {
            Exactness::Exact => Exactness::Exact,
            _ => Exactness::Unchecked,
        };
        Ok((v, exact))
    }

    fn compare(&mut self) -> Result<()> {
        let a = self.pick()?;
        let b = self.partner(&a)?;
        let (v, exact) = self.compare_of(&a, &b)?;
        self.push(v, a.shape, Elem::Bool, exact);
        Ok(())
    }

    fn select(&mut self) -> Result<()> {
        let a = self.pick()?;
        let b = self.partner(&a)?;
        let (p, pred) = self.compare_of(&a, &b)?;
        let (x, y) = if self.u.arbitrary()? {
            (&a, &b)
        } else {
            (&b, &a)
        };
        let v = self.fresh("sel");
        let i1 = ty(&a.shape, Elem::Bool);
        self.body.push(format!(
            "{v} = stablehlo.select {p}, {}, {} : {i1}, {}",
            x.name,
            y.name,
            a.ty()
        ));
        let exact = if pred == Exactness::Unchecked {
            Exactness::Unchecked
        } else {
            a.exact.max(b.exact)
        };
        self.push(v, a.shape.clone(), a.elem, exact);
        Ok(())
    }

    fn convert(&mut self) -> Result<()> {
        use Exactness::*;
        let a = self.pick()?;
        let to = self.elem()?;
        let exact = match (a.elem, to, a.exact) {
            (_, _, Unchecked) => Unchecked,
            // Truncation and the test against zero are discontinuous.
            (Elem::F32, Elem::I32 | Elem::Bool, Close) => Unchecked,
            (_, _, e) => e,
        };
        let v = self.fresh("cv");
        let t = ty(&a.shape, to);
        self.body.push(format!(
            "{v} = stablehlo.convert {} : ({}) -> {t}",
            a.name,
            a.ty()
        ));
        self.push(v, a.shape, to, exact);
        Ok(())
    }

    fn broadcast(&mut self) -> Result<()> {
        let a = self.pick()?;
        if a.shape.len() >= 3 {
            return self.unary();
        }
        let at = self.u.int_in_range(0..=a.shape.len())?;
        let size = self.dim()?;
        let mut shape = a.shape.clone();
        shape.insert(at, size);
        let dims: Vec<String> = (0..a.shape.len())
            .map(|i| (if i < at { i } else { i + 1 }).to_string())
            .collect();
        let v = self.fresh("bc");
        self.body.push(format!(
            "{v} = stablehlo.broadcast_in_dim {}, dims = [{}] : ({}) -> {}",
            a.name,
            dims.join(", "),
            a.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, a.exact);
        Ok(())
    }

    fn reshape(&mut self) -> Result<()> {
        let a = self.pick()?;
        let n = a.shape.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d));
        let Some(n) = n else {
            return self.unary();
        };
        let shape = if a.shape.len() == 1 && n > 1 {
            // Split the one dimension at a divisor.
            let divisors: Vec<i64> = (1..=n.min(64)).filter(|d| n % d == 0).collect();
            let d = *self.u.choose(&divisors)?;
            vec![d, n / d]
        } else if a.shape.len() == 1 && n == 1 {
            vec![]
        } else {
            vec![n]
        };
        let v = self.fresh("rs");
        self.body.push(format!(
            "{v} = stablehlo.reshape {} : ({}) -> {}",
            a.name,
            a.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, a.exact);
        Ok(())
    }

    fn transpose(&mut self) -> Result<()> {
        let a = self.pick()?;
        let mut perm: Vec<usize> = (0..a.shape.len()).collect();
        for i in (1..perm.len()).rev() {
            let j = self.u.int_in_range(0..=i)?;
            perm.swap(i, j);
        }
        let shape: Vec<i64> = perm.iter().map(|&p| a.shape[p]).collect();
        let dims: Vec<String> = perm.iter().map(usize::to_string).collect();
        let v = self.fresh("tr");
        self.body.push(format!(
            "{v} = stablehlo.transpose {}, dims = [{}] : ({}) -> {}",
            a.name,
            dims.join(", "),
            a.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, a.exact);
        Ok(())
    }

    fn reduce(&mut self) -> Result<()> {
        use Exactness::*;
        let a = self.pick()?;
        if a.shape.is_empty() {
            return self.unary();
        }
        let dim = self.u.choose_index(a.shape.len())?;
        let choices: Vec<(&str, String, bool)> = match a.elem {
            Elem::F32 => vec![
                ("add", f32_literal(0.0), true),
                ("maximum", f32_literal(f32::NEG_INFINITY), false),
                ("minimum", f32_literal(f32::INFINITY), false),
            ],
            Elem::I32 => vec![
                ("add", "0".to_string(), false),
                ("multiply", "1".to_string(), false),
                ("maximum", i32::MIN.to_string(), false),
                ("minimum", i32::MAX.to_string(), false),
            ],
            Elem::Bool => vec![
                ("and", "true".to_string(), false),
                ("or", "false".to_string(), false),
            ],
        };
        let (op, init, order_matters) = self.u.choose(&choices)?.clone();
        let exact = match (a.exact, order_matters) {
            (Exact, true) => Close,
            (Close, true) | (Unchecked, _) => Unchecked,
            (e, false) => e,
        };
        let scalar = ty(&[], a.elem);
        let init_v = self.fresh("init");
        self.body.push(format!(
            "{init_v} = stablehlo.constant dense<{init}> : {scalar}"
        ));
        let mut shape = a.shape.clone();
        shape.remove(dim);
        let v = self.fresh("red");
        self.body.push(format!(
            "{v} = stablehlo.reduce({} init: {init_v}) applies stablehlo.{op} across dimensions = [{dim}] : ({}, {scalar}) -> {}",
            a.name,
            a.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, exact);
        Ok(())
    }

    fn dot(&mut self) -> Result<()> {
        use Exactness::*;
        let a = self.pick()?;
        if a.elem == Elem::Bool || a.shape.is_empty() || a.shape.len() > 2 {
            return self.binary();
        }
        // Contract the last dimension of `a` with itself (or a partner of the same type).
        let b = self.partner(&a)?;
        let last = a.shape.len() - 1;
        let mut shape: Vec<i64> = a.shape[..last].to_vec();
        shape.extend_from_slice(&b.shape[..last]);
        let exact = match (a.elem, a.exact.max(b.exact)) {
            (_, Unchecked) => Unchecked,
            (Elem::F32, Exact) => Close,
            (Elem::F32, _) => Unchecked,
            (_, e) => e,
        };
        let v = self.fresh("dot");
        self.body.push(format!(
            "{v} = stablehlo.dot_general {}, {}, contracting_dims = [{last}] x [{last}] : ({}, {}) -> {}",
            a.name,
            b.name,
            a.ty(),
            b.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, exact);
        Ok(())
    }

    fn slice(&mut self) -> Result<()> {
        let a = self.pick()?;
        let mut parts = vec![];
        let mut shape = vec![];
        for &d in &a.shape {
            let start = self.u.int_in_range(0..=d.min(8))?;
            let limit = if self.u.arbitrary()? {
                d
            } else {
                self.u.int_in_range(start..=d.min(start + 8))?
            };
            let stride = self.u.int_in_range(1..=3)?;
            parts.push(format!("{start}:{limit}:{stride}"));
            shape.push((limit - start + stride - 1) / stride);
        }
        let v = self.fresh("sl");
        self.body.push(format!(
            "{v} = stablehlo.slice {} [{}] : ({}) -> {}",
            a.name,
            parts.join(", "),
            a.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, a.exact);
        Ok(())
    }

    fn concatenate(&mut self) -> Result<()> {
        let a = self.pick()?;
        if a.shape.is_empty() {
            return self.reshape();
        }
        let b = self.partner(&a)?;
        let dim = self.u.choose_index(a.shape.len())?;
        let mut shape = a.shape.clone();
        shape[dim] = shape[dim].saturating_mul(2);
        let v = self.fresh("cat");
        self.body.push(format!(
            "{v} = stablehlo.concatenate {}, {}, dim = {dim} : ({}, {}) -> {}",
            a.name,
            b.name,
            a.ty(),
            b.ty(),
            ty(&shape, a.elem)
        ));
        self.push(v, shape, a.elem, a.exact.max(b.exact));
        Ok(())
    }

    fn while_loop(&mut self) -> Result<()> {
        use Exactness::*;
        let a = self.pick()?;
        let trips = self.u.int_in_range(0..=4)?;
        let (op, exact) = match a.elem {
            Elem::F32 => match self.u.int_in_range(0..=2)? {
                0 => ("add", if a.exact == Exact { Exact } else { Unchecked }),
                1 => ("multiply", a.exact),
                _ => ("maximum", a.exact),
            },
            Elem::I32 => (*self.u.choose(&["add", "multiply", "xor"])?, a.exact),
            Elem::Bool => (*self.u.choose(&["and", "xor"])?, a.exact),
        };
        let k = self.fresh("");
        let k = &k[1..];
        let t = a.ty();
        let lines = [
            format!("%z{k} = stablehlo.constant dense<0> : tensor<i32>"),
            format!(
                "%w{k}:2 = stablehlo.while(%i{k} = %z{k}, %a{k} = {}) : tensor<i32>, {t}",
                a.name
            ),
            "cond {".to_string(),
            format!("  %n{k} = stablehlo.constant dense<{trips}> : tensor<i32>"),
            format!("  %t{k} = stablehlo.compare LT, %i{k}, %n{k} : (tensor<i32>, tensor<i32>) -> tensor<i1>"),
            format!("  stablehlo.return %t{k} : tensor<i1>"),
            "} do {".to_string(),
            format!("  %o{k} = stablehlo.constant dense<1> : tensor<i32>"),
            format!("  %j{k} = stablehlo.add %i{k}, %o{k} : tensor<i32>"),
            format!("  %b{k} = stablehlo.{op} %a{k}, %a{k} : {t}"),
            format!("  stablehlo.return %j{k}, %b{k} : tensor<i32>, {t}"),
            "}".to_string(),
        ];
        self.body.extend(lines);
        self.push(format!("%w{k}#1"), a.shape, a.elem, exact);
        Ok(())
    }

    fn op(&mut self) -> Result<()> {
        match self.u.int_in_range(0u8..=16)? {
            0 => self.constant(),
            1 => self.iota(),
            2 | 3 => self.unary(),
            4 | 5 => self.binary(),
            6 => self.compare(),
            7 => self.select(),
            8 => self.convert(),
            9 => self.broadcast(),
            10 => self.reshape(),
            11 => self.transpose(),
            12 => self.reduce(),
            13 => self.dot(),
            14 => self.slice(),
            15 => self.concatenate(),
            _ => self.while_loop(),
        }
    }

    /// The largest number of elements of any value so far (saturating).
    fn largest(&self) -> u64 {
        self.vals
            .iter()
            .map(|v| {
                v.shape
                    .iter()
                    .fold(1u64, |n, &d| n.saturating_mul(d.max(0) as u64))
            })
            .max()
            .unwrap_or(0)
    }
}

/// Elements a runnable program's value may have; ops that would grow past it are not written.
const MAX_RUN_ELEMENTS: u64 = 4096;

/// Builds a program from the fuzz bytes.
pub fn program(u: &mut Unstructured<'_>, opts: Options) -> Result<Program> {
    let mut g = Gen {
        u,
        opts,
        vals: vec![],
        body: vec![],
        next: 0,
    };
    let n_args = g.u.int_in_range(1..=3)?;
    let mut params = vec![];
    let mut inputs = vec![];
    for i in 0..n_args {
        let shape = g.shape()?;
        let elem = g.elem()?;
        let name = format!("%arg{i}");
        params.push(format!("{name}: {}", ty(&shape, elem)));
        if !opts.large_shapes {
            inputs.push(g.input(&shape, elem)?);
        }
        g.push(name, shape, elem, Exactness::Exact);
    }
    let n_ops = g.u.int_in_range(1..=opts.max_ops.max(1))?;
    for _ in 0..n_ops {
        let (body_len, vals_len) = (g.body.len(), g.vals.len());
        g.op()?;
        if !opts.large_shapes && g.largest() > MAX_RUN_ELEMENTS {
            g.body.truncate(body_len);
            g.vals.truncate(vals_len);
        }
        if g.u.is_empty() {
            break;
        }
    }
    let n_results = g.u.int_in_range(1..=3usize)?.min(g.vals.len());
    let results: Vec<Val> = g.vals[g.vals.len() - n_results..].to_vec();
    let names: Vec<&str> = results.iter().map(|v| v.name.as_str()).collect();
    let types: Vec<String> = results.iter().map(Val::ty).collect();
    let mut text = format!(
        "func.func @main({}) -> ({}) {{\n",
        params.join(", "),
        types.join(", ")
    );
    for line in &g.body {
        text += "  ";
        text += line;
        text += "\n";
    }
    text += &format!("  return {} : {}\n}}\n", names.join(", "), types.join(", "));
    Ok(Program {
        text,
        inputs,
        results: results.iter().map(|v| v.exact).collect(),
    })
}
