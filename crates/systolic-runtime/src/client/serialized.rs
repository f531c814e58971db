//! Executables compiled ahead of time and carried to another process: the bytes of a
//! [`SerializedExecutable`] (what JAX's `serialize_executable` gives for a compiled function).
//!
//! They hold what the disk cache holds for a program — the module after the passes, which a
//! loading process only parses, verifies and lowers — with a header that names the build
//! ([`BUILD_ID`]), the meaning of the optimised body ([`FORMAT_VERSION`]), the kind and number
//! of devices the program runs on, and the caller's own metadata (the front end's argument and
//! result trees). Loading checks each against the loading process and says which one differs:
//! an optimised module is only meaningful to the build whose passes and kernels made it.
//!
//! ```
//! use systolic_runtime::{Client, CompileOptions, SerializedExecutable};
//! use systolic_ir::Tensor;
//! let module = systolic_ir::text::parse_module(
//!     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
//!        %0 = stablehlo.add %a, %a : tensor<2xf32>
//!        return %0 : tensor<2xf32>
//!      }",
//!     "double",
//! ).unwrap();
//! let client = Client::cpu();
//! let compiled = client.compile_serializable(&module, &CompileOptions::no_disk_cache()).unwrap();
//! let bytes = compiled.serialize(&[("note", "any text\nof the caller's")]);
//! // In another process (here: the same one), with the same build:
//! let (loaded, metadata) = client.deserialize_executable(&bytes, client.devices()[0]).unwrap();
//! assert_eq!(metadata, vec![("note".to_string(), "any text\nof the caller's".to_string())]);
//! let x = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![1.0, 2.5]), loaded.executable().device()).unwrap();
//! let y = loaded.executable().execute(&[&x]).unwrap();
//! assert_eq!(y[0].to_tensor().unwrap(), Tensor::from_f32(vec![2], vec![2.0, 5.0]));
//! ```

use super::Client;
use crate::cache_key::{BUILD_ID, FORMAT_VERSION};
use crate::device::Device;
use crate::error::{Result, RuntimeError};
use crate::executable::{CompileSource, Executable};
use crate::fingerprint::Fingerprint;
use crate::options::CompileOptions;
use std::sync::Arc;
use systolic_ir::Module;

/// The first line's word.
const MAGIC: &str = "systolic-executable";
/// The version of this layout (the header's lines), apart from the body's
/// [`FORMAT_VERSION`].
pub const EXECUTABLE_FORMAT: u32 = 1;

/// A compiled program together with the optimised module it was lowered from, so that it can
/// be written out ([`SerializedExecutable::serialize`]) and loaded by another process of the
/// same build ([`Client::deserialize_executable`]) without running the passes again.
#[derive(Clone, Debug)]
pub struct SerializedExecutable {
    executable: Executable,
    optimized: Arc<str>,
}

impl SerializedExecutable {
    /// The executable, to run here.
    pub fn executable(&self) -> &Executable {
        &self.executable
    }

    /// The optimised module's text (the body of the serialised form).
    pub fn optimized_text(&self) -> &str {
        &self.optimized
    }

    /// The bytes another process loads with [`Client::deserialize_executable`]: the header
    /// (format, build, devices, entry, `metadata` as given: keys without spaces or newlines,
    /// any values), then the optimised module. Deterministic: the same program and metadata
    /// give the same bytes.
    pub fn serialize(&self, metadata: &[(&str, &str)]) -> Vec<u8> {
        let device = self.executable.device();
        let body: &str = &self.optimized;
        let mut head = format!(
            "{MAGIC} {EXECUTABLE_FORMAT}\nbuild {BUILD_ID}\nbody-format {FORMAT_VERSION}\n\
             runtime {}\ndevice-kind {}\ndevices 1\nentry {}\n",
            env!("CARGO_PKG_VERSION"),
            device_kind(device),
            self.executable.entry(),
        );
        for (key, value) in metadata {
            head.push_str(&format!("meta {} {}\n", escape(key), escape(value)));
        }
        head.push_str(&format!(
            "body-bytes {}\nbody-fingerprint {}\n\n",
            body.len(),
            Fingerprint::new().field(&head).bytes(body.as_bytes()).hex()
        ));
        let mut out = head.into_bytes();
        out.extend_from_slice(body.as_bytes());
        out
    }
}

/// What a header names the device by: `cpu`, or `tpu:<chip>`.
fn device_kind(device: Device) -> String {
    match device.chip() {
        Some(chip) => format!("tpu:{}", chip.name),
        None => device.kind().name().to_string(),
    }
}

/// Metadata text on one line: `\` → `\\`, newline → `\n`, space → `\s`.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace(' ', "\\s")
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some('s') => out.push(' '),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

fn refuse(why: String) -> RuntimeError {
    RuntimeError::Compile(format!("cannot load the serialized executable: {why}"))
}

impl Client {
    /// Compiles `module` for `options.device` (default: the first device) keeping the
    /// optimised module, so that the result can be serialised: JAX's
    /// `jit(f).lower(x).compile()` followed by `serialize_executable`. The passes always run
    /// (the caches are not consulted). Only CPU devices for now: a simulated TPU's executable
    /// also carries its modelled cost, which is not serialised yet.
    pub fn compile_serializable(
        &self,
        module: &Module,
        options: &CompileOptions,
    ) -> Result<SerializedExecutable> {
        let device = options.device.unwrap_or(self.devices()[0]);
        self.check_device(device)?;
        if device.chip().is_some() {
            return Err(RuntimeError::Compile(format!(
                "ahead-of-time serialisation is for CPU devices; {device} is a simulated TPU \
                 (its modelled cost is not serialised yet)"
            )));
        }
        if systolic_ir::host_callback::module_has_host_callback(module) {
            return Err(RuntimeError::Compile(format!(
                "@{}: a program holding a host callback (debug::print, debug::callback) cannot \
                 be serialised: its callbacks are closures of this process",
                options.cpu.entry
            )));
        }
        let _span = systolic_trace::Span::lazy(systolic_trace::cat::COMPILE, || {
            format!("compile @{} (ahead of time)", options.cpu.entry)
        })
        .with("cache", "miss");
        let (compiled, optimized) = self.compile_now(module, options)?;
        Ok(SerializedExecutable {
            executable: self.executable(device, Arc::new(compiled), CompileSource::Compiled),
            optimized: systolic_ir::text::print_module(&optimized).into(),
        })
    }

    /// Loads bytes written by [`SerializedExecutable::serialize`] as an executable on `device`,
    /// with the metadata they carry. The bytes must come from this build (the same
    /// [`BUILD_ID`]), in this layout and body format, for the kind of `device`, and name no
    /// more devices than this client has; each mismatch is an error saying what was expected
    /// and found. Only the lowering runs (no passes).
    pub fn deserialize_executable(
        &self,
        bytes: &[u8],
        device: Device,
    ) -> Result<(SerializedExecutable, Vec<(String, String)>)> {
        self.check_device(device)?;
        if !bytes.starts_with(MAGIC.as_bytes()) {
            return Err(refuse(format!(
                "it is not a serialized executable (it does not start with '{MAGIC}')"
            )));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| refuse("it is not a serialized executable (not UTF-8 text)".into()))?;
        let (head, body) = text
            .split_once("\n\n")
            .ok_or_else(|| refuse("it has no header (truncated, or not an executable)".into()))?;
        let header = Header::parse(head)?;
        header.check(self, device)?;
        let mut signed = String::new();
        for line in head.lines() {
            if line.starts_with("body-bytes ") {
                break;
            }
            signed.push_str(line);
            signed.push('\n');
        }
        if body.len() != header.body_bytes {
            return Err(refuse(format!(
                "its body has {} bytes, the header says {} (truncated or corrupt)",
                body.len(),
                header.body_bytes
            )));
        }
        if Fingerprint::new()
            .field(&signed)
            .bytes(body.as_bytes())
            .hex()
            != header.fingerprint
        {
            return Err(refuse(
                "its body or header does not match its fingerprint (corrupt)".into(),
            ));
        }
        let module = systolic_ir::text::parse_module(body, "serialized executable")
            .map_err(|d| refuse(format!("its module does not parse: {d}")))?;
        systolic_ir::verify::verify_module(&module).map_err(|diags| {
            refuse(match diags.first() {
                Some(d) => format!("its module does not verify: {d}"),
                None => "its module does not verify".into(),
            })
        })?;
        let compiled = crate::executable::lower(&module, &header.entry)?;
        let loaded = SerializedExecutable {
            executable: self.executable(device, Arc::new(compiled), CompileSource::DiskCache),
            optimized: body.into(),
        };
        Ok((loaded, header.metadata))
    }
}

/// A serialised executable's header, parsed.
struct Header {
    format: String,
    build: String,
    body_format: String,
    kind: String,
    devices: usize,
    entry: String,
    metadata: Vec<(String, String)>,
    body_bytes: usize,
    fingerprint: String,
}

impl Header {
    fn parse(head: &str) -> Result<Header> {
        let mut lines = head.lines();
        let format = lines
            .next()
            .and_then(|l| l.strip_prefix(MAGIC))
            .and_then(|l| l.strip_prefix(' '))
            .ok_or_else(|| {
                refuse(format!(
                    "it is not a serialized executable (no '{MAGIC}' line)"
                ))
            })?
            .to_string();
        let mut field = |name: &str| -> Result<String> {
            lines
                .next()
                .and_then(|l| l.strip_prefix(name))
                .and_then(|v| v.strip_prefix(' '))
                .map(str::to_string)
                .ok_or_else(|| refuse(format!("its header lacks '{name}'")))
        };
        let build = field("build")?;
        let body_format = field("body-format")?;
        let _runtime = field("runtime")?;
        let kind = field("device-kind")?;
        let devices = field("devices")?;
        let entry = field("entry")?;
        let mut metadata = vec![];
        let body_bytes = loop {
            let line = lines
                .next()
                .ok_or_else(|| refuse("its header lacks 'body-bytes'".into()))?;
            if let Some(n) = line.strip_prefix("body-bytes ") {
                break n.to_string();
            }
            let (key, value) = line
                .strip_prefix("meta ")
                .and_then(|kv| kv.split_once(' '))
                .ok_or_else(|| refuse(format!("its header has a line it cannot read: '{line}'")))?;
            metadata.push((unescape(key), unescape(value)));
        };
        let fingerprint = lines
            .next()
            .and_then(|l| l.strip_prefix("body-fingerprint "))
            .ok_or_else(|| refuse("its header lacks 'body-fingerprint'".into()))?
            .to_string();
        let number = |what: &str, v: &str| {
            v.parse::<usize>()
                .map_err(|_| refuse(format!("its {what} '{v}' is not a number")))
        };
        Ok(Header {
            format,
            build,
            body_format,
            kind,
            devices: number("device count", &devices)?,
            entry,
            metadata,
            body_bytes: number("body length", &body_bytes)?,
            fingerprint,
        })
    }

    /// Whether this build can run the body on `device` of `client`.
    fn check(&self, client: &Client, device: Device) -> Result<()> {
        if self.format != EXECUTABLE_FORMAT.to_string() {
            return Err(refuse(format!(
                "it was written in executable format {}, this runtime reads format \
                 {EXECUTABLE_FORMAT}",
                self.format
            )));
        }
        if self.build != BUILD_ID {
            return Err(refuse(format!(
                "it was compiled by another build of Systolic (build {}; this is build \
                 {BUILD_ID}): its optimised program is only meaningful to the build that made \
                 it; compile it again with this one",
                self.build
            )));
        }
        if self.body_format != FORMAT_VERSION.to_string() {
            return Err(refuse(format!(
                "its program is in body format {}, this runtime reads {FORMAT_VERSION}",
                self.body_format
            )));
        }
        let here = device_kind(device);
        if self.kind != here {
            return Err(refuse(format!(
                "it was compiled for {} devices, and {device} is a {here} device",
                self.kind
            )));
        }
        let available = client
            .devices()
            .iter()
            .filter(|d| device_kind(**d) == here)
            .count();
        if self.devices > available {
            return Err(refuse(format!(
                "it runs on {} {} devices, and this client has {available}",
                self.devices, self.kind
            )));
        }
        if self.devices != 1 {
            return Err(refuse(format!(
                "it runs on {} devices; only single-device executables load yet",
                self.devices
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::Tensor;

    fn square() -> Module {
        systolic_ir::text::parse_module(
            "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
               %0 = stablehlo.multiply %a, %a : tensor<3xf32>
               return %0 : tensor<3xf32>
             }",
            "square",
        )
        .unwrap()
    }

    fn serialized(client: &Client) -> Vec<u8> {
        client
            .compile_serializable(&square(), &CompileOptions::no_disk_cache())
            .unwrap()
            .serialize(&[("args", "(*,[*]) with spaces"), ("empty", "")])
    }

    fn refusal(client: &Client, bytes: &[u8], device: Device) -> String {
        match client.deserialize_executable(bytes, device) {
            Ok(_) => panic!("loading succeeded"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn loads_and_runs_without_the_passes() {
        let client = Client::cpu();
        let bytes = serialized(&client);
        assert_eq!(bytes, serialized(&client), "deterministic");
        let before = client.cache_stats().compiles;
        let (loaded, metadata) = client
            .deserialize_executable(&bytes, client.devices()[0])
            .unwrap();
        assert_eq!(client.cache_stats().compiles, before, "no passes ran");
        assert_eq!(
            metadata,
            vec![
                ("args".to_string(), "(*,[*]) with spaces".to_string()),
                ("empty".to_string(), String::new())
            ]
        );
        let x = client
            .buffer_from_tensor(
                Tensor::from_f32(vec![3], vec![1.0, -2.0, 3.0]),
                client.devices()[0],
            )
            .unwrap();
        let y = loaded.executable().execute(&[&x]).unwrap();
        assert_eq!(
            y[0].to_tensor().unwrap(),
            Tensor::from_f32(vec![3], vec![1.0, 4.0, 9.0])
        );
    }

    #[test]
    fn another_build_format_device_kind_or_count_is_refused_by_name() {
        let client = Client::cpu();
        let bytes = serialized(&client);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let cpu = client.devices()[0];
        let edit = |from: &str, to: &str| {
            assert!(text.contains(from), "{from}");
            text.replacen(from, to, 1).into_bytes()
        };
        let e = refusal(
            &client,
            &edit(&format!("build {BUILD_ID}"), "build 0123"),
            cpu,
        );
        assert!(e.contains("another build of Systolic (build 0123"), "{e}");
        let e = refusal(
            &client,
            &edit("systolic-executable 1", "systolic-executable 9"),
            cpu,
        );
        assert!(e.contains("executable format 9"), "{e}");
        let e = refusal(
            &client,
            &edit(&format!("body-format {FORMAT_VERSION}"), "body-format 99"),
            cpu,
        );
        assert!(e.contains("body format 99"), "{e}");
        let e = refusal(&client, &edit("devices 1", "devices 4"), cpu);
        assert!(
            e.contains("runs on 4 cpu devices, and this client has 1"),
            "{e}"
        );
        let e = refusal(
            &client,
            &edit("device-kind cpu", "device-kind tpu:v5e"),
            cpu,
        );
        assert!(
            e.contains("compiled for tpu:v5e devices, and cpu:0 is a cpu device"),
            "{e}"
        );
        // Loaded onto a simulated TPU of a client that has one.
        let tpus = Client::with_tpus(&[("v5e", 1)]).unwrap();
        let tpu = tpus.device("tpu:v5e:0").unwrap();
        let e = refusal(&tpus, &bytes, tpu);
        assert!(
            e.contains("compiled for cpu devices, and tpu:v5e:0 is a tpu:v5e device"),
            "{e}"
        );
        // Damage: a changed body, a changed metadata value, a truncation.
        let e = refusal(
            &client,
            &edit("stablehlo.multiply", "stablehlo.add     "),
            cpu,
        );
        assert!(e.contains("corrupt"), "{e}");
        let e = refusal(&client, &edit("with\\sspaces", "with\\sspaceX"), cpu);
        assert!(e.contains("corrupt"), "{e}");
        let e = refusal(&client, &bytes[..bytes.len() - 10], cpu);
        assert!(e.contains("truncated"), "{e}");
        let e = refusal(&client, b"PK\x03\x04 not this", cpu);
        assert!(e.contains("not a serialized executable"), "{e}");
    }

    #[test]
    fn simulated_tpus_are_refused_when_compiling() {
        let tpus = Client::with_tpus(&[("v5e", 1)]).unwrap();
        let options = CompileOptions {
            device: Some(tpus.device("tpu:v5e:0").unwrap()),
            ..CompileOptions::no_disk_cache()
        };
        let e = tpus.compile_serializable(&square(), &options).unwrap_err();
        assert!(e.to_string().contains("simulated TPU"), "{e}");
    }

    #[test]
    fn metadata_escapes_round_trip() {
        for s in ["", "a b", "x\\ny", "line\nbreak", "\\", "tail\\", " \\s "] {
            assert_eq!(unescape(&escape(s)), s, "{s:?}");
            assert!(!escape(s).contains([' ', '\n']));
        }
    }
}
