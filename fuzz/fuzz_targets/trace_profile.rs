//! Fuzz target: what `systolic profile TRACE.json` does with a file it did not write. Any
//! text that `systolic_trace::Trace::from_json` accepts is summarised (`summary_text`) and
//! drawn (`svg`) without panicking, and the picture holds no NaN or infinite coordinate.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(trace) = systolic_trace::Trace::from_json(text) else {
        return;
    };
    let _ = trace.summary_text();
    let svg = trace.svg();
    assert!(
        !svg.contains("NaN") && !svg.contains("inf"),
        "non-finite coordinate in the SVG of\n{text}\n{svg}"
    );
});
