//! Chrome trace-event JSON (`{"traceEvents": [...]}`), plain or gzipped, written atomically.

use crate::event::{Event, Phase};
use crate::Trace;
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Why a trace could not be written or read.
#[derive(Debug)]
pub struct TraceIoError(pub String);

impl std::fmt::Display for TraceIoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceIoError {}

fn event_json(e: &Event) -> Value {
    let mut o = Map::new();
    o.insert("ph".into(), e.phase.letter().into());
    o.insert("name".into(), e.name.clone().into());
    if !e.cat.is_empty() {
        o.insert("cat".into(), e.cat.clone().into());
    }
    o.insert("pid".into(), e.pid.into());
    o.insert("tid".into(), e.tid.into());
    if e.phase != Phase::Metadata {
        o.insert("ts".into(), round_us(e.ts).into());
    }
    if e.phase == Phase::Complete {
        o.insert("dur".into(), round_us(e.dur).into());
    }
    let mut args = e.args.clone();
    if e.phase == Phase::Instant {
        // The instant's scope is a field of the event, not an argument.
        if let Some(s) = args.remove("s") {
            o.insert("s".into(), s);
        }
    }
    if !args.is_empty() {
        o.insert("args".into(), Value::Object(args));
    }
    Value::Object(o)
}

/// Nanosecond resolution is all a trace viewer shows; shorter numbers keep files small.
fn round_us(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Trace {
    /// The trace as JSON text: one event a line, so diffs and `grep` work.
    pub fn to_json(&self) -> String {
        let mut s = String::from("{\"traceEvents\":[\n");
        for (i, e) in self.events.iter().enumerate() {
            if i > 0 {
                s.push_str(",\n");
            }
            s.push_str(&event_json(e).to_string());
        }
        s.push_str("\n],\"displayTimeUnit\":\"ms\"}\n");
        s
    }

    /// Parses trace-event JSON (the object form, or a bare array of events). Events of phases
    /// Systolic does not use are skipped.
    pub fn from_json(text: &str) -> Result<Trace, TraceIoError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| TraceIoError(format!("not trace-event JSON: {e}")))?;
        let list = match &v {
            Value::Array(a) => a,
            Value::Object(o) => o
                .get("traceEvents")
                .and_then(Value::as_array)
                .ok_or_else(|| TraceIoError("no `traceEvents` array".into()))?,
            _ => return Err(TraceIoError("expected an object or an array".into())),
        };
        let mut events = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let bad = |what: &str| TraceIoError(format!("event {i}: {what}"));
            let o = item.as_object().ok_or_else(|| bad("not an object"))?;
            let ph = o
                .get("ph")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("no `ph`"))?;
            let Some(phase) = Phase::from_letter(ph) else {
                continue;
            };
            // A field that is there must be a number: `"ts": "x"` is not a start at 0.
            let num = |k: &str| -> Result<Option<f64>, TraceIoError> {
                match o.get(k) {
                    None => Ok(None),
                    Some(v) => v
                        .as_f64()
                        .map(Some)
                        .ok_or_else(|| bad(&format!("`{k}` is not a number"))),
                }
            };
            let mut args = o
                .get("args")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if let Some(s) = o.get("s") {
                args.insert("s".into(), s.clone());
            }
            let ts = num("ts")?.unwrap_or(0.0);
            let dur = num("dur")?.unwrap_or(0.0);
            if !ts.is_finite() || !dur.is_finite() || dur < 0.0 || !(ts + dur).is_finite() {
                return Err(bad("`ts`/`dur` not finite and non-negative"));
            }
            let pid = num("pid")?.unwrap_or(0.0);
            let tid = num("tid")?.unwrap_or(0.0);
            events.push(Event {
                phase,
                name: o
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                cat: o
                    .get("cat")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                ts,
                dur,
                pid: pid as u32,
                tid: tid as u64,
                args,
            });
        }
        Ok(Trace { events })
    }

    /// Writes the trace to `path` (gzipped when it ends in `.gz`) through a temporary file in
    /// the same directory renamed over it, so a reader never sees half a trace.
    pub fn write(&self, path: &Path) -> Result<(), TraceIoError> {
        let fail =
            |e: std::io::Error| TraceIoError(format!("cannot write {}: {e}", path.display()));
        let json = self.to_json();
        let bytes = if path.extension().is_some_and(|e| e == "gz") {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(json.as_bytes()).map_err(fail)?;
            gz.finish().map_err(fail)?
        } else {
            json.into_bytes()
        };
        write_atomically(path, &bytes).map_err(fail)
    }

    /// Reads a trace written by [`Trace::write`] (or any trace-event file; `.gz` by its magic).
    pub fn read(path: &Path) -> Result<Trace, TraceIoError> {
        let fail = |e: std::io::Error| TraceIoError(format!("cannot read {}: {e}", path.display()));
        let raw = std::fs::read(path).map_err(fail)?;
        let text = if raw.starts_with(&[0x1f, 0x8b]) {
            let mut s = String::new();
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_string(&mut s)
                .map_err(fail)?;
            s
        } else {
            String::from_utf8(raw)
                .map_err(|_| TraceIoError(format!("{} is not UTF-8 text", path.display())))?
        };
        Trace::from_json(&text).map_err(|e| TraceIoError(format!("{}: {e}", path.display())))
    }
}

/// Writes `bytes` to `path` via `path.tmp-<pid>` and a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = PathBuf::from(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    tmp.set_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::HOST_PID;

    /// Found by the `trace_profile` fuzz target: a span ending past f64's range drew an
    /// "inf s" axis, and a `ts` that is not a number was read as 0.
    #[test]
    fn hostile_times_are_refused_naming_the_event() {
        let e = Trace::from_json(r#"[{"ph":"X","ts":1e308,"dur":1e308}]"#).unwrap_err();
        assert!(e.0.contains("event 0") && e.0.contains("finite"), "{}", e.0);
        let e = Trace::from_json(r#"[{"ph":"X","ts":1},{"ph":"X","ts":"x"}]"#).unwrap_err();
        assert!(e.0.contains("event 1: `ts` is not a number"), "{}", e.0);
        let e = Trace::from_json(r#"[{"ph":"X","ts":1,"pid":"p"}]"#).unwrap_err();
        assert!(e.0.contains("`pid` is not a number"), "{}", e.0);
        assert!(Trace::from_json(r#"[{"ph":"X","ts":1,"dur":2,"pid":3}]"#).is_ok());
    }

    #[test]
    fn json_and_gzip_round_trip_through_an_atomic_write() {
        let mut args = Map::new();
        args.insert("bytes".into(), 12.into());
        let trace = Trace {
            events: vec![Event {
                phase: Phase::Complete,
                name: "h2d".into(),
                cat: crate::cat::TRANSFER.into(),
                ts: 1.5,
                dur: 2.25,
                pid: HOST_PID,
                tid: 3,
                args,
            }],
        };
        let dir = std::env::temp_dir().join(format!("systolic-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["t.json", "t.json.gz"] {
            let path = dir.join(name);
            trace.write(&path).unwrap();
            assert_eq!(Trace::read(&path).unwrap(), trace, "{name}");
        }
        let leftovers = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".tmp")
            })
            .count();
        assert_eq!(leftovers, 0);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(Trace::from_json("{\"traceEvents\": 3}").is_err());
    }
}
