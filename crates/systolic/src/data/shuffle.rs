//! `shuffle`: tf.data's buffered shuffle, seeded by the seed and the epoch.
//!
//! The buffer is filled with the first `buffer_size` elements; then each output is a uniformly
//! chosen buffer slot, refilled from the input; at the end the buffer drains in random order.
//! A buffer as large as the dataset is a uniform permutation; a smaller one only mixes
//! neighbours, which is what makes it cheap. Each element leaves exactly once. The random
//! stream is SplitMix64 seeded with `(seed, epoch)`: a fixed, documented generator, so the
//! order is the same on every platform and release, and it differs between epochs.

use super::Dataset;
use crate::error::Result;

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and good enough to pick buffer slots.
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator of `(seed, epoch)`.
    pub(crate) fn new(seed: u64, epoch: u64) -> Self {
        let mut g = SplitMix64(seed);
        let mixed = g.next_u64() ^ epoch.wrapping_mul(0xD1B5_4A32_D192_ED03);
        SplitMix64(mixed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by the multiply-shift method.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

impl<T: Send + 'static> Dataset<T> {
    /// Shuffles with a buffer of `buffer_size` elements (tf.data's `shuffle(buffer_size,
    /// seed)`, reshuffled each epoch): deterministic for a seed and epoch, different between
    /// epochs. Failed elements move like the others and still reach the consumer. A buffer of
    /// 0 or 1 keeps the order; one at least as large as the dataset is a uniform permutation.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_vec((0..8).collect::<Vec<i32>>()).shuffle(8, 7);
    /// let e0: Vec<i32> = ds.epoch(0).map(Result::unwrap).collect();
    /// let e1: Vec<i32> = ds.epoch(1).map(Result::unwrap).collect();
    /// assert_ne!(e0, e1);
    /// assert_eq!(e0, ds.epoch(0).map(Result::unwrap).collect::<Vec<_>>());
    /// let mut sorted = e0.clone();
    /// sorted.sort();
    /// assert_eq!(sorted, (0..8).collect::<Vec<_>>());
    /// ```
    pub fn shuffle(self, buffer_size: usize, seed: u64) -> Dataset<T> {
        let size = buffer_size.max(1);
        Dataset::from_make(move |e| {
            let mut input = self.stream(e);
            let mut rng = SplitMix64::new(seed, e);
            let mut buffer: Vec<Result<T>> = Vec::with_capacity(size.min(1 << 16));
            Box::new(std::iter::from_fn(move || {
                while buffer.len() < size {
                    match input.next() {
                        Some(x) => buffer.push(x),
                        None => break,
                    }
                }
                if buffer.is_empty() {
                    return None;
                }
                let j = rng.below(buffer.len());
                Some(buffer.swap_remove(j))
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut g = SplitMix64::new(1, 0);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            seen[g.below(5)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 150), "{seen:?}");
    }
}
