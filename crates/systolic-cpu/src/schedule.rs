//! Which steps of a program run side by side: an order of the steps, and pairs of independent
//! steps in it that run at the same time.
//!
//! Every kernel spreads its own work over both cores, yet not perfectly: a product whose
//! right operand is transposed keeps both cores busy only ~87% of its time (the `gemm` crate's
//! static split), a column reduction waits on memory while the cores idle, and every parallel
//! kernel ends at a join where one core waits for the other. Two independent steps started
//! together (`rayon::join`) fill those gaps: each runs mostly on one core, and when one is
//! done its core steals the other's remaining pieces. XLA's CPU runtime does the same (its
//! thunk executor runs independent thunks concurrently); in the MLP training step the
//! backward products `dX = dY·Wᵀ` and `dW = Xᵀ·dY` are such a pair.
//!
//! The scheduler keeps the program's order as its priority and only pulls a later step
//! forward, within a window, to pair it with the step being placed: a list schedule that never
//! delays a step. It pairs steps whose estimated costs are within a factor of
//! [`MAX_COST_RATIO`] of each other and at least [`MIN_PAIR_NS`] each (below that the hand-off
//! costs more than the overlap saves); among candidates it takes the one closest in cost.
//! Only steps marked movable take part (tensor kernels: no side effects, no nested programs).

/// Steps estimated below this (ns) are never paired: starting two tasks costs a few µs.
pub const MIN_PAIR_NS: f64 = 50_000.0;

/// Paired steps' estimated costs differ by at most this factor. (MLP training step, 5 rounds
/// of `systolic run --repeat 30` under `chrt -f 50`, median of medians: unpaired 41.5 ms;
/// factor 1 (equal costs only) 40.5, 4: 39.5, 16: 39.4, 64: 40.8.)
pub const MAX_COST_RATIO: f64 = 4.0;

/// How far ahead (in steps of the original order) a partner is looked for.
pub const WINDOW: usize = 32;

/// What the scheduler needs to know of one step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepInfo {
    /// Slots read.
    pub reads: Vec<usize>,
    /// Slots written.
    pub writes: Vec<usize>,
    /// Estimated run time, ns.
    pub cost_ns: f64,
    /// May be moved and run next to another step.
    pub movable: bool,
}

/// An order of the steps (indices into the original list) and, per position, whether the step
/// there runs together with the next one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Step indices, a topological order of the data flow.
    pub order: Vec<usize>,
    /// `with_next[k]`: `order[k]` and `order[k + 1]` run at the same time (never two in a
    /// row: groups are pairs).
    pub with_next: Vec<bool>,
}

/// The schedule of `steps` (given in a valid order: every slot is written before it is read).
///
/// ```
/// use systolic_cpu::schedule::{schedule, StepInfo};
/// let step = |reads: Vec<usize>, writes: Vec<usize>, ms: f64| StepInfo {
///     reads, writes, cost_ns: ms * 1e6, movable: true,
/// };
/// // 0: a = f(x); 1: b = g(a); 2: c = h(x) — step 2 is pulled forward to run beside step 0.
/// let s = schedule(&[step(vec![0], vec![1], 8.0), step(vec![1], vec![2], 8.0), step(vec![0], vec![3], 7.0)]);
/// assert_eq!(s.order, vec![0, 2, 1]);
/// assert_eq!(s.with_next, vec![true, false, false]);
/// ```
pub fn schedule(steps: &[StepInfo]) -> Schedule {
    let n = steps.len();
    let num_slots = steps
        .iter()
        .flat_map(|s| s.reads.iter().chain(&s.writes))
        .max()
        .map_or(0, |m| m + 1);
    let mut producer = vec![usize::MAX; num_slots];
    for (i, s) in steps.iter().enumerate() {
        for &w in &s.writes {
            producer[w] = i;
        }
    }
    let pairable = |s: &StepInfo| s.movable && s.cost_ns >= MIN_PAIR_NS;
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut with_next = Vec::with_capacity(n);
    let mut next = 0;
    while next < n {
        let i = next;
        placed[i] = true;
        order.push(i);
        with_next.push(false);
        if pairable(&steps[i]) {
            // Ready now: every operand written by a step already placed (not `i` itself).
            let ready = |j: usize| {
                steps[j].reads.iter().all(|&r| {
                    let p = producer[r];
                    p == usize::MAX || (p != i && placed[p])
                })
            };
            let closeness = |j: usize| (steps[j].cost_ns / steps[i].cost_ns).ln().abs();
            let partner = (i + 1..n.min(i + 1 + WINDOW))
                .filter(|&j| !placed[j] && pairable(&steps[j]) && ready(j))
                .filter(|&j| closeness(j) <= MAX_COST_RATIO.ln())
                .min_by(|&a, &b| closeness(a).total_cmp(&closeness(b)));
            if let Some(j) = partner {
                placed[j] = true;
                order.push(j);
                *with_next.last_mut().expect("just pushed") = true;
                with_next.push(false);
            }
        }
        while next < n && placed[next] {
            next += 1;
        }
    }
    Schedule { order, with_next }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(reads: &[usize], writes: &[usize], ms: f64) -> StepInfo {
        StepInfo {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
            cost_ns: ms * 1e6,
            movable: true,
        }
    }

    /// Checks that `s` is a permutation in which every read slot was written earlier (or is
    /// an input) and paired steps do not read each other's results.
    fn assert_valid(steps: &[StepInfo], s: &Schedule) {
        let mut sorted = s.order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..steps.len()).collect::<Vec<_>>());
        let written_by: std::collections::HashMap<usize, usize> = steps
            .iter()
            .enumerate()
            .flat_map(|(i, st)| st.writes.iter().map(move |&w| (w, i)))
            .collect();
        for (k, &i) in s.order.iter().enumerate() {
            let partner = (k > 0 && s.with_next[k - 1]).then(|| s.order[k - 1]);
            for r in &steps[i].reads {
                if let Some(&p) = written_by.get(r) {
                    let at = s.order.iter().position(|&x| x == p).unwrap();
                    assert!(at < k, "step {i} reads slot {r} before step {p} writes it");
                    assert_ne!(Some(p), partner, "step {i} runs beside its producer {p}");
                }
            }
        }
        for w in s.with_next.windows(2) {
            assert!(!(w[0] && w[1]), "groups are pairs: {:?}", s.with_next);
        }
    }

    #[test]
    fn a_chain_stays_in_order_and_unpaired() {
        let steps = [
            step(&[0], &[1], 5.0),
            step(&[1], &[2], 5.0),
            step(&[2], &[3], 5.0),
        ];
        let s = schedule(&steps);
        assert_valid(&steps, &s);
        assert_eq!(s.order, vec![0, 1, 2]);
        assert_eq!(s.with_next, vec![false; 3]);
    }

    /// The MLP backward shape: after the gradient `g` (step 1) come a column sum of it, the
    /// input gradient `g·Wᵀ` with its own column sum, and the weight gradient `hᵀ·g`: the two
    /// products pair up (the weight gradient pulled forward); the sums, far cheaper than the
    /// products, stay alone.
    #[test]
    fn the_two_backward_products_run_side_by_side() {
        let steps = [
            step(&[0], &[1], 1.0),        // 0: h
            step(&[1, 9], &[2], 1.0),     // 1: g
            step(&[2], &[3], 0.4),        // 2: sum(g)
            step(&[2, 8], &[4], 9.0),     // 3: g·Wᵀ
            step(&[4], &[5], 0.4),        // 4: sum(g·Wᵀ)
            step(&[1, 2], &[6], 9.0),     // 5: hᵀ·g
            step(&[3, 5, 6], &[7], 0.01), // 6: tiny
        ];
        let s = schedule(&steps);
        assert_valid(&steps, &s);
        assert_eq!(s.order, vec![0, 1, 2, 3, 5, 4, 6]);
        assert_eq!(
            s.with_next,
            vec![false, false, false, true, false, false, false]
        );
    }

    #[test]
    fn small_and_fixed_steps_are_never_moved_or_paired() {
        let mut fixed = step(&[0], &[2], 5.0);
        fixed.movable = false;
        let steps = [
            step(&[0], &[1], 0.001),
            step(&[0], &[3], 0.001),
            fixed,
            step(&[0], &[4], 5.0),
        ];
        let s = schedule(&steps);
        assert_valid(&steps, &s);
        assert_eq!(s.order, vec![0, 1, 2, 3]);
        assert_eq!(s.with_next, vec![false; 4]);
    }

    #[test]
    fn unlike_costs_are_not_paired() {
        let steps = [step(&[0], &[1], 10.0), step(&[0], &[2], 0.1)];
        let s = schedule(&steps);
        assert_eq!(s.with_next, vec![false, false]);
        let steps = [step(&[0], &[1], 10.0), step(&[0], &[2], 3.0)];
        assert_eq!(schedule(&steps).with_next, vec![true, false]);
    }

    /// Random data-flow graphs: every schedule is a valid order with valid pairs.
    #[test]
    fn random_programs_get_valid_schedules() {
        let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..300 {
            let n = (next() % 40) as usize + 1;
            let mut steps = Vec::new();
            for i in 0..n {
                // Slot 0 is the input; step i writes slot i + 1 and reads earlier slots.
                let reads = (0..(next() % 3 + 1))
                    .map(|_| (next() % (i as u64 + 1)) as usize)
                    .collect::<Vec<_>>();
                let mut st = step(&reads, &[i + 1], (next() % 1000) as f64 / 100.0);
                st.movable = !next().is_multiple_of(5);
                steps.push(st);
            }
            assert_valid(&steps, &schedule(&steps));
        }
    }
}
