//! The LAPACK custom calls JAX emits on CPU: `stablehlo.custom_call @lapack_<t><routine>_ffi`
//! (XLA's typed FFI, `api_version = 4`), which `jnp.linalg`, `jax.scipy.linalg` and
//! `jax.lax.linalg` lower to. This module reads one into a [`LapackCall`] (routine, element
//! type, the `mhlo.backend_config` flags) and states the result types it must have; the
//! interpreter and the CPU backend run it, the TPU cost model costs it ([`LapackCall::flops`]).
//!
//! The calls' conventions, as JAX 0.10.2 emits them (batch dimensions lead, the last two
//! dimensions are one matrix):
//!
//! | target | operands | results | flags |
//! | --- | --- | --- | --- |
//! | `getrf` | `a[…,m,n]` | `lu`, `ipiv[…,min(m,n)]:i32` (1-based row swaps), `info[…]:i32` | |
//! | `potrf` | `a[…,n,n]` | `a` (the `uplo` triangle holds the factor), `info[…]` | `uplo` |
//! | `geqrf` | `a[…,m,n]` | `a` (R and the Householder vectors), `tau[…,min(m,n)]` | |
//! | `orgqr` | `a[…,m,n]`, `tau[…,k]` | `q[…,m,n]` | |
//! | `syevd` | `a[…,n,n]` | `v[…,n,n]`, `w[…,n]` (ascending), `info[…]` | `mode` (`V`/`N`), `uplo` |
//! | `gesdd` | `a[…,m,n]` | `a`, `s[…,k]`, `u[…,m,·]`, `vt[…,·,n]`, `info[…]` | `mode` (`A`/`S`/`N`) |
//! | `trsm` | `a[…,k,k]`, `b[…,m,n]` | `x[…,m,n]` | `side`, `uplo`, `trans_x`, `diag` |
//! | `geev` (real) | `a[…,n,n]` | `wr[…,n]`, `wi[…,n]`, `vl[…,n,n]:complex`, `vr[…,n,n]:complex`, `info[…]` | `compute_left`, `compute_right` (`V`/`N`) |
//! | `geev` (complex) | `a[…,n,n]` | `w[…,n]`, `vl[…,n,n]`, `vr[…,n,n]`, `info[…]` | `compute_left`, `compute_right` |
//! | `gees` (real) | `a[…,n,n]` | `t`, `vs`, `wr[…,n]`, `wi[…,n]`, `sdim[…]`, `info[…]` | `mode` (`V`/`N`), `sort` (`N`) |
//! | `gees` (complex) | `a[…,n,n]` | `t`, `vs`, `w[…,n]`, `sdim[…]`, `info[…]` | `mode`, `sort` |
//! | `gehrd` | `a[…,n,n]` | `a` (H and the reflectors below it), `tau[…,n-1]`, `info[…]` | `low`, `high` (i32) |
//! | `sytrd` | `a[…,n,n]` | `a` (reflectors), `d[…,n]`, `e[…,n-1]` (real), `tau[…,n-1]`, `info[…]` | `uplo` |
//!
//! The complex targets (`c` for `complex<f32>`, `z` for `complex<f64>`) are the same routines
//! under LAPACK's complex names (`heevd` for `syevd`, `ungqr` for `orgqr`): eigenvalues
//! (`heevd`) and singular values (`gesdd`) are real, of the parts' type; `trans_x = 'C'` is
//! the conjugate transpose; reflectors are `I − τ·v·vᴴ` with a complex `τ`.
//!
//! On TPUs JAX emits XLA's own targets instead ([`Convention::Xla`]), which are the same
//! factorisations with other result lists; they are read into the same [`LapackCall`] so one
//! implementation serves both:
//!
//! | target | as | results |
//! | --- | --- | --- |
//! | `Qr` | `geqrf` | `a` (R and the reflectors), `taus[…,min(m,n)]` |
//! | `ProductOfElementaryHouseholderReflectors` | `orgqr` | `q` |
//! | `Eigh` | `syevd` | `v[…,n,n]`, `w[…,n]` ascending (no `info`); `backend_config = "lower,sort,max_iter,tol"` |
//! | `LuDecomposition` | `getrf` | `lu`, `pivots[…,min(m,n)]:i32` (0-based row swaps), `permutation[…,m]:i32` |
//!
//! Flags are ASCII codes in `ui8` attributes (`uplo = 76` is `'L'`). JAX asks for each matrix
//! in column-major order (`operand_layouts`/`result_layouts` `[r-2, r-1, r-3, …, 0]`) because
//! LAPACK reads Fortran arrays; the logical values do not depend on the layout, so the
//! implementations work on the logical (row-major) matrices, and any other layout is refused
//! rather than misread.

use crate::{Attribute, DType, NamedAttr, Op, OpKind, TensorType, Type};

/// A LAPACK routine JAX calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    /// LU factorisation with partial pivoting.
    Getrf,
    /// Cholesky factorisation.
    Potrf,
    /// Householder QR factorisation.
    Geqrf,
    /// The orthogonal factor from `geqrf`'s reflectors.
    Orgqr,
    /// Symmetric eigendecomposition (divide and conquer).
    Syevd,
    /// Singular value decomposition (divide and conquer).
    Gesdd,
    /// Triangular solve with many right-hand sides.
    Trsm,
    /// General (non-symmetric) eigendecomposition: complex eigenvalues, left and right
    /// eigenvectors.
    Geev,
    /// Schur decomposition `a = z·t·zᴴ` (`t` quasi-upper-triangular for real types).
    Gees,
    /// Reduction to upper Hessenberg form by Householder reflectors.
    Gehrd,
    /// Reduction of a symmetric (Hermitian) matrix to tridiagonal form (`hetrd` for complex).
    Sytrd,
}

impl Routine {
    /// The LAPACK name without the type letter, e.g. `getrf`.
    pub fn name(self) -> &'static str {
        match self {
            Routine::Getrf => "getrf",
            Routine::Potrf => "potrf",
            Routine::Geqrf => "geqrf",
            Routine::Orgqr => "orgqr",
            Routine::Syevd => "syevd",
            Routine::Gesdd => "gesdd",
            Routine::Trsm => "trsm",
            Routine::Geev => "geev",
            Routine::Gees => "gees",
            Routine::Gehrd => "gehrd",
            Routine::Sytrd => "sytrd",
        }
    }

    /// Which operands and results are matrices (the others are vectors or scalars).
    fn matrix_slots(self, complex: bool) -> (&'static [usize], &'static [usize]) {
        match self {
            Routine::Trsm => (&[0, 1], &[0]),
            Routine::Gesdd => (&[0], &[0, 2, 3]),
            // The real routine returns the eigenvalues in two parts before the vectors.
            Routine::Geev if complex => (&[0], &[1, 2]),
            Routine::Geev => (&[0], &[2, 3]),
            Routine::Gees => (&[0], &[0, 1]),
            _ => (&[0], &[0]),
        }
    }

    fn from_name(name: &str) -> Option<Routine> {
        Some(match name {
            "getrf" => Routine::Getrf,
            "potrf" => Routine::Potrf,
            "geqrf" => Routine::Geqrf,
            "orgqr" | "ungqr" => Routine::Orgqr,
            "syevd" | "heevd" => Routine::Syevd,
            "gesdd" => Routine::Gesdd,
            "trsm" => Routine::Trsm,
            "geev" => Routine::Geev,
            "gees" => Routine::Gees,
            "gehrd" => Routine::Gehrd,
            "sytrd" | "hetrd" => Routine::Sytrd,
            _ => return None,
        })
    }
}

/// Which singular vectors `gesdd` computes (its `mode`, LAPACK's `jobz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvdVectors {
    /// `A`: all of `U` (m×m) and `Vᵀ` (n×n).
    Full,
    /// `S`: the first min(m, n) of each.
    Thin,
    /// `N`: none (`u` and `vt` are left as zeros).
    None,
}

/// One LAPACK custom call, read from its op.
#[derive(Clone, Debug, PartialEq)]
pub struct LapackCall {
    /// The custom call target, e.g. `lapack_sgetrf_ffi`.
    pub target: String,
    /// The routine.
    pub routine: Routine,
    /// The element type (`f32`, `f64`, `complex<f32>` or `complex<f64>`).
    pub dtype: DType,
    /// `uplo = 'L'` (`potrf`, `syevd`, `trsm`): the lower triangle is read (or is `a`'s).
    pub lower: bool,
    /// `side = 'L'` (`trsm`): solve `op(a)·x = b`; otherwise `x·op(a) = b`.
    pub left_side: bool,
    /// `trans_x` is `'T'` or `'C'` (`trsm`): `op(a) = aᵀ`.
    pub transpose_a: bool,
    /// `trans_x = 'C'` (`trsm`): `op(a) = aᴴ`, the conjugate transpose (the same as `aᵀ` for
    /// real types).
    pub conjugate_a: bool,
    /// `diag = 'U'` (`trsm`): `a`'s diagonal is taken as ones.
    pub unit_diagonal: bool,
    /// `mode = 'V'` (`syevd`): eigenvectors are computed.
    pub eigenvectors: bool,
    /// `mode` of `gesdd`.
    pub svd_vectors: SvdVectors,
    /// `low`/`high` (`gehrd`, LAPACK's 1-based `ilo`/`ihi`): the rows and columns reduced;
    /// `None` for the whole matrix (JAX passes `1` and `n`).
    pub hessenberg_range: Option<(i64, i64)>,
    /// `compute_left = 'V'` (`geev`): left eigenvectors are computed.
    pub left_vectors: bool,
    /// `compute_right = 'V'` (`geev`): right eigenvectors are computed.
    pub right_vectors: bool,
    /// Whose result conventions the call follows.
    pub convention: Convention,
}

/// Whose result conventions a call follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// JAX's CPU LAPACK FFI targets (`lapack_*_ffi`).
    Lapack,
    /// XLA's targets JAX emits for TPUs (`Qr`, `ProductOfElementaryHouseholderReflectors`,
    /// `Eigh`, `LuDecomposition`): no `info` results, 0-based pivots and a permutation (LU),
    /// vectors before values (`Eigh`).
    Xla,
}

/// XLA's linear-algebra targets (JAX's TPU lowering) and the routine each one is.
const XLA_TARGETS: [(&str, Routine); 4] = [
    ("Qr", Routine::Geqrf),
    ("ProductOfElementaryHouseholderReflectors", Routine::Orgqr),
    ("Eigh", Routine::Syevd),
    ("LuDecomposition", Routine::Getrf),
];

/// The key of the dictionary that holds an FFI call's flags.
const BACKEND_CONFIG: &str = "mhlo.backend_config";

impl LapackCall {
    /// Reads `op` as a LAPACK call: `None` when it is not a `lapack_*` custom call, an error
    /// (naming the target) when it is one that cannot be run: a complex or unknown routine, a
    /// flag with an unexpected value, a layout other than JAX's column-major one.
    pub fn from_op(op: &Op) -> Option<Result<LapackCall, String>> {
        let OpKind::CustomCall {
            call_target_name,
            backend_config,
            ..
        } = &op.kind
        else {
            return None;
        };
        if let Some(&(_, routine)) = XLA_TARGETS.iter().find(|(t, _)| t == call_target_name) {
            return Some(Self::parse_xla(
                call_target_name,
                routine,
                backend_config.as_ref(),
            ));
        }
        let rest = call_target_name.strip_prefix("lapack_")?;
        Some(Self::parse(
            call_target_name,
            rest,
            &op.attrs,
            backend_config.as_ref(),
        ))
    }

    /// The `custom_call` op kind for this call, flags in its own dictionary `backend_config`
    /// (`api_version = 4`), as a front end stages it ([`LapackCall::from_op`] reads the flags
    /// from there when the op has no `mhlo.backend_config`, JAX's place for them).
    pub fn op_kind(&self) -> OpKind {
        if self.convention == Convention::Xla {
            let config = match self.routine {
                Routine::Syevd => format!("{},1,100,1e-6", u8::from(self.lower)),
                _ => String::new(),
            };
            return OpKind::CustomCall {
                call_target_name: self.target.clone(),
                has_side_effect: false,
                backend_config: Some(Attribute::String(config)),
                api_version: 1,
                called_computations: vec![],
            };
        }
        let code = |key: &str, c: u8| NamedAttr {
            name: key.to_string(),
            value: Attribute::Int(
                i64::from(c),
                Some(Type::Tensor(TensorType::new(vec![], DType::U8))),
            ),
        };
        let int = |key: &str, v: i64| NamedAttr {
            name: key.to_string(),
            value: Attribute::Int(v, Some(Type::Tensor(TensorType::new(vec![], DType::I32)))),
        };
        let uplo = code("uplo", if self.lower { b'L' } else { b'U' });
        let config = match self.routine {
            Routine::Potrf => vec![uplo],
            Routine::Syevd => vec![
                code("mode", if self.eigenvectors { b'V' } else { b'N' }),
                uplo,
            ],
            Routine::Gesdd => vec![code(
                "mode",
                match self.svd_vectors {
                    SvdVectors::Full => b'A',
                    SvdVectors::Thin => b'S',
                    SvdVectors::None => b'N',
                },
            )],
            Routine::Trsm => vec![
                code("diag", if self.unit_diagonal { b'U' } else { b'N' }),
                code("side", if self.left_side { b'L' } else { b'R' }),
                code(
                    "trans_x",
                    match (self.transpose_a, self.conjugate_a) {
                        (false, _) => b'N',
                        (true, false) => b'T',
                        (true, true) => b'C',
                    },
                ),
                uplo,
            ],
            Routine::Geev => vec![
                code("compute_left", if self.left_vectors { b'V' } else { b'N' }),
                code(
                    "compute_right",
                    if self.right_vectors { b'V' } else { b'N' },
                ),
            ],
            Routine::Gees => vec![
                code("mode", if self.eigenvectors { b'V' } else { b'N' }),
                code("sort", b'N'),
            ],
            Routine::Sytrd => vec![uplo],
            Routine::Gehrd => match self.hessenberg_range {
                Some((low, high)) => vec![int("low", low), int("high", high)],
                None => vec![],
            },
            Routine::Getrf | Routine::Geqrf | Routine::Orgqr => vec![],
        };
        OpKind::CustomCall {
            call_target_name: self.target.clone(),
            has_side_effect: false,
            backend_config: Some(Attribute::Dict(config)),
            api_version: 4,
            called_computations: vec![],
        }
    }

    /// A call of `routine` on `dtype` (`f32`, `f64`, `complex<f32>` or `complex<f64>`) with
    /// LAPACK's default flags (lower triangle, left side, no transpose, non-unit diagonal,
    /// vectors computed in full, right eigenvectors only); `None` for another element type.
    /// Set the public fields to change the flags.
    pub fn new(routine: Routine, dtype: DType) -> Option<LapackCall> {
        let letter = match dtype {
            DType::F32 => 's',
            DType::F64 => 'd',
            DType::C64 => 'c',
            DType::C128 => 'z',
            _ => return None,
        };
        let name = match (routine, dtype.is_complex()) {
            (Routine::Syevd, true) => "heevd",
            (Routine::Sytrd, true) => "hetrd",
            (Routine::Orgqr, true) => "ungqr",
            (r, _) => r.name(),
        };
        Some(LapackCall {
            target: format!("lapack_{letter}{name}_ffi"),
            routine,
            dtype,
            lower: true,
            left_side: true,
            transpose_a: false,
            conjugate_a: false,
            unit_diagonal: false,
            eigenvectors: true,
            svd_vectors: SvdVectors::Full,
            hessenberg_range: None,
            left_vectors: false,
            right_vectors: true,
            convention: Convention::Lapack,
        })
    }

    /// The call of `routine` on `dtype` as XLA's target for TPUs names it (`Qr`,
    /// `ProductOfElementaryHouseholderReflectors`, `Eigh`, `LuDecomposition`); `None` for a
    /// routine XLA has no target for, or another element type.
    pub fn new_xla(routine: Routine, dtype: DType) -> Option<LapackCall> {
        let &(target, _) = XLA_TARGETS.iter().find(|(_, r)| *r == routine)?;
        let mut call = LapackCall::new(routine, dtype)?;
        call.target = target.to_string();
        call.convention = Convention::Xla;
        Some(call)
    }

    /// Whether `target` names a linear-algebra custom call read here: a LAPACK FFI target
    /// (whether or not it is supported) or one of XLA's TPU targets.
    pub fn is_lapack_target(target: &str) -> bool {
        target.starts_with("lapack_") || XLA_TARGETS.iter().any(|(t, _)| *t == target)
    }

    /// Reads one of XLA's TPU targets. Its only flags are `Eigh`'s, in a string
    /// `backend_config = "lower,sort_eigenvalues,max_iter,tol"`; eigenvalues always come
    /// ascending (unsorted allows any order), and the iteration limit and tolerance of XLA's
    /// Jacobi solver do not apply to a direct solver.
    fn parse_xla(
        target: &str,
        routine: Routine,
        config: Option<&Attribute>,
    ) -> Result<LapackCall, String> {
        let err = |what: String| format!("custom_call target '{target}': {what}");
        let mut call = LapackCall::new_xla(routine, DType::F32)
            .ok_or_else(|| err("XLA has no such target".into()))?;
        if routine == Routine::Syevd {
            let text = match config {
                Some(Attribute::String(s)) => s.as_str(),
                None => "",
                Some(other) => {
                    return Err(err(format!(
                        "backend_config must be a string \"lower,sort,max_iter,tol\", got {other:?}"
                    )))
                }
            };
            let fields: Vec<&str> = text.split(',').map(str::trim).collect();
            let flag = |i: usize, default: bool| match fields.get(i).copied() {
                None | Some("") => Ok(default),
                Some("1") | Some("true") => Ok(true),
                Some("0") | Some("false") => Ok(false),
                Some(other) => Err(err(format!(
                    "backend_config field {i} must be 0 or 1, got '{other}'"
                ))),
            };
            call.lower = flag(0, true)?;
            // With sort_eigenvalues = 0 any order is allowed; ascending is one.
            flag(1, true)?;
        }
        // `dtype` is a placeholder: XLA's targets take the operand's, which callers set with
        // `with_operand_dtype` (`result_types`/`check` derive it themselves).
        Ok(call)
    }

    /// This call on operands of `dtype` (XLA's targets do not name their element type; the
    /// LAPACK ones do, and keep theirs).
    pub fn with_operand_dtype(mut self, dtype: DType) -> LapackCall {
        if self.convention == Convention::Xla {
            self.dtype = dtype;
        }
        self
    }

    fn parse(
        target: &str,
        rest: &str,
        attrs: &[NamedAttr],
        own_config: Option<&Attribute>,
    ) -> Result<LapackCall, String> {
        let err = |what: String| format!("custom_call target '{target}': {what}");
        let body = rest.strip_suffix("_ffi").ok_or_else(|| {
            err("only the typed-FFI LAPACK targets (`lapack_*_ffi`) are supported".into())
        })?;
        let mut chars = body.chars();
        let letter = chars.next().unwrap_or(' ');
        let routine = Routine::from_name(chars.as_str()).ok_or_else(|| {
            err(format!(
                "the LAPACK routine '{}' is not supported (getrf, potrf, geqrf, orgqr/ungqr, \
                 syevd/heevd, gesdd, trsm, geev, gees, gehrd and sytrd/hetrd are)",
                chars.as_str()
            ))
        })?;
        let dtype = match letter {
            's' => DType::F32,
            'd' => DType::F64,
            'c' => DType::C64,
            'z' => DType::C128,
            other => return Err(err(format!("unknown type letter '{other}'"))),
        };
        let config = attrs
            .iter()
            .find(|a| a.name == BACKEND_CONFIG)
            .map(|a| &a.value)
            .or(own_config.filter(|c| matches!(c, Attribute::Dict(_))));
        let flag = |key: &str, default: u8, allowed: &[u8]| -> Result<u8, String> {
            let value = match config {
                Some(Attribute::Dict(entries)) => entries.iter().find(|e| e.name == key),
                _ => None,
            };
            let code = match value.map(|e| &e.value) {
                None => default,
                Some(Attribute::Int(v, _)) if (0..=255).contains(v) => *v as u8,
                Some(other) => {
                    return Err(err(format!("flag {key} must be a ui8 code, got {other:?}")))
                }
            };
            if allowed.contains(&code) {
                Ok(code)
            } else {
                Err(err(format!(
                    "flag {key} = {code} ('{}') is not one of {}",
                    code as char,
                    allowed
                        .iter()
                        .map(|c| format!("'{}'", *c as char))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        };
        let mut call = LapackCall {
            target: target.to_string(),
            routine,
            dtype,
            lower: true,
            left_side: true,
            transpose_a: false,
            conjugate_a: false,
            unit_diagonal: false,
            eigenvectors: true,
            svd_vectors: SvdVectors::Full,
            hessenberg_range: None,
            left_vectors: false,
            right_vectors: true,
            convention: Convention::Lapack,
        };
        match routine {
            Routine::Potrf => call.lower = flag("uplo", b'L', b"LU")? == b'L',
            Routine::Syevd => {
                call.lower = flag("uplo", b'L', b"LU")? == b'L';
                call.eigenvectors = flag("mode", b'V', b"VN")? == b'V';
            }
            Routine::Gesdd => {
                call.svd_vectors = match flag("mode", b'A', b"ASN")? {
                    b'A' => SvdVectors::Full,
                    b'S' => SvdVectors::Thin,
                    _ => SvdVectors::None,
                }
            }
            Routine::Trsm => {
                call.lower = flag("uplo", b'L', b"LU")? == b'L';
                call.left_side = flag("side", b'L', b"LR")? == b'L';
                let trans = flag("trans_x", b'N', b"NTC")?;
                call.transpose_a = trans != b'N';
                call.conjugate_a = trans == b'C' && dtype.is_complex();
                call.unit_diagonal = flag("diag", b'N', b"NU")? == b'U';
            }
            Routine::Geev => {
                call.left_vectors = flag("compute_left", b'N', b"NV")? == b'V';
                call.right_vectors = flag("compute_right", b'V', b"NV")? == b'V';
            }
            Routine::Gees => {
                call.eigenvectors = flag("mode", b'V', b"VN")? == b'V';
                // JAX sorts no eigenvalues (`sort = 'N'`): a selection function cannot pass
                // through a custom call.
                flag("sort", b'N', b"N")?;
            }
            Routine::Sytrd => call.lower = flag("uplo", b'L', b"LU")? == b'L',
            Routine::Gehrd => {
                let int = |key: &str| -> Result<Option<i64>, String> {
                    let value = match config {
                        Some(Attribute::Dict(entries)) => entries.iter().find(|e| e.name == key),
                        _ => None,
                    };
                    match value.map(|e| &e.value) {
                        None => Ok(None),
                        Some(Attribute::Int(v, _)) => Ok(Some(*v)),
                        Some(other) => {
                            Err(err(format!("flag {key} must be an integer, got {other:?}")))
                        }
                    }
                };
                call.hessenberg_range = match (int("low")?, int("high")?) {
                    (None, None) => None,
                    (Some(low), Some(high)) => Some((low, high)),
                    _ => return Err(err("flags low and high come together".into())),
                };
            }
            Routine::Getrf | Routine::Geqrf | Routine::Orgqr => {}
        }
        let (matrix_operands, matrix_results) = routine.matrix_slots(dtype.is_complex());
        for (key, matrices) in [
            ("operand_layouts", matrix_operands),
            ("result_layouts", matrix_results),
        ] {
            if let Some(a) = attrs.iter().find(|a| a.name == key) {
                check_layouts(&a.value, matrices).map_err(|e| err(format!("{key}: {e}")))?;
            }
        }
        Ok(call)
    }

    /// The result types of this call on operands of `operands`' types, or why the operands do
    /// not fit (wrong count, rank, element type, or mismatched batch or matrix sizes).
    pub fn result_types(&self, operands: &[Type]) -> Result<Vec<TensorType>, String> {
        let name = &self.target;
        let tensors: Vec<&TensorType> = operands
            .iter()
            .map(|t| match t {
                Type::Tensor(t) => Ok(t),
                other => Err(format!("{name}: operands must be tensors, got {other}")),
            })
            .collect::<Result<_, _>>()?;
        let arity = if matches!(self.routine, Routine::Orgqr | Routine::Trsm) {
            2
        } else {
            1
        };
        if tensors.len() != arity {
            return Err(format!(
                "{name} takes {arity} operand(s), got {}",
                tensors.len()
            ));
        }
        // XLA's targets take their element type from the operand.
        let this = self.clone().with_operand_dtype(tensors[0].dtype);
        if this.convention == Convention::Xla
            && !(this.dtype.is_float_or_complex()
                && LapackCall::new(this.routine, this.dtype).is_some())
        {
            return Err(format!(
                "{name} works on f32, f64, complex<f32> or complex<f64>, got {}",
                tensors[0]
            ));
        }
        let this = &this;
        for t in &tensors {
            if t.dtype != this.dtype {
                return Err(format!(
                    "{name} works on {}, got an operand of type {t}",
                    this.dtype
                ));
            }
        }
        let a = tensors[0];
        let r = a.rank();
        if r < 2 || a.shape.iter().any(|&d| d < 0) {
            return Err(format!(
                "{name}: the operand must be a (batch of) matrices, got {a}"
            ));
        }
        let batch = &a.shape[..r - 2];
        let (m, n) = (a.shape[r - 2], a.shape[r - 1]);
        let k = m.min(n);
        let with = |tail: &[i64], dtype: DType| {
            TensorType::new(batch.iter().chain(tail).copied().collect(), dtype)
        };
        let info = || with(&[], DType::I32);
        // Eigenvalues of a Hermitian matrix and singular values are real; a real matrix's
        // general eigenvalues and eigenvectors are complex.
        let part = this.dtype.component().unwrap_or(this.dtype);
        let complex = this.dtype.complex_of().unwrap_or(this.dtype);
        let square = || {
            if m == n {
                Ok(())
            } else {
                Err(format!("{name}: the matrix must be square, got {a}"))
            }
        };
        let xla = this.convention == Convention::Xla;
        Ok(match self.routine {
            Routine::Getrf if xla => {
                vec![a.clone(), with(&[k], DType::I32), with(&[m], DType::I32)]
            }
            Routine::Getrf => vec![a.clone(), with(&[k], DType::I32), info()],
            Routine::Potrf => {
                square()?;
                vec![a.clone(), info()]
            }
            Routine::Geqrf => vec![a.clone(), with(&[k], this.dtype)],
            Routine::Orgqr => {
                let tau = tensors[1];
                let fits =
                    tau.rank() == r - 1 && tau.shape[..r - 2] == *batch && tau.shape[r - 2] <= k;
                if !fits {
                    return Err(format!(
                        "{name}: tau must be {}x<k ≤ {k}>, got {tau}",
                        batch_text(batch)
                    ));
                }
                vec![a.clone()]
            }
            Routine::Syevd => {
                square()?;
                if xla {
                    vec![a.clone(), with(&[n], part)]
                } else {
                    vec![a.clone(), with(&[n], part), info()]
                }
            }
            Routine::Gesdd => {
                let (u_cols, vt_rows) = match self.svd_vectors {
                    SvdVectors::Thin => (k, k),
                    SvdVectors::Full | SvdVectors::None => (m, n),
                };
                vec![
                    a.clone(),
                    with(&[k], part),
                    with(&[m, u_cols], this.dtype),
                    with(&[vt_rows, n], this.dtype),
                    info(),
                ]
            }
            Routine::Trsm => {
                square()?;
                let b = tensors[1];
                let solved = if self.left_side {
                    b.shape.get(r - 2)
                } else {
                    b.shape.get(r - 1)
                };
                if b.rank() != r || b.shape[..r - 2] != *batch || solved != Some(&m) {
                    return Err(format!(
                        "{name}: b must have a's batch dimensions and {m} {}, got a {a} and b {b}",
                        if self.left_side { "rows" } else { "columns" }
                    ));
                }
                vec![b.clone()]
            }
            Routine::Gees => {
                square()?;
                let mut out = vec![a.clone(), a.clone()];
                if this.dtype.is_complex() {
                    out.push(with(&[n], this.dtype));
                } else {
                    out.extend([with(&[n], part), with(&[n], part)]);
                }
                out.extend([info(), info()]);
                out
            }
            Routine::Gehrd => {
                square()?;
                if let Some((low, high)) = self.hessenberg_range {
                    if !(1 <= low && low <= high.max(1) && high <= n.max(1)) {
                        return Err(format!(
                            "{name}: low = {low} and high = {high} must satisfy \
                             1 ≤ low ≤ high ≤ {n}"
                        ));
                    }
                }
                vec![a.clone(), with(&[(n - 1).max(0)], this.dtype), info()]
            }
            Routine::Sytrd => {
                square()?;
                let off = (n - 1).max(0);
                vec![
                    a.clone(),
                    with(&[n], part),
                    with(&[off], part),
                    with(&[off], this.dtype),
                    info(),
                ]
            }
            Routine::Geev => {
                square()?;
                let vectors = || with(&[n, n], complex);
                if this.dtype.is_complex() {
                    vec![with(&[n], complex), vectors(), vectors(), info()]
                } else {
                    vec![
                        with(&[n], part),
                        with(&[n], part),
                        vectors(),
                        vectors(),
                        info(),
                    ]
                }
            }
        })
    }

    /// Checks `declared` result types against [`LapackCall::result_types`]. Gesdd with
    /// `mode = 'N'` may declare `u`/`vt` of any matrix shape (JAX declares them full, unused).
    pub fn check(&self, operands: &[Type], declared: &[Type]) -> Result<(), String> {
        let want = self.result_types(operands)?;
        let fits = want.len() == declared.len()
            && want.iter().zip(declared).enumerate().all(|(i, (w, d))| {
                let skip = self.routine == Routine::Gesdd
                    && self.svd_vectors == SvdVectors::None
                    && (i == 2 || i == 3);
                match d {
                    Type::Tensor(d) => d == w || (skip && d.rank() == w.rank()),
                    _ => false,
                }
            });
        if fits {
            Ok(())
        } else {
            Err(format!(
                "{} on ({}) must return ({}), declares ({})",
                self.target,
                join(operands),
                join(&want.into_iter().map(Type::Tensor).collect::<Vec<_>>()),
                join(declared)
            ))
        }
    }

    /// Floating-point operations of one call on operands of these types (LAPACK's operation
    /// counts, leading terms): LU `mn² − n³/3`, Cholesky `n³/3`, QR `2mn² − 2n³/3` (and as
    /// much again to form Q), symmetric eigensolver `4n³/3` without and `9n³` with vectors,
    /// SVD `4mn² − 4n³/3` without and `≈ 4m²n + 22n³` with vectors, triangular solve `m²n`,
    /// general eigensolver `10n³` without and `25n³` with vectors; four times as many for
    /// complex types.
    pub fn flops(&self, operands: &[TensorType]) -> f64 {
        let Some(a) = operands.first() else {
            return 0.0;
        };
        let r = a.rank();
        if r < 2 {
            return 0.0;
        }
        let batch: f64 = a.shape[..r - 2].iter().map(|&d| d.max(0) as f64).product();
        let (m, n) = (a.shape[r - 2].max(0) as f64, a.shape[r - 1].max(0) as f64);
        let (big, small) = (m.max(n), m.min(n));
        let one = match self.routine {
            Routine::Getrf => big * small * small - small.powi(3) / 3.0,
            Routine::Potrf => n.powi(3) / 3.0,
            Routine::Geqrf | Routine::Orgqr => {
                2.0 * big * small * small - 2.0 * small.powi(3) / 3.0
            }
            Routine::Syevd if self.eigenvectors => 9.0 * n.powi(3),
            Routine::Syevd => 4.0 * n.powi(3) / 3.0,
            Routine::Gesdd => match self.svd_vectors {
                SvdVectors::None => 4.0 * big * small * small - 4.0 * small.powi(3) / 3.0,
                _ => 4.0 * big * big * small + 22.0 * small.powi(3),
            },
            Routine::Trsm => {
                let b = operands
                    .get(1)
                    .map_or(0.0, |b| b.num_elements() as f64 / batch.max(1.0));
                m * b
            }
            // Hessenberg reduction and the QR iterations, about 10n³ for values alone; the
            // vectors add about 15n³ (LAPACK Working Note 41's counts).
            Routine::Geev if self.left_vectors || self.right_vectors => 25.0 * n.powi(3),
            Routine::Geev => 10.0 * n.powi(3),
            // Hessenberg reduction and the QR iterations to the Schur form (LAWN 41).
            Routine::Gees if self.eigenvectors => 25.0 * n.powi(3),
            Routine::Gees => 10.0 * n.powi(3),
            Routine::Gehrd => 10.0 * n.powi(3) / 3.0,
            Routine::Sytrd => 4.0 * n.powi(3) / 3.0,
        };
        // A complex multiply-add is four real multiplies and four adds.
        let complex_factor = if self.dtype.is_complex() { 4.0 } else { 1.0 };
        complex_factor * batch * one
    }
}

fn batch_text(batch: &[i64]) -> String {
    batch
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

fn join(types: &[Type]) -> String {
    types
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each layout must be JAX's: a matrix (the slots in `matrices`) column-major in its last two
/// dimensions with the batch dimensions outermost (`[r-2, r-1, r-3, …, 0]`), so that LAPACK
/// reads it as a Fortran array; vectors and scalars row-major. A matrix in another layout
/// would be read transposed, so it is refused.
fn check_layouts(attr: &Attribute, matrices: &[usize]) -> Result<(), String> {
    let Attribute::Array(items) = attr else {
        return Err(format!("expected a list of layouts, got {attr:?}"));
    };
    for (i, item) in items.iter().enumerate() {
        let layout = layout_values(item)?;
        let r = layout.len() as i64;
        let mut want: Vec<i64> = (0..r).rev().collect();
        if matrices.contains(&i) && r >= 2 {
            want.swap(0, 1);
        }
        if layout != want {
            let what = if matrices.contains(&i) {
                "a matrix must be column-major (a row-major matrix layout is not supported)"
            } else {
                "a vector must be row-major"
            };
            return Err(format!(
                "layout {layout:?} of value {i}: {what}, as {want:?}"
            ));
        }
    }
    Ok(())
}

/// The minor-to-major list of a `dense<[…]> : tensor<Nxindex>` attribute.
fn layout_values(attr: &Attribute) -> Result<Vec<i64>, String> {
    match attr {
        Attribute::Dense(t) => match t.data() {
            crate::Data::Int(v) => Ok(v.clone()),
            crate::Data::UInt(v) => Ok(v.iter().map(|&x| x as i64).collect()),
            _ => Err(format!("a layout must hold integers, got {}", t.ty())),
        },
        Attribute::Opaque(text) => {
            let inner = text
                .strip_prefix("dense<")
                .and_then(|s| s.split_once('>'))
                .map(|(body, _)| body)
                .ok_or_else(|| format!("unreadable layout {text}"))?;
            let digits = inner.trim_matches(|c| c == '[' || c == ']');
            if digits.trim().is_empty() {
                return Ok(vec![]);
            }
            digits
                .split(',')
                .map(|s| {
                    s.trim()
                        .parse::<i64>()
                        .map_err(|_| format!("unreadable layout {text}"))
                })
                .collect()
        }
        other => Err(format!("unreadable layout {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_in(text: &str) -> Result<LapackCall, String> {
        let module = crate::text::parse_module(text, "test").expect("parses");
        let op = module.funcs[0].body.blocks[0]
            .ops
            .iter()
            .find(|op| matches!(op.kind, OpKind::CustomCall { .. }))
            .expect("a custom call");
        LapackCall::from_op(op).expect("a lapack call")
    }

    fn module(call: &str, ty: &str) -> String {
        format!("func.func @main(%a: {ty}, %b: {ty}) -> {ty} {{\n  {call}\n  return %a : {ty}\n}}")
    }

    #[test]
    fn reads_trsm_flags_and_layouts() {
        let text = module(
            "%0 = stablehlo.custom_call @lapack_dtrsm_ffi(%a, %b) {mhlo.backend_config = \
             {diag = 85 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, \
             operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : \
             tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : \
             (tensor<2x3x3xf64>, tensor<2x3x3xf64>) -> tensor<2x3x3xf64>",
            "tensor<2x3x3xf64>",
        );
        let call = call_in(&text).unwrap();
        assert_eq!(call.routine, Routine::Trsm);
        assert_eq!(call.dtype, DType::F64);
        assert!(!call.lower && !call.left_side && call.transpose_a && call.unit_diagonal);
    }

    #[test]
    fn reads_complex_targets() {
        let ty = "tensor<3x3xcomplex<f32>>";
        let heevd = module(
            &format!("%0:3 = stablehlo.custom_call @lapack_cheevd_ffi(%a) {{mhlo.backend_config = {{mode = 86 : ui8, uplo = 76 : ui8}}}} : ({ty}) -> ({ty}, tensor<3xf32>, tensor<i32>)"),
            ty,
        );
        let call = call_in(&heevd).unwrap();
        assert_eq!((call.routine, call.dtype), (Routine::Syevd, DType::C64));
        let a = Type::Tensor(TensorType::new(vec![3, 3], DType::C64));
        let got = call.result_types(std::slice::from_ref(&a)).unwrap();
        assert_eq!(
            got[1],
            TensorType::new(vec![3], DType::F32),
            "real eigenvalues"
        );
        let trsm = module(
            &format!("%0 = stablehlo.custom_call @lapack_ctrsm_ffi(%a, %b) {{mhlo.backend_config = {{trans_x = 67 : ui8}}}} : ({ty}, {ty}) -> {ty}"),
            ty,
        );
        let call = call_in(&trsm).unwrap();
        assert!(call.transpose_a && call.conjugate_a);
        assert_eq!(
            LapackCall::new(Routine::Orgqr, DType::C128).unwrap().target,
            "lapack_zungqr_ffi"
        );
    }

    #[test]
    fn geev_results_are_complex() {
        let real = LapackCall::new(Routine::Geev, DType::F32).unwrap();
        let a = Type::Tensor(TensorType::new(vec![2, 4, 4], DType::F32));
        let got = real.result_types(std::slice::from_ref(&a)).unwrap();
        assert_eq!(got.len(), 5);
        assert_eq!(got[1], TensorType::new(vec![2, 4], DType::F32));
        assert_eq!(got[3], TensorType::new(vec![2, 4, 4], DType::C64));
        let complex = LapackCall::new(Routine::Geev, DType::C128).unwrap();
        let a = Type::Tensor(TensorType::new(vec![4, 4], DType::C128));
        let got = complex.result_types(std::slice::from_ref(&a)).unwrap();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], TensorType::new(vec![4], DType::C128));
        let op = Op::new(real.op_kind(), vec![], vec![]);
        assert_eq!(LapackCall::from_op(&op).unwrap().unwrap(), real);
    }

    #[test]
    fn reads_xlas_tpu_targets_with_their_result_lists() {
        let ty = "tensor<2x4x4xf64>";
        let eigh = module(
            &format!("%0:2 = stablehlo.custom_call @Eigh(%a) {{backend_config = \"0,1,100,1e-6\"}} : ({ty}) -> ({ty}, tensor<2x4xf64>)"),
            ty,
        );
        let call = call_in(&eigh).unwrap();
        assert_eq!(
            (call.routine, call.convention),
            (Routine::Syevd, Convention::Xla)
        );
        assert!(!call.lower, "the first field is `lower`");
        let a = Type::Tensor(TensorType::new(vec![2, 4, 4], DType::F64));
        let got = call.result_types(std::slice::from_ref(&a)).unwrap();
        assert_eq!(got.len(), 2, "no info");
        assert_eq!(got[1], TensorType::new(vec![2, 4], DType::F64));
        let lu = LapackCall::new_xla(Routine::Getrf, DType::F32).unwrap();
        assert_eq!(lu.target, "LuDecomposition");
        let rect = Type::Tensor(TensorType::new(vec![5, 3], DType::C64));
        let got = lu.result_types(std::slice::from_ref(&rect)).unwrap();
        assert_eq!(
            got[0].dtype,
            DType::C64,
            "the element type is the operand's"
        );
        assert_eq!(got[1], TensorType::new(vec![3], DType::I32));
        assert_eq!(
            got[2],
            TensorType::new(vec![5], DType::I32),
            "the permutation"
        );
        let op = Op::new(lu.op_kind(), vec![], vec![]);
        assert_eq!(LapackCall::from_op(&op).unwrap().unwrap(), lu);
        let ints = Type::Tensor(TensorType::new(vec![3, 3], DType::I32));
        assert!(lu.result_types(&[ints]).is_err());
        assert!(LapackCall::is_lapack_target(
            "ProductOfElementaryHouseholderReflectors"
        ));
        let bad = module(
            &format!("%0:2 = stablehlo.custom_call @Eigh(%a) {{backend_config = \"x,1,100,1e-6\"}} : ({ty}) -> ({ty}, tensor<2x4xf64>)"),
            ty,
        );
        assert!(call_in(&bad).unwrap_err().contains("field 0"));
    }

    #[test]
    fn refuses_row_major_matrices() {
        let ty = "tensor<3x3xf32>";
        let row_major = module(
            &format!(
                "%0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {{operand_layouts = \
                 [dense<[1, 0]> : tensor<2xindex>]}} : ({ty}) -> ({ty}, tensor<3xi32>, tensor<i32>)"
            ),
            ty,
        );
        assert!(call_in(&row_major).unwrap_err().contains("row-major"));
    }

    #[test]
    fn op_kind_round_trips_the_flags() {
        let mut call = LapackCall::new(Routine::Trsm, DType::F32).unwrap();
        call.lower = false;
        call.left_side = false;
        call.unit_diagonal = true;
        let op = Op::new(call.op_kind(), vec![], vec![]);
        assert_eq!(LapackCall::from_op(&op).unwrap().unwrap(), call);
        let mut svd = LapackCall::new(Routine::Gesdd, DType::F64).unwrap();
        svd.svd_vectors = SvdVectors::Thin;
        let op = Op::new(svd.op_kind(), vec![], vec![]);
        assert_eq!(LapackCall::from_op(&op).unwrap().unwrap(), svd);
        assert!(LapackCall::new(Routine::Getrf, DType::BF16).is_none());
        let mut conj = LapackCall::new(Routine::Trsm, DType::C64).unwrap();
        conj.transpose_a = true;
        conj.conjugate_a = true;
        let op = Op::new(conj.op_kind(), vec![], vec![]);
        assert_eq!(LapackCall::from_op(&op).unwrap().unwrap(), conj);
    }

    #[test]
    fn result_types_follow_the_routine() {
        let ty = "tensor<2x5x3xf32>";
        let text = module(
            &format!("%0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {{mhlo.backend_config = {{mode = 83 : ui8}}}} : ({ty}) -> ({ty}, tensor<2x3xf32>, tensor<2x5x3xf32>, tensor<2x3x3xf32>, tensor<2xi32>)"),
            ty,
        );
        let call = call_in(&text).unwrap();
        let a = Type::Tensor(TensorType::new(vec![2, 5, 3], DType::F32));
        let got = call.result_types(std::slice::from_ref(&a)).unwrap();
        assert_eq!(got[2].shape, vec![2, 5, 3]);
        assert_eq!(got[3].shape, vec![2, 3, 3]);
        assert_eq!(got[4].shape, vec![2]);
        let f64_operand = Type::Tensor(TensorType::new(vec![2, 5, 3], DType::F64));
        assert!(call
            .result_types(&[f64_operand])
            .unwrap_err()
            .contains("works on f32"));
        assert!(call.flops(&[TensorType::new(vec![2, 5, 3], DType::F32)]) > 0.0);
    }
}
