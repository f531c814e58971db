//! Seeded random test inputs: values of every dtype with the edge cases mixed in (NaN, ±0,
//! ±inf, the smallest and largest values, INT_MIN), so compiled kernels meet them on every run.

use systolic_ir::{numerics, DType, DTypeKind, Tensor, TensorType};

/// A small, seeded generator (SplitMix64): the same seed gives the same inputs everywhere.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Bit patterns of the special values of a float dtype.
fn float_specials(dtype: DType) -> Vec<f64> {
    let max = match dtype {
        DType::F16 => 65504.0,
        DType::BF16 => 3.389_531_389_251_535_5e38,
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    };
    vec![
        f64::NAN,
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        max,
        -max,
        1.0,
        -1.0,
        0.5,
    ]
}

/// A random tensor of `ty`: mostly ordinary values (floats in about ±4, integers over their
/// whole range), with one element in eight an edge case.
pub fn tensor(rng: &mut Rng, ty: &TensorType) -> Tensor {
    tensor_with(rng, ty, true)
}

/// Like [`tensor`], without the largest finite floats (for reductions, whose summation order
/// may legitimately decide whether a sum of huge values overflows).
pub fn tensor_no_huge(rng: &mut Rng, ty: &TensorType) -> Tensor {
    tensor_with(rng, ty, false)
}

fn tensor_with(rng: &mut Rng, ty: &TensorType, huge: bool) -> Tensor {
    let n = ty.num_elements();
    let dtype = ty.dtype;
    if let Some(part) = dtype.component().filter(|_| dtype.is_complex()) {
        // Complex numbers: each part drawn as a float of the parts' dtype.
        let part_ty = TensorType::new(ty.shape.clone(), part);
        let re = tensor_with(rng, &part_ty, huge).to_f64_vec();
        let im = tensor_with(rng, &part_ty, huge).to_f64_vec();
        let z = re
            .into_iter()
            .zip(im)
            .map(|(a, b)| systolic_ir::Complex64::new(a, b))
            .collect();
        return Tensor::from_complex(ty.shape.clone(), dtype, z).expect("complex parts");
    }
    let bits: Vec<u64> = (0..n)
        .map(|_| {
            let special = rng.below(8) == 0;
            match dtype.kind() {
                DTypeKind::Bool => rng.below(2),
                DTypeKind::Signed | DTypeKind::Unsigned => {
                    let width = dtype.bit_width();
                    let mask = if width == 64 {
                        u64::MAX
                    } else {
                        (1 << width) - 1
                    };
                    if special {
                        // 0, -1 (all ones), INT_MIN (top bit), INT_MAX, 1
                        let top = 1u64 << (width - 1);
                        *rng.pick(&[0, mask, top, top - 1, 1])
                    } else if rng.below(2) == 0 {
                        rng.next_u64() & mask
                    } else {
                        // small values, for ops whose interesting range is small (shifts, indices)
                        (rng.below(9) as i64 - 4) as u64 & mask
                    }
                }
                // Drawn part by part above.
                DTypeKind::Complex => 0,
                DTypeKind::Float => {
                    let x = if special {
                        let specials = float_specials(dtype);
                        let usable = if huge { &specials[..] } else { &specials[..5] };
                        *rng.pick(usable)
                    } else {
                        (rng.unit() * 8.0 - 4.0) * if rng.below(4) == 0 { 100.0 } else { 1.0 }
                    };
                    numerics::float_to_bits(dtype, numerics::round_to(dtype, x))
                }
            }
        })
        .collect();
    Tensor::from_bits(ty.clone(), &bits).expect("bits of the dtype's width")
}

/// A random shape of rank `rank`: sizes from {0, 1, 2, 3, 5, 7}, with size 0 rare.
pub fn shape(rng: &mut Rng, rank: usize) -> Vec<i64> {
    (0..rank)
        .map(|_| {
            if rng.below(12) == 0 {
                0
            } else {
                *rng.pick(&[1, 2, 3, 5, 7])
            }
        })
        .collect()
}
