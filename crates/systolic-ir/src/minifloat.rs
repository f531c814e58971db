//! Narrow floating-point formats (the f8, f6 and f4 families) described by one table and
//! converted by one generic encoder and decoder.
//!
//! Eleven formats of 4 to 8 bits differ only in a few choices: how many exponent and mantissa
//! bits, the exponent bias, whether the largest exponent holds infinities, how a NaN is
//! written (if there is one), whether zero is unsigned (`FNUZ`), and whether there is a sign at
//! all (`E8M0FNU`, a power-of-two scale). [`Format`] records those choices; [`Format::decode`]
//! and [`Format::encode`] follow them, so a format is a row of data, not a copy of code.
//!
//! Encoding rounds once, to nearest with ties to even, from the exact `f64` value. Values too
//! large for the format become an infinity where it has one, else a NaN where it has one
//! (as ml_dtypes and MLIR's APFloat convert them, without saturation), else (the finite-only
//! MX formats f4/f6) the largest finite value of that sign. A NaN becomes the format's NaN;
//! the finite-only formats have none, and take negative zero, as ml_dtypes writes it. The
//! unsigned `E8M0FNU` has no zero either: zero and negatives are NaN, and positive values below
//! its smallest value 2^-127 become that value.
//!
//! Each element is stored in one byte, in the low bits (as ml_dtypes and XLA's host literals
//! store the sub-byte f4/f6 types).

/// How a format spends its largest exponent and its sign bit on special values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754: the all-ones exponent holds ±∞ (mantissa zero) and NaNs (mantissa nonzero;
    /// the quiet NaN sets the top mantissa bit). f8E5M2, f8E4M3, f8E3M4.
    Ieee,
    /// No infinities; the one code with all exponent and mantissa bits set (of either sign) is
    /// NaN, every other code is finite. f8E4M3FN, f8E8M0FNU.
    AllOnesNan,
    /// No infinities and no negative zero: the code of "−0" (sign bit alone) is the only NaN.
    /// f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ.
    NegativeZeroNan,
    /// Finite values only: no infinity, no NaN. f6E2M3FN, f6E3M2FN, f4E2M1FN.
    FiniteOnly,
}

/// A narrow float format: everything the generic conversion needs to know about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Total width in bits (the element still takes a byte).
    pub bits: u32,
    /// Exponent field width.
    pub exponent_bits: u32,
    /// Explicit mantissa bits (the leading 1 of normal numbers is implicit).
    pub mantissa_bits: u32,
    /// The exponent bias: a normal number with exponent field `e` is `1.m × 2^(e − bias)`.
    pub bias: i32,
    /// Where the special values live.
    pub specials: Specials,
    /// False for the unsigned f8E8M0FNU, whose eight bits are all exponent: it has no sign, no
    /// zero and no subnormals (exponent field 0 is the normal number 2^−bias).
    pub signed: bool,
}

impl Format {
    /// f8E4M3FN (OCP FP8 E4M3; NVIDIA H100, TPU v7): bias 7, max 448, NaN S.1111.111.
    pub const F8E4M3FN: Format = Format::signed(4, 3, 7, Specials::AllOnesNan);
    /// f8E5M2 (OCP FP8 E5M2): IEEE-like, bias 15, max 57344, ±∞.
    pub const F8E5M2: Format = Format::signed(5, 2, 15, Specials::Ieee);
    /// f8E4M3FNUZ (Graphcore/AMD): bias 8, max 240, NaN 0x80.
    pub const F8E4M3FNUZ: Format = Format::signed(4, 3, 8, Specials::NegativeZeroNan);
    /// f8E5M2FNUZ (Graphcore/AMD): bias 16, max 57344, NaN 0x80.
    pub const F8E5M2FNUZ: Format = Format::signed(5, 2, 16, Specials::NegativeZeroNan);
    /// f8E4M3B11FNUZ (IBM HFP8's forward format): bias 11, max 30, NaN 0x80.
    pub const F8E4M3B11FNUZ: Format = Format::signed(4, 3, 11, Specials::NegativeZeroNan);
    /// f8E3M4: IEEE-like, bias 3, max 15.5.
    pub const F8E3M4: Format = Format::signed(3, 4, 3, Specials::Ieee);
    /// f8E4M3: IEEE-like, bias 7, max 240.
    pub const F8E4M3: Format = Format::signed(4, 3, 7, Specials::Ieee);
    /// f8E8M0FNU (OCP MX scale): unsigned powers of two 2^−127 … 2^127, NaN 0xFF.
    pub const F8E8M0FNU: Format = Format {
        bits: 8,
        exponent_bits: 8,
        mantissa_bits: 0,
        bias: 127,
        specials: Specials::AllOnesNan,
        signed: false,
    };
    /// f6E2M3FN (OCP MX FP6 E2M3): bias 1, max 7.5, finite only.
    pub const F6E2M3FN: Format = Format::signed(2, 3, 1, Specials::FiniteOnly);
    /// f6E3M2FN (OCP MX FP6 E3M2): bias 3, max 28, finite only.
    pub const F6E3M2FN: Format = Format::signed(3, 2, 3, Specials::FiniteOnly);
    /// f4E2M1FN (OCP MX FP4 E2M1): bias 1, max 6, finite only.
    pub const F4E2M1FN: Format = Format::signed(2, 1, 1, Specials::FiniteOnly);

    const fn signed(exponent_bits: u32, mantissa_bits: u32, bias: i32, specials: Specials) -> Self {
        Format {
            bits: 1 + exponent_bits + mantissa_bits,
            exponent_bits,
            mantissa_bits,
            bias,
            specials,
            signed: true,
        }
    }

    fn sign_bit(self) -> u8 {
        if self.signed {
            1 << (self.bits - 1)
        } else {
            0
        }
    }

    fn max_exponent_field(self) -> u32 {
        (1 << self.exponent_bits) - 1
    }

    fn mantissa_mask(self) -> u32 {
        (1 << self.mantissa_bits) - 1
    }

    /// True when the format has a zero (all but f8E8M0FNU).
    pub fn has_zero(self) -> bool {
        self.signed
    }

    /// True when the format has ±∞.
    pub fn has_inf(self) -> bool {
        self.specials == Specials::Ieee
    }

    /// True when the format has a NaN.
    pub fn has_nan(self) -> bool {
        self.specials != Specials::FiniteOnly
    }

    /// The smallest exponent of a normal number (subnormals share it, with a leading 0).
    pub fn min_exponent(self) -> i32 {
        if self.has_zero() {
            1 - self.bias
        } else {
            -self.bias
        }
    }

    /// The exponent field and mantissa of the largest finite value.
    fn max_finite_fields(self) -> (u32, u32) {
        let e = self.max_exponent_field();
        let m = self.mantissa_mask();
        match self.specials {
            Specials::Ieee => (e - 1, m),
            Specials::AllOnesNan if self.mantissa_bits == 0 => (e - 1, 0),
            Specials::AllOnesNan => (e, m - 1),
            Specials::NegativeZeroNan | Specials::FiniteOnly => (e, m),
        }
    }

    /// The largest finite value.
    pub fn max_finite(self) -> f64 {
        let (e, m) = self.max_finite_fields();
        self.decode(((e << self.mantissa_bits) | m) as u8)
    }

    /// The smallest positive normal value.
    pub fn min_normal(self) -> f64 {
        pow2(self.min_exponent())
    }

    /// The code of a NaN of sign `negative` (`None` for the finite-only formats).
    pub fn nan_code(self, negative: bool) -> Option<u8> {
        let sign = if negative { self.sign_bit() } else { 0 };
        let e = self.max_exponent_field() << self.mantissa_bits;
        match self.specials {
            Specials::Ieee => Some(sign | (e | 1 << (self.mantissa_bits - 1)) as u8),
            Specials::AllOnesNan => Some(sign | (e | self.mantissa_mask()) as u8),
            Specials::NegativeZeroNan => Some(self.sign_bit()),
            Specials::FiniteOnly => None,
        }
    }

    /// The value of the code `code` (its bits above the format's width are ignored).
    pub fn decode(self, code: u8) -> f64 {
        let code = (code as u32) & ((1u32 << self.bits) - 1);
        let negative = self.signed && code & (1 << (self.bits - 1)) != 0;
        let magnitude = code & ((1 << (self.bits - self.signed as u32)) - 1);
        let e = magnitude >> self.mantissa_bits;
        let m = magnitude & self.mantissa_mask();
        let special = match self.specials {
            Specials::Ieee if e == self.max_exponent_field() => {
                Some(if m == 0 { f64::INFINITY } else { f64::NAN })
            }
            Specials::AllOnesNan if e == self.max_exponent_field() && m == self.mantissa_mask() => {
                Some(f64::NAN)
            }
            Specials::NegativeZeroNan if negative && magnitude == 0 => return f64::NAN,
            _ => None,
        };
        let value = special.unwrap_or_else(|| {
            let p = self.mantissa_bits as i32;
            if !self.has_zero() {
                pow2(e as i32 - self.bias)
            } else if e == 0 {
                m as f64 * pow2(self.min_exponent() - p)
            } else {
                ((1 << p) + m) as f64 * pow2(e as i32 - self.bias - p)
            }
        });
        if negative {
            -value
        } else {
            value
        }
    }

    /// The code of `x` rounded to the format (see the module docs for overflow, NaN and the
    /// formats without a zero or a sign).
    pub fn encode(self, x: f64) -> u8 {
        let negative = x.is_sign_negative();
        let sign = if negative { self.sign_bit() } else { 0 };
        let max = self.max_finite_fields();
        let max_code = ((max.0 << self.mantissa_bits) | max.1) as u8;
        // What a value too large (or infinite) becomes.
        let overflow = || {
            if self.has_inf() {
                sign | (self.max_exponent_field() << self.mantissa_bits) as u8
            } else if let Some(nan) = self.nan_code(negative) {
                nan
            } else {
                sign | max_code
            }
        };
        if x.is_nan() {
            return self.nan_code(negative).unwrap_or(self.sign_bit());
        }
        if !self.signed && (negative || x == 0.0) {
            return self
                .nan_code(negative)
                .expect("unsigned formats have a NaN");
        }
        if x.is_infinite() {
            return overflow();
        }
        let a = x.abs();
        if a == 0.0 {
            return if self.specials == Specials::NegativeZeroNan {
                0
            } else {
                sign
            };
        }
        let p = self.mantissa_bits as i32;
        let exponent = exponent_of(a).max(self.min_exponent());
        let mut quantum = exponent - p;
        // a / 2^quantum is exact (a power-of-two scaling well inside f64's range).
        let mut n = (a * pow2(-quantum)).round_ties_even() as u64;
        if n == 0 {
            // Underflow: to zero, or to the smallest value where there is no zero.
            return if !self.has_zero() || self.specials == Specials::NegativeZeroNan {
                0
            } else {
                sign
            };
        }
        if n == 2 << p {
            // Rounding carried into the next binade.
            n = 1 << p;
            quantum += 1;
        }
        let (field, mantissa) = if n >= 1 << p {
            (quantum + p + self.bias, n as u32 - (1 << p))
        } else {
            (0, n as u32)
        };
        if field > max.0 as i32 || (field == max.0 as i32 && mantissa > max.1) {
            return overflow();
        }
        sign | ((field as u32) << self.mantissa_bits | mantissa) as u8
    }

    /// `x` rounded to the nearest value of the format (ties to even, overflow and NaN as
    /// [`Format::encode`] maps them).
    pub fn round(self, x: f64) -> f64 {
        self.decode(self.encode(x))
    }
}

/// 2^k as an f64 (k within ±1000).
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The binary exponent of a positive finite `a` (⌊log2 a⌋), read from its bits; f64
/// subnormals (far below every narrow format's range) report −1023.
fn exponent_of(a: f64) -> i32 {
    ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Format; 11] = [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::F8E4M3FNUZ,
        Format::F8E5M2FNUZ,
        Format::F8E4M3B11FNUZ,
        Format::F8E3M4,
        Format::F8E4M3,
        Format::F8E8M0FNU,
        Format::F6E2M3FN,
        Format::F6E3M2FN,
        Format::F4E2M1FN,
    ];

    #[test]
    fn extremes_match_ml_dtypes_finfo() {
        // (max, smallest normal) as ml_dtypes.finfo reports them.
        let want = [
            (448.0, 0.015625),
            (57344.0, 6.103515625e-05),
            (240.0, 0.0078125),
            (57344.0, 3.0517578125e-05),
            (30.0, 0.0009765625),
            (15.5, 0.25),
            (240.0, 0.015625),
            (1.7014118346046923e38, 5.877471754111438e-39),
            (7.5, 1.0),
            (28.0, 0.25),
            (6.0, 1.0),
        ];
        for (f, (max, tiny)) in ALL.iter().zip(want) {
            assert_eq!(f.max_finite(), max, "{f:?}");
            assert_eq!(f.min_normal(), tiny, "{f:?}");
        }
    }

    #[test]
    fn every_code_round_trips() {
        for f in ALL {
            for code in 0..(1u32 << f.bits) {
                let code = code as u8;
                let v = f.decode(code);
                if v.is_nan() {
                    assert!(f.decode(f.encode(v)).is_nan(), "{f:?} {code:#x}");
                } else {
                    assert_eq!(f.encode(v), code, "{f:?} {code:#x} = {v}");
                }
            }
        }
    }

    #[test]
    fn special_values_as_ml_dtypes_writes_them() {
        let f = Format::F8E4M3FN;
        assert_eq!(f.encode(f64::NAN), 0x7f);
        assert_eq!(f.encode(f64::NEG_INFINITY), 0xff);
        assert_eq!(f.encode(470.0), 0x7f); // rounds past 448: NaN, not saturated
        assert_eq!(f.encode(464.0), 0x7e); // the tie rounds down to 448
        assert_eq!(Format::F8E5M2.encode(f64::NAN), 0x7e);
        assert_eq!(Format::F8E5M2.encode(1e9), 0x7c);
        assert_eq!(Format::F8E5M2FNUZ.encode(-0.0), 0x00);
        assert_eq!(Format::F8E5M2FNUZ.encode(f64::INFINITY), 0x80);
        assert_eq!(Format::F8E3M4.encode(f64::NAN), 0x78);
        assert_eq!(Format::F8E4M3.encode(f64::NAN), 0x7c);
        assert_eq!(Format::F6E2M3FN.encode(f64::NAN), 0x20);
        assert_eq!(Format::F6E2M3FN.encode(1e9), 0x1f);
        assert_eq!(Format::F4E2M1FN.encode(f64::NEG_INFINITY), 0x0f);
        let s = Format::F8E8M0FNU;
        assert_eq!(s.encode(0.0), 0xff);
        assert_eq!(s.encode(-1.0), 0xff);
        assert_eq!(s.encode(1.5), 0x80); // ties go up: the implicit 1 is odd
        assert_eq!(s.encode(3.0), 0x81);
        assert_eq!(s.encode(1e9), 0x9d);
        assert_eq!(s.encode(1e-40), 0x00);
        assert_eq!(s.encode(1.9 * 2f64.powi(127)), 0xff);
        assert_eq!(Format::F4E2M1FN.encode(0.75), 0x02); // tie 0.5 | 1.0 goes to even 1.0
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        let f = Format::F8E4M3FN;
        assert_eq!(f.round(1.0 + 1.0 / 16.0), 1.0);
        assert_eq!(f.round(1.0 + 3.0 / 16.0), 1.25);
        assert_eq!(f.round(1.0 + 1.0 / 16.0 + 1e-12), 1.125);
        // Subnormals: the smallest is 2^-9.
        assert_eq!(f.round(2f64.powi(-10)), 0.0);
        assert_eq!(f.round(1.5 * 2f64.powi(-10)), 2f64.powi(-9));
        assert_eq!(f.round(-2f64.powi(-11)), 0.0);
        assert!(f.round(-2f64.powi(-11)).is_sign_negative());
    }
}
