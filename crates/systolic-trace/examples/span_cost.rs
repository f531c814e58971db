//! What a span site costs, off and on: `cargo run -p systolic-trace --example span_cost`.
//! Multiply by the spans a step records (about three per kernel: the kernel, its result's
//! alloc and free) to bound tracing's share of a step.

use std::time::Instant;
use systolic_trace::{cat, Span};

fn per_span_ns(n: u32) -> f64 {
    let start = Instant::now();
    for i in 0..n {
        let mut s = Span::lazy(cat::KERNEL, || format!("fusion.{} (loop) [add,exp]", i % 8));
        if s.is_recording() {
            s.arg("op", "systolic.fusion");
            s.arg("results", "tensor<128x256xf32>");
        }
    }
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

fn main() {
    let n = 200_000;
    let off = per_span_ns(n);
    systolic_trace::start().expect("no other session");
    let on = per_span_ns(n);
    let events = systolic_trace::Trace::stop().expect("started").events.len();
    println!("per kernel span: off {off:.1} ns, on {on:.0} ns ({events} events recorded)");
}
