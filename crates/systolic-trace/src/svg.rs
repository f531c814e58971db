//! A picture of a trace: one band per track (spans stacked by nesting, coloured by category)
//! and, below, live bytes per process over the same time axis. Hand-written SVG text, small
//! enough to open in any browser.

use crate::cat;
use crate::event::{Event, Phase};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const WIDTH: f64 = 1200.0;
const LABEL: f64 = 160.0;
const ROW: f64 = 12.0;
const PLOT: f64 = 120.0;
/// Spans narrower than this many pixels are not drawn (a 10 000-kernel trace stays small).
const MIN_PX: f64 = 0.3;

fn colour(category: &str) -> &'static str {
    match category {
        cat::TRACE => "#8e6fd1",
        cat::COMPILE | cat::PASS | cat::LOWER => "#d98c2b",
        cat::EXECUTE | cat::PROGRAM => "#9db7d5",
        cat::KERNEL => "#3b78c2",
        cat::COLLECTIVE => "#c2413b",
        cat::TRANSFER => "#3ba55c",
        cat::WAIT => "#bbbbbb",
        _ => "#777777",
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG text of `events` (names from their metadata).
pub fn render(events: &[Event]) -> String {
    let mut names: BTreeMap<(u32, u64), String> = BTreeMap::new();
    let mut procs: BTreeMap<u32, String> = BTreeMap::new();
    let mut tracks: BTreeMap<(u32, u64), Vec<&Event>> = BTreeMap::new();
    let mut counters: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    for e in events {
        match e.phase {
            Phase::Metadata => {
                let n = e.arg_str("name").unwrap_or("").to_string();
                if e.name == "process_name" {
                    procs.insert(e.pid, n);
                } else {
                    names.insert((e.pid, e.tid), n);
                }
            }
            Phase::Complete => {
                tracks.entry((e.pid, e.tid)).or_default().push(e);
                t0 = t0.min(e.ts);
                t1 = t1.max(e.end());
            }
            Phase::Counter => {
                let v = e.args.get("bytes").and_then(|v| v.as_f64()).unwrap_or(0.0);
                counters.entry(e.pid).or_default().push((e.ts, v));
                t0 = t0.min(e.ts);
                t1 = t1.max(e.ts);
            }
            Phase::Instant => {}
        }
    }
    if !t0.is_finite() {
        (t0, t1) = (0.0, 1.0);
    }
    let scale = (WIDTH - LABEL - 10.0) / (t1 - t0).max(1e-3);
    let x = |t: f64| LABEL + (t - t0) * scale;
    let mut body = String::new();
    let mut y = 24.0;
    for ((pid, tid), mut spans) in tracks {
        spans.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
        let mut stack: Vec<f64> = vec![];
        let mut depth_max = 0;
        let mut rects = String::new();
        for e in spans {
            while stack.last().is_some_and(|&end| e.ts >= end) {
                stack.pop();
            }
            let depth = stack.len();
            stack.push(e.end());
            depth_max = depth_max.max(depth);
            let w = e.dur * scale;
            if w < MIN_PX {
                continue;
            }
            let _ = writeln!(
                rects,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{}" fill="{}"><title>{} ({}, {})</title></rect>"#,
                x(e.ts),
                y + depth as f64 * ROW,
                w.max(0.5),
                ROW - 1.0,
                colour(&e.cat),
                escape(&e.name),
                escape(&e.cat),
                crate::summary::fmt_us(e.dur)
            );
        }
        let label = format!(
            "{} / {}",
            procs.get(&pid).map_or("?", String::as_str),
            names
                .get(&(pid, tid))
                .map_or_else(|| tid.to_string(), Clone::clone)
        );
        let _ = writeln!(
            body,
            r#"<text x="4" y="{:.1}" font-size="10">{}</text>"#,
            y + 9.0,
            escape(&label)
        );
        body.push_str(&rects);
        y += (depth_max + 1) as f64 * ROW + 6.0;
    }
    // Memory: one step line per process, scaled to the largest peak.
    let peak = counters
        .values()
        .flatten()
        .map(|p| p.1)
        .fold(0.0f64, f64::max);
    if peak > 0.0 {
        y += 10.0;
        let base = y + PLOT;
        let _ = writeln!(
            body,
            r#"<text x="4" y="{:.1}" font-size="10">live bytes (peak {})</text>"#,
            y + 9.0,
            crate::summary::fmt_bytes(peak as u64)
        );
        let _ = writeln!(
            body,
            r##"<line x1="{LABEL}" y1="{base:.1}" x2="{WIDTH}" y2="{base:.1}" stroke="#999"/>"##
        );
        let palette = ["#3b78c2", "#c2413b", "#3ba55c", "#d98c2b", "#8e6fd1"];
        for (i, (pid, points)) in counters.iter_mut().enumerate() {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut d = format!("M{:.1},{base:.1}", x(points[0].0));
            let mut last = base;
            for &(t, v) in points.iter() {
                let py = base - v / peak * PLOT;
                let _ = write!(d, " L{:.1},{last:.1} L{:.1},{py:.1}", x(t), x(t));
                last = py;
            }
            let c = palette[i % palette.len()];
            let _ = writeln!(
                body,
                r#"<path d="{d}" fill="none" stroke="{c}"><title>{}</title></path>"#,
                escape(procs.get(pid).map_or("?", String::as_str))
            );
        }
        y = base + 10.0;
    }
    let _ = writeln!(
        body,
        r#"<text x="{LABEL}" y="{:.1}" font-size="10">0</text><text x="{:.1}" y="{:.1}" font-size="10" text-anchor="end">{}</text>"#,
        y + 12.0,
        WIDTH - 10.0,
        y + 12.0,
        crate::summary::fmt_us(t1 - t0)
    );
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{:.0}\" font-family=\"sans-serif\">\n\
         <text x=\"4\" y=\"14\" font-size=\"12\">Systolic trace: spans by track (kernels blue, compile orange, collectives red, transfers green), then live bytes</text>\n{body}</svg>\n",
        y + 20.0
    )
}
