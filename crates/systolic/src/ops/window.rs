//! Window reductions: `lax.reduce_window` (a monoid or a body written in Rust), `lax.reduce`
//! with a Rust body, and the cumulative reductions (`cumsum`, `cumprod`, `cummax`, `cummin`),
//! which JAX lowers on CPU to a `reduce_window` whose window covers the whole axis.

use crate::array::{describe, Array};
use crate::core::bind::{bind, bind_with, constant};
use crate::core::body::Body;
use crate::error::{Error, Result};
use crate::ops::elementwise::convert;
use crate::ops::reduce::init_value;
use crate::ops::region::{self, RegionBuilder, Var};
use crate::ops::shape::{norm_axis, reshape};
use systolic_ir::{BinaryOp, DType, OpKind, Tensor, TensorType};

/// How a windowed op (reduce_window, convolution) pads its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    /// No padding: only windows that fit.
    Valid,
    /// Output size `ceil(input / stride)`, padding split evenly (the extra element high).
    Same,
    /// `(low, high)` per dimension (negative crops).
    Explicit(Vec<(i64, i64)>),
}

impl Padding {
    /// JAX's `padtype_to_pads`: (low, high) per dimension for `input` sizes, (dilated)
    /// `window` sizes and `strides`.
    pub(crate) fn pads(&self, input: &[i64], window: &[i64], strides: &[i64]) -> Vec<(i64, i64)> {
        match self {
            Padding::Valid => vec![(0, 0); input.len()],
            Padding::Explicit(p) => p.clone(),
            Padding::Same => input
                .iter()
                .zip(window)
                .zip(strides)
                .map(|((&i, &w), &s)| {
                    let s = s.max(1);
                    let out = (i + s - 1) / s;
                    let total = ((out - 1) * s + w - i).max(0);
                    (total / 2, total - total / 2)
                })
                .collect(),
        }
    }
}

/// The window of a [`reduce_window`]: sizes, and optionally strides, padding and dilations
/// (all default to 1 / no padding).
///
/// ```
/// use systolic::lax::{Padding, Window};
/// let w = Window::new(&[2, 2]).strides(&[2, 2]).padding(Padding::Same);
/// assert_eq!(w.dimensions, vec![2, 2]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Window size per dimension.
    pub dimensions: Vec<i64>,
    /// Step per dimension (default 1).
    pub strides: Option<Vec<i64>>,
    /// Padding (default [`Padding::Valid`]).
    pub padding: Padding,
    /// Input (base) dilation per dimension (default 1).
    pub base_dilation: Option<Vec<i64>>,
    /// Window dilation per dimension (default 1).
    pub window_dilation: Option<Vec<i64>>,
}

impl Window {
    /// A window of `dimensions` with stride 1, no padding and no dilation.
    pub fn new(dimensions: &[i64]) -> Window {
        Window {
            dimensions: dimensions.to_vec(),
            strides: None,
            padding: Padding::Valid,
            base_dilation: None,
            window_dilation: None,
        }
    }
    /// With window strides.
    pub fn strides(mut self, strides: &[i64]) -> Window {
        self.strides = Some(strides.to_vec());
        self
    }
    /// With padding.
    pub fn padding(mut self, padding: Padding) -> Window {
        self.padding = padding;
        self
    }
    /// With base (input) dilation.
    pub fn base_dilation(mut self, d: &[i64]) -> Window {
        self.base_dilation = Some(d.to_vec());
        self
    }
    /// With window dilation.
    pub fn window_dilation(mut self, d: &[i64]) -> Window {
        self.window_dilation = Some(d.to_vec());
        self
    }

    fn kind(&self, op: &str, x: &Array) -> Result<OpKind> {
        let n = x.rank();
        let len_ok = |v: &Option<Vec<i64>>| v.as_ref().is_none_or(|v| v.len() == n);
        let pad_ok = match &self.padding {
            Padding::Explicit(p) => p.len() == n,
            _ => true,
        };
        if self.dimensions.len() != n
            || !len_ok(&self.strides)
            || !len_ok(&self.base_dilation)
            || !len_ok(&self.window_dilation)
            || !pad_ok
        {
            return Err(Error::op(
                op,
                format!(
                    "the window ({self:?}) must give one entry per dimension of {}",
                    describe(x.aval())
                ),
            ));
        }
        let strides = self.strides.clone().unwrap_or_else(|| vec![1; n]);
        let wd = self.window_dilation.clone().unwrap_or_else(|| vec![1; n]);
        let dilated: Vec<i64> = self
            .dimensions
            .iter()
            .zip(&wd)
            .map(|(&w, &d)| if w == 0 { 0 } else { (w - 1) * d + 1 })
            .collect();
        let pads = self.padding.pads(x.dims(), &dilated, &strides);
        Ok(OpKind::ReduceWindow {
            window: systolic_ir::Window::new(self.dimensions.clone())
                .with_strides(strides)
                .with_base_dilations(self.base_dilation.clone().unwrap_or_else(|| vec![1; n]))
                .with_window_dilations(wd)
                .with_padding(pads),
        })
    }
}

/// `lax.reduce_window(x, init, computation, window)` with a binary monoid (`Add`,
/// `Multiply`, `Maximum`, `Minimum`, …); `init` is converted to `x`'s dtype.
///
/// ```
/// use systolic::{lax, lax::Window, Array};
/// use systolic_ir::BinaryOp;
/// let x = Array::from_vec(vec![1.0f32, 5.0, 2.0, 4.0], &[4]);
/// let m = lax::reduce_window(&x, &Array::scalar(f32::NEG_INFINITY), BinaryOp::Maximum,
///     &Window::new(&[2]).strides(&[2]));
/// assert_eq!(m.to_vec::<f32>().unwrap(), vec![5.0, 4.0]);
/// ```
pub fn reduce_window(x: &Array, init: &Array, computation: BinaryOp, window: &Window) -> Array {
    let run = || -> Result<Array> {
        x.check()?;
        init.check()?;
        let init = convert("reduce_window", init, x.element_type(), x.weak_type());
        let kind = window.kind("reduce_window", x)?;
        Ok(bind_with(
            "reduce_window",
            kind,
            &[x, &init],
            vec![Body::Reducer(computation, x.element_type())],
            None,
            x.weak_type(),
        ))
    };
    run().unwrap_or_else(Array::failed)
}

/// `lax.reduce_window` of several operands with a body written in Rust: the closure gets
/// the accumulators then the incoming elements (rank-0 [`Var`]s) and returns the new
/// accumulators.
///
/// ```
/// use systolic::{lax, lax::Window, Array};
/// let x = Array::from_vec(vec![1i32, -5, 2, 4], &[4]);
/// let r = lax::reduce_window_with(&[&x], &[&Array::scalar(0i32)], &Window::new(&[2]),
///     |b, a| { let m = b.abs(a[1]); vec![b.max(a[0], m)] }).unwrap();
/// assert_eq!(r[0].to_vec::<i32>().unwrap(), vec![5, 5, 4]);
/// ```
pub fn reduce_window_with(
    operands: &[&Array],
    inits: &[&Array],
    window: &Window,
    body: impl FnOnce(&mut RegionBuilder, &[Var]) -> Vec<Var>,
) -> Result<Vec<Array>> {
    let Some(first) = operands.first() else {
        return Err(Error::op("reduce_window", "needs at least one operand"));
    };
    first.check()?;
    let kind = window.kind("reduce_window", first)?;
    let body = body_for("reduce_window", operands, inits, body)?;
    let mut all: Vec<&Array> = operands.to_vec();
    all.extend(inits);
    bind("reduce_window", kind, &all, vec![body], None, false)
}

fn body_for(
    op: &str,
    operands: &[&Array],
    inits: &[&Array],
    body: impl FnOnce(&mut RegionBuilder, &[Var]) -> Vec<Var>,
) -> Result<Body> {
    for a in operands.iter().chain(inits) {
        a.check()?;
    }
    if operands.len() != inits.len() {
        return Err(Error::op(
            op,
            format!(
                "{} operands but {} init values",
                operands.len(),
                inits.len()
            ),
        ));
    }
    let mut args: Vec<DType> = inits.iter().map(|a| a.element_type()).collect();
    args.extend(inits.iter().map(|a| a.element_type()));
    region::build(&args, body).map_err(|m| Error::op(op, m))
}

/// `lax.reduce(operands, inits, dimensions, body)` with a body written in Rust: the closure
/// gets the accumulators then the incoming elements and returns the new accumulators.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let s = lax::reduce(&[&x], &[&Array::scalar(0.0f32)], &[-1], |b, a| vec![b.add(a[0], a[1])])
///     .unwrap();
/// assert_eq!(s[0].to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
/// ```
pub fn reduce(
    operands: &[&Array],
    inits: &[&Array],
    dimensions: &[i64],
    body: impl FnOnce(&mut RegionBuilder, &[Var]) -> Vec<Var>,
) -> Result<Vec<Array>> {
    let Some(first) = operands.first() else {
        return Err(Error::op("reduce", "needs at least one operand"));
    };
    first.check()?;
    let mut dims = dimensions
        .iter()
        .map(|&d| norm_axis("reduce", first, d, first.rank()).map(|d| d as i64))
        .collect::<Result<Vec<_>>>()?;
    dims.sort_unstable();
    let body = body_for("reduce", operands, inits, body)?;
    let mut all: Vec<&Array> = operands.to_vec();
    all.extend(inits);
    bind(
        "reduce",
        OpKind::Reduce { dimensions: dims },
        &all,
        vec![body],
        None,
        false,
    )
}

/// A cumulative reduction along `axis` as JAX lowers it: a `reduce_window` with a window as
/// long as the axis, padded `(n-1, 0)` (or `(0, n-1)` in reverse).
fn cumulative(op: &str, kind: BinaryOp, x: &Array, axis: i64, reverse: bool) -> Result<Array> {
    x.check()?;
    if x.element_type() == DType::Bool && kind != BinaryOp::Add && kind != BinaryOp::Multiply {
        return Err(Error::op(
            op,
            format!(
                "does not accept dtype bool ({}); accepted dtypes are numbers",
                describe(x.aval())
            ),
        ));
    }
    let a = norm_axis(op, x, axis, x.rank())?;
    let n = x.dims()[a];
    let mut dims = vec![1; x.rank()];
    dims[a] = n.max(1);
    let mut pads = vec![(0, 0); x.rank()];
    pads[a] = if reverse { (0, n - 1) } else { (n - 1, 0) };
    if n == 0 {
        return Ok(x.clone());
    }
    let init = Tensor::splat(
        TensorType::scalar(x.element_type()),
        init_value(kind, x.element_type()),
    )
    .map_err(|e| Error::op(op, e.to_string()))?;
    let init = constant(init, x.weak_type());
    Ok(bind_with(
        op,
        OpKind::ReduceWindow {
            window: systolic_ir::Window::new(dims)
                .with_strides(vec![1; x.rank()])
                .with_base_dilations(vec![1; x.rank()])
                .with_window_dilations(vec![1; x.rank()])
                .with_padding(pads),
        },
        &[x, &init],
        vec![Body::Reducer(kind, x.element_type())],
        None,
        x.weak_type(),
    ))
}

/// numpy's cumulative reductions: `axis = None` flattens; bools count as int32.
fn np_cumulative(op: &str, kind: BinaryOp, x: &Array, axis: Option<i64>) -> Array {
    let run = || -> Result<Array> {
        x.check()?;
        let x = if x.element_type() == DType::Bool {
            convert(op, x, DType::I32, x.weak_type())
        } else {
            x.clone()
        };
        match axis {
            None => cumulative(op, kind, &reshape(&x, &[x.num_elements() as i64]), 0, false),
            Some(a) => cumulative(op, kind, &x, a, false),
        }
    };
    run().unwrap_or_else(Array::failed)
}

/// `jnp.cumsum(x, axis)`: running sums (the dtype is kept; bools give int32; `None`
/// flattens).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4], &[2, 2]);
/// assert_eq!(np::cumsum(&x, Some(-1)).to_vec::<i32>().unwrap(), vec![1, 3, 3, 7]);
/// assert_eq!(np::cumsum(&x, None).to_vec::<i32>().unwrap(), vec![1, 3, 6, 10]);
/// ```
pub fn cumsum(x: &Array, axis: Option<i64>) -> Array {
    np_cumulative("cumsum", BinaryOp::Add, x, axis)
}

/// `jnp.cumprod(x, axis)`: running products.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4], &[4]);
/// assert_eq!(np::cumprod(&x, Some(0)).to_vec::<i32>().unwrap(), vec![1, 2, 6, 24]);
/// ```
pub fn cumprod(x: &Array, axis: Option<i64>) -> Array {
    np_cumulative("cumprod", BinaryOp::Multiply, x, axis)
}

macro_rules! lax_cumulative {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(x: &Array, axis: i64, reverse: bool) -> Array {
            cumulative(stringify!($name), BinaryOp::$op, x, axis, reverse)
                .unwrap_or_else(Array::failed)
        }
    };
}

lax_cumulative!(
    /// `lax.cumsum(x, axis, reverse)`.
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
    /// let r = systolic::lax::cumsum(&x, 0, true);
    /// assert_eq!(r.to_vec::<f32>().unwrap(), vec![6.0, 5.0, 3.0]);
    /// ```
    lax_cumsum, Add);
lax_cumulative!(
    /// `lax.cumprod(x, axis, reverse)`.
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1i32, 2, 3], &[3]);
    /// assert_eq!(systolic::lax::cumprod(&x, 0, false).to_vec::<i32>().unwrap(), vec![1, 2, 6]);
    /// ```
    lax_cumprod, Multiply);
lax_cumulative!(
    /// `lax.cummax(x, axis, reverse)`: running maxima (NaN propagates).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1i32, 3, 2], &[3]);
    /// assert_eq!(systolic::lax::cummax(&x, 0, false).to_vec::<i32>().unwrap(), vec![1, 3, 3]);
    /// ```
    cummax, Maximum);
lax_cumulative!(
    /// `lax.cummin(x, axis, reverse)`: running minima (NaN propagates).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![3i32, 1, 2], &[3]);
    /// assert_eq!(systolic::lax::cummin(&x, 0, false).to_vec::<i32>().unwrap(), vec![3, 1, 1]);
    /// ```
    cummin, Minimum);
