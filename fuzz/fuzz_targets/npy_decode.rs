//! Fuzz target: the `.npy` reader must never panic or allocate beyond the file on any bytes,
//! and an array it accepts must have exactly the bytes its type takes and convert to an exact
//! tensor.
//!
//! `.npy` files are user input (`systolic run --input`): a damaged or hostile header (a huge
//! shape, a wrong length, an unknown descr) is answered with an error naming the problem.

#![no_main]

use libfuzzer_sys::fuzz_target;
use systolic_ir::{DType, Tensor};

fuzz_target!(|data: &[u8]| {
    // Raw void elements need the dtype the program expects; try the interesting ones.
    for expected in [None, Some(DType::BF16), Some(DType::I4), Some(DType::F32)] {
        let Ok(array) = systolic_npy::decode(data.to_vec(), expected) else {
            continue;
        };
        let width = array.ty.dtype.byte_size();
        assert_eq!(array.bytes.len(), array.ty.num_elements() * width);
        let tensor = Tensor::from_le_bytes(array.ty.clone(), &array.bytes)
            .expect("a decoded array converts to a tensor");
        // What the reader accepts, the writer writes back the same way: integers and booleans
        // bit for bit; floats and complex numbers too, except NaN payloads (the exact tensor
        // holds f64 values, and widening a signalling NaN quiets it).
        if !(array.ty.dtype.is_float() || array.ty.dtype.is_complex()) {
            assert_eq!(tensor.to_le_bytes(), array.bytes);
        } else {
            let again = Tensor::from_le_bytes(array.ty.clone(), &tensor.to_le_bytes())
                .expect("the tensor's bytes convert back");
            assert_eq!(again.to_le_bytes(), tensor.to_le_bytes());
        }
    }
});
