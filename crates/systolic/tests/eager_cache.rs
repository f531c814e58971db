//! The eager compile cache, alone in its test binary: the cache is process-wide, so a test
//! running beside others would see their entries arrive.

use std::sync::Mutex;
use systolic::{numpy as np, random, Array};

/// The tests of this binary count one process-wide cache: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn eager_ops_compile_once_per_signature() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let a = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
    let _ = np::tanh(&a).block_until_ready().unwrap().clone();
    let before = systolic::eager_cache_len();
    for _ in 0..5 {
        np::tanh(&a).block_until_ready().unwrap();
    }
    assert_eq!(systolic::eager_cache_len(), before);
    // Keys work on every device and survive device_put.
    let k = random::key(3)
        .device_put(systolic::default_device())
        .unwrap();
    assert_eq!(k.to_vec::<u32>().unwrap(), vec![0, 3]);
}

/// A random draw outside `jit` runs the threefry hash (~150 ops) as one executable per shape:
/// the eager cache gains only the few ops around it, and a second draw of the same shape, or
/// one with another key, compiles nothing.
#[test]
fn eager_random_draws_hash_in_one_executable() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    use systolic::DType;
    let key = random::key(0);
    let before = systolic::eager_cache_len();
    let first = random::randint(&key, &[1000], 0, 10, DType::I32);
    first.block_until_ready().unwrap();
    let added = systolic::eager_cache_len() - before;
    assert!(added < 40, "an eager randint compiled {added} single ops");
    let again = random::randint(&random::key(1), &[1000], 0, 10, DType::I32);
    again.block_until_ready().unwrap();
    assert_eq!(systolic::eager_cache_len() - before, added);
    // The values are the traced program's, bit for bit.
    let jitted = systolic::jit(|k: &Array| random::randint(k, &[1000], 0, 10, DType::I32));
    assert_eq!(
        first.to_vec::<i32>().unwrap(),
        jitted.call(&key).unwrap().to_vec::<i32>().unwrap()
    );
}
