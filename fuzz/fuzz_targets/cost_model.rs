//! Fuzz target: the TPU cost model on any module that parses and verifies. Simulating it on a
//! chip (as written, and after the TPU compile pipeline, as `systolic simulate` does) never
//! panics, and a report it returns is sane: every time, FLOP and byte count finite and not
//! negative, MFU at most 100%, the peak within HBM whenever HBM is enforced. Hostile shapes (2^62 elements, products of 3·10^9
//! squared) must give an error, never a wrapped count.

#![no_main]

use libfuzzer_sys::fuzz_target;
use systolic_tpu::{all_chips, simulate, SimOptions, SimReport};

fuzz_target!(|data: &[u8]| {
    // The chip and the HBM check follow from the bytes, so the corpus stays plain MLIR text.
    let pick = data.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = systolic_ir::text::parse_module(text, "fuzz.mlir") else {
        return;
    };
    if systolic_ir::verify::verify_module(&module).is_err() {
        return;
    }
    let chips = all_chips();
    let chip = &chips[(pick & 0x7f) as usize % chips.len()];
    let options = SimOptions {
        enforce_hbm: pick & 0x80 != 0,
        ..SimOptions::default()
    };
    if let Ok(report) = simulate(&module, chip, &options) {
        check(&report, options.enforce_hbm, text);
    }
    if let Ok(compiled) = systolic_tpu::compile::compile(&module, Default::default()) {
        if let Ok(report) = simulate(&compiled, chip, &options) {
            check(&report, options.enforce_hbm, text);
        }
    }
});

fn check(r: &SimReport, enforce_hbm: bool, text: &str) {
    let sane = |what: &str, v: f64| {
        assert!(
            v.is_finite() && v >= 0.0,
            "{what} = {v} on {}\n{text}",
            r.chip
        );
    };
    sane("time_s", r.time_s);
    sane("flops", r.flops);
    sane("hbm_bytes", r.hbm_bytes);
    sane("achieved_flops_per_s", r.achieved_flops_per_s);
    sane("mfu", r.mfu);
    assert!(
        r.mfu <= 1.0 + 1e-9,
        "MFU {} > 100% on {}\n{text}",
        r.mfu,
        r.chip
    );
    if let (true, Some(cap)) = (enforce_hbm, r.hbm_capacity_bytes) {
        assert!(
            r.peak_hbm_bytes <= cap,
            "peak {} B over the {cap} B of HBM passed the check\n{text}",
            r.peak_hbm_bytes
        );
    }
    for k in &r.ops {
        for (what, v) in [
            ("flops", k.flops),
            ("bytes", k.bytes),
            ("mxu_time_s", k.mxu_time_s),
            ("vpu_time_s", k.vpu_time_s),
            ("hbm_time_s", k.hbm_time_s),
            ("time_s", k.time_s),
            ("count", k.count),
        ] {
            assert!(
                v.is_finite() && v >= 0.0,
                "kernel {} {what} = {v}\n{text}",
                k.name
            );
        }
        if let Some(u) = k.mxu_utilization {
            assert!(
                u.is_finite() && (0.0..=1.0 + 1e-9).contains(&u),
                "kernel {} MXU utilisation {u}\n{text}",
                k.name
            );
        }
    }
}
