//! The threefry2x32 hash (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"),
//! 20 rounds, built from uint32 array ops so it traces like any other function.

use crate::array::Array;
use crate::lax;
use crate::ops::elementwise::{binary, weak_int};
use systolic_ir::BinaryOp;

const ROTATIONS: [[i64; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];

fn add(a: &Array, b: &Array) -> Array {
    binary("threefry2x32", BinaryOp::Add, a, b)
}

fn rotl(x: &Array, r: i64) -> Array {
    let l = binary("threefry2x32", BinaryOp::ShiftLeft, x, &weak_int(r));
    let h = binary(
        "threefry2x32",
        BinaryOp::ShiftRightLogical,
        x,
        &weak_int(32 - r),
    );
    binary("threefry2x32", BinaryOp::Or, &l, &h)
}

/// Hashes counters `(x0, x1)` (uint32 arrays of one shape) with the key `(k0, k1)` (uint32
/// scalars); returns the two output words. Eagerly, one cached executable per shape.
pub(crate) fn threefry2x32(k0: &Array, k1: &Array, x0: &Array, x1: &Array) -> (Array, Array) {
    let out = crate::core::composite::composite("threefry2x32", &[k0, k1, x0, x1], |a| {
        let (y0, y1) = threefry2x32_ops(&a[0], &a[1], &a[2], &a[3]);
        vec![y0, y1]
    });
    let mut words = out.into_iter();
    match (words.next(), words.next()) {
        (Some(y0), Some(y1)) => (y0, y1),
        // The body returns two words; kept total rather than indexing.
        _ => threefry2x32_ops(k0, k1, x0, x1),
    }
}

/// The hash as array ops.
fn threefry2x32_ops(k0: &Array, k1: &Array, x0: &Array, x1: &Array) -> (Array, Array) {
    let k2 = binary(
        "threefry2x32",
        BinaryOp::Xor,
        &lax::bitwise_xor(k0, k1),
        &weak_int(0x1BD1_1BDA),
    );
    let ks = [k0.clone(), k1.clone(), k2];
    let mut x0 = add(x0, &ks[0]);
    let mut x1 = add(x1, &ks[1]);
    for group in 0..5usize {
        for &r in &ROTATIONS[group % 2] {
            x0 = add(&x0, &x1);
            x1 = rotl(&x1, r);
            x1 = binary("threefry2x32", BinaryOp::Xor, &x1, &x0);
        }
        x0 = add(&x0, &ks[(group + 1) % 3]);
        x1 = add(&add(&x1, &ks[(group + 2) % 3]), &weak_int(group as i64 + 1));
    }
    (x0, x1)
}
