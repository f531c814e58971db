//! TPU memory layout as far as sizes are concerned: arrays live in HBM and VMEM as tiles of
//! (sublanes, 128 lanes), so the two minor dimensions are padded up to the tile. The tile is
//! (8, 128) for 32-bit types, (16, 128) for 16-bit types (two values packed per 32-bit
//! sublane), (32, 128) for 8-bit types. The padding is real traffic and real capacity, which is
//! why a `[1000, 100]` f32 array costs like a `[1000, 128]` one.

use systolic_ir::{DType, TensorType};

/// Lanes of a vector register: the minor-most tile dimension.
pub const LANES: u64 = 128;

/// Rows of the (rows, 128) tile for a dtype: 8 for 32-bit (and, as an approximation, 64-bit),
/// 16 for 16-bit, 32 for 8-bit and narrower (booleans are stored as bytes).
pub fn sublane_tile(dtype: DType) -> u64 {
    match dtype.bit_width() {
        32 | 64 => 8,
        16 => 16,
        _ => 32,
    }
}

/// Rounds `x` up to a multiple of `m` (m > 0).
pub fn round_up(x: u64, m: u64) -> u64 {
    x.div_ceil(m).saturating_mul(m)
}

/// The shape after tiling: the minor dimension rounded up to 128 lanes, the second-minor to the
/// dtype's sublane tile. Rank-1 arrays are padded to whole 128-lane rows; scalars stay one
/// element.
pub fn padded_dims(shape: &[i64], dtype: DType) -> Vec<u64> {
    let mut dims: Vec<u64> = shape.iter().map(|&d| d.max(0) as u64).collect();
    let rank = dims.len();
    if rank >= 1 {
        dims[rank - 1] = round_up(dims[rank - 1], LANES);
    }
    if rank >= 2 {
        dims[rank - 2] = round_up(dims[rank - 2], sublane_tile(dtype));
    }
    dims
}

/// Elements of a tensor after tile padding: what the VPU processes, since it works on whole
/// (sublane, lane) vector registers.
pub fn padded_elements(ty: &TensorType) -> u64 {
    if ty.shape.contains(&0) {
        return 0;
    }
    padded_dims(&ty.shape, ty.dtype)
        .iter()
        .fold(1u64, |n, &d| n.saturating_mul(d))
}

/// Bytes of a tensor in HBM after tile padding.
pub fn padded_bytes(ty: &TensorType) -> u64 {
    padded_elements(ty).saturating_mul(ty.dtype.byte_size() as u64)
}

/// Bytes of a tensor without padding (what the program's numbers need).
pub fn dense_bytes(ty: &TensorType) -> u64 {
    ty.byte_size() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[i64], dtype: DType) -> TensorType {
        TensorType::new(shape.to_vec(), dtype)
    }

    #[test]
    fn tiles_per_dtype() {
        // f32 [3, 100] -> [8, 128]; bf16 -> [16, 128]; i8 -> [32, 128].
        assert_eq!(padded_bytes(&t(&[3, 100], DType::F32)), 8 * 128 * 4);
        assert_eq!(padded_bytes(&t(&[3, 100], DType::BF16)), 16 * 128 * 2);
        assert_eq!(padded_bytes(&t(&[3, 100], DType::I8)), 32 * 128);
        // Leading dimensions are not padded.
        assert_eq!(padded_dims(&[5, 9, 130], DType::F32), vec![5, 16, 256]);
    }

    #[test]
    fn aligned_shapes_are_not_padded() {
        let ty = t(&[4, 8192, 32768], DType::BF16);
        assert_eq!(padded_bytes(&ty), dense_bytes(&ty));
        assert_eq!(padded_bytes(&t(&[], DType::F32)), 4);
        assert_eq!(padded_bytes(&t(&[1000], DType::F32)), 1024 * 4);
        assert_eq!(padded_bytes(&t(&[0, 7], DType::F32)), 0);
    }
}
