//! SPMD executables (`Client::compile_spmd`) on host CPU devices and on the chips of simulated
//! TPU slices: results equal the interpreter's `run_programs` bit for bit, the compile caches
//! (memory and disk) answer a second compile, arguments are checked per device, and a slice's
//! chips know their coordinates and advance their clocks by the modelled time.

use systolic_cpu::CpuBuffer;
use systolic_interp::{run_programs, Value};
use systolic_ir::text::parse_module;
use systolic_ir::{Module, Tensor};
use systolic_runtime::{
    Buffer, Client, CompileOptions, CompileSource, Device, RuntimeError, SpmdExecutable,
};

const SUM: &str = "({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })";

/// On `n` partitions: the sum over every partition of `x * y` (all_reduce), every partition's
/// `x` gathered (all_gather), and a function of both with this partition's id.
fn reduce_and_gather(n: usize) -> Module {
    reduce_and_gather_of(n, 3)
}

/// As [`reduce_and_gather`], on vectors of `len` elements.
fn reduce_and_gather_of(n: usize, len: usize) -> Module {
    let ids: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let ids = ids.join(", ");
    let text = format!(
        r#"module @spmd attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<{len}xf32>, %y: tensor<{len}xf32>) -> (tensor<{len}xf32>, tensor<{g}xf32>, tensor<{len}xf32>) {{
    %p = stablehlo.multiply %x, %y : tensor<{len}xf32>
    %sum = "stablehlo.all_reduce"(%p) {SUM} {{replica_groups = dense<[[{ids}]]> : tensor<1x{n}xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<{len}xf32>) -> tensor<{len}xf32>
    %all = "stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, replica_groups = dense<[[{ids}]]> : tensor<1x{n}xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids}} : (tensor<{len}xf32>) -> tensor<{g}xf32>
    %id = stablehlo.partition_id : tensor<ui32>
    %idf = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %idf, dims = [] : (tensor<f32>) -> tensor<{len}xf32>
    %t = stablehlo.tanh %sum : tensor<{len}xf32>
    %r = stablehlo.add %t, %b : tensor<{len}xf32>
    return %sum, %all, %r : tensor<{len}xf32>, tensor<{g}xf32>, tensor<{len}xf32>
  }}
}}"#,
        g = len * n
    );
    parse_module(&text, "spmd.mlir").unwrap()
}

/// Process `d`'s two arguments: values with full f32 mantissas, different on every process.
fn inputs(n: usize) -> Vec<Vec<Tensor>> {
    inputs_of(n, 3)
}

/// As [`inputs`], vectors of `len` elements.
fn inputs_of(n: usize, len: usize) -> Vec<Vec<Tensor>> {
    (0..n)
        .map(|d| {
            let v = |k: usize| {
                (0..len)
                    .map(|i| ((d * 7 + i * 3 + k) as f32 * 0.37).sin() / 3.0)
                    .collect()
            };
            vec![
                Tensor::from_f32(vec![len as i64], v(1)),
                Tensor::from_f32(vec![len as i64], v(2)),
            ]
        })
        .collect()
}

/// The interpreter's results of `module` on one partition per argument list.
fn interpreted(module: &Module, args: &[Vec<Tensor>]) -> Vec<Vec<Tensor>> {
    let programs = vec![vec!["main".to_string(); args.len()]];
    let values = args
        .iter()
        .map(|a| a.iter().cloned().map(Value::Tensor).collect())
        .collect();
    run_programs(module, &programs, values)
        .unwrap()
        .into_iter()
        .map(|results| {
            results
                .into_iter()
                .map(|v| match v {
                    Value::Tensor(t) => t,
                    other => panic!("a non-tensor result {other:?}"),
                })
                .collect()
        })
        .collect()
}

/// Uploads `args[d]` to `devices[d]`.
fn upload(client: &Client, devices: &[Device], args: &[Vec<Tensor>]) -> Vec<Vec<Buffer>> {
    devices
        .iter()
        .zip(args)
        .map(|(&device, a)| {
            a.iter()
                .map(|t| client.buffer_from_tensor(t.clone(), device).unwrap())
                .collect()
        })
        .collect()
}

fn borrowed(buffers: &[Vec<Buffer>]) -> Vec<Vec<&Buffer>> {
    buffers.iter().map(|b| b.iter().collect()).collect()
}

/// Runs `exe` on `args` and checks every result against the interpreter's, bit for bit, and
/// that it lives on its process's device.
fn check_against_interpreter(
    client: &Client,
    exe: &SpmdExecutable,
    module: &Module,
    args: &[Vec<Tensor>],
) {
    let buffers = upload(client, exe.devices(), args);
    let got = exe.execute(&borrowed(&buffers)).unwrap();
    let want = interpreted(module, args);
    assert_eq!(got.len(), want.len());
    for (d, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.len(), w.len(), "device {d}");
        for (k, (g, w)) in g.iter().zip(w).enumerate() {
            assert_eq!(g.device(), exe.devices()[d], "device {d} result {k}");
            let g = g.to_tensor().unwrap();
            assert_eq!(g.ty(), w.ty(), "device {d} result {k}");
            let bits = |t: &Tensor| -> Vec<u32> {
                t.to_f64_vec()
                    .iter()
                    .map(|&x| (x as f32).to_bits())
                    .collect()
            };
            assert_eq!(bits(&g), bits(w), "device {d} result {k}: {g:?} vs {w:?}");
        }
    }
}

#[test]
fn all_reduce_and_all_gather_on_four_cpu_devices_equal_the_interpreter() {
    let client = Client::cpu_devices(4);
    let module = reduce_and_gather(4);
    let exe = client
        .compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache())
        .unwrap();
    assert_eq!(exe.source(), CompileSource::Compiled);
    assert_eq!(exe.devices(), client.devices());
    assert_eq!((exe.grid().replicas, exe.grid().partitions), (1, 4));
    assert_eq!(exe.param_types().len(), 2);
    assert_eq!(exe.result_types()[1].to_string(), "tensor<12xf32>");
    assert!(exe.tpu_cost().is_none());
    check_against_interpreter(&client, &exe, &module, &inputs(4));
    // Twice on the same executable (a fresh rendezvous each run).
    check_against_interpreter(&client, &exe, &module, &inputs(4));
}

#[test]
fn large_executions_on_eight_devices_borrow_their_arguments_repeat_and_overlap() {
    // 8 × 6000 elements: the all-reduce is computed cooperatively.
    let client = Client::cpu_devices(8);
    let module = reduce_and_gather_of(8, 6000);
    let exe = client
        .compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache())
        .unwrap();
    let args = inputs_of(8, 6000);
    let want = interpreted(&module, &args);
    let buffers = upload(&client, exe.devices(), &args);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for _ in 0..3 {
                    let got = exe.execute(&borrowed(&buffers)).unwrap();
                    for (d, (g, w)) in got.iter().zip(&want).enumerate() {
                        // The collectives' results, bit for bit (the third, a vectorised
                        // tanh of thousands of elements, is not the interpreter's bits).
                        for (k, (g, w)) in g.iter().zip(w).enumerate().take(2) {
                            let g = g.to_tensor().unwrap();
                            assert!(
                                CpuBuffer::from_tensor(&g).to_le_bytes()
                                    == CpuBuffer::from_tensor(w).to_le_bytes(),
                                "device {d} result {k}"
                            );
                        }
                        let (g, w) = (g[2].to_tensor().unwrap(), &w[2]);
                        for (a, b) in g.to_f64_vec().iter().zip(w.to_f64_vec()) {
                            assert!((a - b).abs() <= 1e-6, "device {d}: tanh {a} vs {b}");
                        }
                    }
                }
            });
        }
    });
    // The arguments were only read.
    for (b, t) in buffers.iter().flatten().zip(args.iter().flatten()) {
        assert_eq!(&b.to_tensor().unwrap(), t);
    }
}

#[test]
fn processes_run_on_the_devices_in_the_order_given() {
    // Process d on devices[d]: reversing the devices moves each process's results with it.
    let client = Client::cpu_devices(4);
    let module = reduce_and_gather(4);
    let reversed: Vec<Device> = client.devices().iter().rev().copied().collect();
    let exe = client
        .compile_spmd(&module, &reversed, &CompileOptions::no_disk_cache())
        .unwrap();
    assert_eq!(exe.devices(), reversed.as_slice());
    check_against_interpreter(&client, &exe, &module, &inputs(4));
}

#[test]
fn a_two_by_two_grid_of_replicas_and_partitions() {
    // all_reduce without a channel: groups of replicas within each partition.
    let text = format!(
        r#"module attributes {{mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32}} {{
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {{
    %s = "stablehlo.all_reduce"(%x) {SUM} {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>
  }}
}}"#
    );
    let module = parse_module(&text, "grid.mlir").unwrap();
    let client = Client::cpu_devices(4);
    let exe = client
        .compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache())
        .unwrap();
    let args: Vec<Vec<Tensor>> = (0..4)
        .map(|d| {
            vec![Tensor::from_f32(
                vec![2],
                vec![d as f32, 10.0 * d as f32 + 0.5],
            )]
        })
        .collect();
    let buffers = upload(&client, exe.devices(), &args);
    let got = exe.execute(&borrowed(&buffers)).unwrap();
    // The interpreter's programs are [replica][partition].
    let programs = vec![vec!["main".to_string(); 2]; 2];
    let values = args
        .iter()
        .map(|a| a.iter().cloned().map(Value::Tensor).collect())
        .collect();
    let want = run_programs(&module, &programs, values).unwrap();
    for (d, (g, w)) in got.iter().zip(&want).enumerate() {
        let Value::Tensor(w) = &w[0] else {
            panic!("a non-tensor result")
        };
        assert_eq!(&g[0].to_tensor().unwrap(), w, "device {d}");
    }
    // Replicas 0 and 1 of partition 0 are processes 0 and 2.
    assert_eq!(
        got[0][0].to_tensor().unwrap(),
        Tensor::from_f32(vec![2], vec![2.0, 21.0])
    );
}

#[test]
fn a_second_compile_comes_from_memory_and_a_new_client_from_disk() {
    let module = reduce_and_gather(4);
    let dir = tempfile::tempdir().unwrap();
    let options = CompileOptions::with_cache_dir(dir.path());
    let first = Client::cpu_devices(4);
    let fresh = first
        .compile_spmd(&module, first.devices(), &options)
        .unwrap();
    assert_eq!(fresh.source(), CompileSource::Compiled);
    let again = first
        .compile_spmd(&module, first.devices(), &options)
        .unwrap();
    assert_eq!(again.source(), CompileSource::MemoryCache);
    assert!(again.same_program(&fresh));
    let stats = first.cache_stats();
    assert_eq!(
        (stats.compiles, stats.memory_hits, stats.disk_writes),
        (1, 1, 1)
    );
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(entries.len(), 1);
    let entry = entries[0].as_ref().unwrap().path();
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(text.contains("grid=1x4"), "{text}");
    assert!(text.contains("stablehlo.all_gather"), "{text}");

    let second = Client::cpu_devices(4);
    let cached = second
        .compile_spmd(&module, second.devices(), &options)
        .unwrap();
    assert_eq!(cached.source(), CompileSource::DiskCache);
    let stats = second.cache_stats();
    assert_eq!((stats.compiles, stats.disk_hits), (0, 1));
    check_against_interpreter(&second, &cached, &module, &inputs(4));

    // Other CPU devices of another client: the same program, from disk.
    let other = Client::cpu_devices(8);
    let moved: Vec<Device> = other.devices()[4..].to_vec();
    let on_others = other.compile_spmd(&module, &moved, &options).unwrap();
    assert_eq!(on_others.source(), CompileSource::DiskCache);
    check_against_interpreter(&other, &on_others, &module, &inputs(4));

    // A truncated entry is a miss.
    std::fs::write(&entry, &text[..text.len() - 10]).unwrap();
    let third = Client::cpu_devices(4);
    let recompiled = third
        .compile_spmd(&module, third.devices(), &options)
        .unwrap();
    assert_eq!(recompiled.source(), CompileSource::Compiled);
    assert_eq!(third.cache_stats().disk_rejected, 1);
}

#[test]
fn arguments_are_checked_per_device() {
    let client = Client::cpu_devices(4);
    let module = reduce_and_gather(4);
    let exe = client
        .compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache())
        .unwrap();
    let buffers = upload(&client, exe.devices(), &inputs(4));
    let mut args = borrowed(&buffers);

    // Three argument lists for four devices.
    let err = exe.execute(&args[..3]).unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::DeviceCount {
                expected: 4,
                got: 3,
                ..
            }
        ),
        "{err}"
    );

    // Device 2 with one argument.
    let saved = args[2].pop().unwrap();
    let err = exe.execute(&args).unwrap_err().to_string();
    assert!(
        err.contains("cpu:2") && err.contains("expects 2 arguments, got 1"),
        "{err}"
    );
    args[2].push(saved);

    // Device 1's argument 0 lives on cpu:3.
    let saved = args[1][0];
    args[1][0] = &buffers[3][0];
    let err = exe.execute(&args).unwrap_err().to_string();
    assert!(
        err.contains("SPMD device 1") && err.contains("argument 0 is on cpu:3"),
        "{err}"
    );
    args[1][0] = saved;

    // Device 0's argument 1 has the wrong type.
    let wrong = client
        .buffer_from_tensor(
            Tensor::from_f32(vec![2], vec![1.0, 2.0]),
            client.devices()[0],
        )
        .unwrap();
    let saved = args[0][1];
    args[0][1] = &wrong;
    let err = exe.execute(&args).unwrap_err().to_string();
    assert!(
        err.contains("cpu:0") && err.contains("argument 1 must be tensor<3xf32>"),
        "{err}"
    );
    args[0][1] = saved;

    // A donated argument names its device and position.
    buffers[2][1].delete();
    let err = exe.execute(&args).unwrap_err().to_string();
    assert!(
        err.contains("argument 1 of @main on cpu:2") && err.contains("donated"),
        "{err}"
    );
}

#[test]
fn donating_moves_the_arguments_and_refuses_a_buffer_given_twice() {
    let client = Client::cpu_devices(4);
    let module = reduce_and_gather(4);
    let exe = client
        .compile_spmd(&module, client.devices(), &CompileOptions::no_disk_cache())
        .unwrap();
    let args = inputs(4);
    let buffers = upload(&client, exe.devices(), &args);
    // Device 3 given device 3's x twice: refused, and nothing is donated.
    let mut twice = buffers.clone();
    twice[3][1] = twice[3][0].clone();
    let err = exe.execute_donating(twice).unwrap_err().to_string();
    assert!(err.contains("a donated buffer can be given once"), "{err}");
    assert!(buffers.iter().flatten().all(|b| !b.is_donated()));
    let got = exe.execute_donating(buffers.clone()).unwrap();
    assert!(buffers.iter().flatten().all(|b| b.is_donated()));
    let want = interpreted(&module, &args);
    for (g, w) in got.iter().zip(&want) {
        for (g, w) in g.iter().zip(w) {
            assert_eq!(&g.to_tensor().unwrap(), w);
        }
    }
}

#[test]
fn devices_that_do_not_fit_the_program_are_refused() {
    let client = Client::cpu_devices(4);
    let module = reduce_and_gather(4);
    let options = CompileOptions::no_disk_cache();
    let err = client
        .compile_spmd(&module, &client.devices()[..3], &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("1 × 4 = 4 processes") && err.contains("3 devices were given"),
        "{err}"
    );
    let d = client.devices();
    let err = client
        .compile_spmd(&module, &[d[0], d[1], d[1], d[2]], &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("cpu:1 is given twice"), "{err}");
    let err = client.compile_spmd(&module, &[], &options).unwrap_err();
    assert!(err.to_string().contains("at least one device"), "{err}");
    // A device of another client.
    let other = Client::with_tpus(&[("v5e", 4)]).unwrap();
    let err = client
        .compile_spmd(&module, &other.devices()[1..], &options)
        .unwrap_err();
    assert!(matches!(err, RuntimeError::NoDevice { .. }), "{err}");
    // Independent TPU chips have no torus.
    let err = other
        .compile_spmd(&module, &other.devices()[1..], &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a chip of a TPU slice"), "{err}");
    // CPU and TPU devices together.
    let mixed = Client::from_spec(2, Some("v5e:1x2")).unwrap();
    let module2 = reduce_and_gather(2);
    let d = mixed.devices();
    let err = mixed
        .compile_spmd(&module2, &[d[0], d[2]], &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("devices of one kind"), "{err}");
}

#[test]
fn a_single_device_program_compiles_once_for_every_cpu_device_and_buffers_move_between_them() {
    let client = Client::cpu_devices(3);
    let module = parse_module(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
           %0 = stablehlo.add %a, %a : tensor<2xf32>
           return %0 : tensor<2xf32>
         }",
        "double",
    )
    .unwrap();
    let on = |device: Device| CompileOptions {
        device: Some(device),
        ..CompileOptions::no_disk_cache()
    };
    let (cpu0, cpu2) = (client.devices()[0], client.devices()[2]);
    let exe0 = client.compile(&module, &on(cpu0)).unwrap();
    let exe2 = client.compile(&module, &on(cpu2)).unwrap();
    assert_eq!(exe2.device(), cpu2);
    assert!(exe2.same_program(&exe0));
    assert_eq!(client.cache_stats().compiles, 1);
    let a = client
        .buffer_from_tensor(Tensor::from_f32(vec![2], vec![1.5, -2.0]), cpu0)
        .unwrap();
    // On cpu:0 the cpu:2 executable refuses it; moved to cpu:2 it runs.
    let err = exe2.execute(&[&a]).unwrap_err().to_string();
    assert!(err.contains("argument 0 is on cpu:0"), "{err}");
    let moved = client.copy_to_device(&a, cpu2).unwrap();
    assert_eq!(moved.device(), cpu2);
    let out = exe2.execute(&[&moved]).unwrap();
    assert_eq!(out[0].device(), cpu2);
    assert_eq!(
        out[0].to_tensor().unwrap(),
        Tensor::from_f32(vec![2], vec![3.0, -4.0])
    );
    // Donating the copy leaves the original intact (they share the data until then).
    let out = exe2.execute_donating(vec![moved.clone()]).unwrap();
    assert!(moved.is_donated() && !a.is_donated());
    assert_eq!(
        out[0].to_tensor().unwrap(),
        Tensor::from_f32(vec![2], vec![3.0, -4.0])
    );
    assert_eq!(
        a.to_tensor().unwrap(),
        Tensor::from_f32(vec![2], vec![1.5, -2.0])
    );
}

#[test]
fn slice_chips_know_their_coordinates_slices_and_hosts() {
    let client = Client::with_slice("v5e:4x2").unwrap();
    let chips = &client.devices()[1..];
    assert_eq!(chips.len(), 8);
    for (d, chip) in chips.iter().enumerate() {
        assert_eq!(chip.to_string(), format!("tpu:v5e:{d}"));
        assert_eq!(chip.coords(), Some(vec![d as i64 / 2, d as i64 % 2]));
        assert_eq!(chip.slice_index(), Some(0));
        assert_eq!(chip.process_index(), 0);
    }
    // Two v5p 2x2x2 slices: 16 chips on 4 hosts of 2x2x1.
    let client = Client::with_slice("v5p:2x2x2*2").unwrap();
    let chips = &client.devices()[1..];
    assert_eq!(chips.len(), 16);
    let d11 = client.device("tpu:v5p:11").unwrap();
    assert_eq!(d11.coords(), Some(vec![0, 1, 1]));
    assert_eq!(d11.slice_index(), Some(1));
    for host in 0..4 {
        let n = chips.iter().filter(|c| c.process_index() == host).count();
        assert_eq!(n, 4, "host {host}");
    }
    assert_eq!(d11.process_index(), 3);
    // v4 slices have 4-chip hosts as well.
    let v4 = Client::with_slice("v4:2x2x2").unwrap();
    assert_eq!(
        v4.devices()[1..].iter().map(|c| c.process_index()).max(),
        Some(1)
    );
    assert!(Client::with_slice("v5e:4x4x4").is_err());
}

/// Data parallelism on the 8 chips of a v5e:4x2: each chip's batch of activations times the
/// weights, summed over every chip by one all_reduce (exactly rounded elementwise ops only
/// around it, so that TPU numerics leave it as it is and the interpreter is its oracle bit for
/// bit).
fn data_parallel(n: usize, rows: usize) -> Module {
    let ids: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let ids = ids.join(", ");
    let text = format!(
        r#"module @dp attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<{rows}x128xf32>, %w: tensor<{rows}x128xf32>) -> tensor<{rows}x128xf32> {{
    %p = stablehlo.multiply %x, %w : tensor<{rows}x128xf32>
    %t = stablehlo.maximum %p, %x : tensor<{rows}x128xf32>
    %sum = "stablehlo.all_reduce"(%t) {SUM} {{replica_groups = dense<[[{ids}]]> : tensor<1x{n}xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}} : (tensor<{rows}x128xf32>) -> tensor<{rows}x128xf32>
    return %sum : tensor<{rows}x128xf32>
  }}
}}"#
    );
    parse_module(&text, "dp.mlir").unwrap()
}

#[test]
fn an_spmd_program_on_a_slice_computes_on_the_host_and_advances_every_chip_by_its_modelled_time() {
    let client = Client::with_slice("v5e:4x2").unwrap();
    let chips: Vec<Device> = client.devices()[1..].to_vec();
    let module = data_parallel(8, 64);
    let options = CompileOptions::no_disk_cache();
    let exe = client.compile_spmd(&module, &chips, &options).unwrap();
    let cost = exe.tpu_cost().unwrap();
    assert_eq!(cost.report.slice, "v5e:4x2");
    assert_eq!(cost.report.num_chips, 8);
    assert_eq!(cost.report.collectives.len(), 1);
    assert!(cost.report.collective_s > 0.0 && cost.report.compute_s > 0.0);
    assert!(cost.step_time_s() >= cost.report.compute_s + cost.report.collective_s);
    // The same program again: from memory, the cost with it.
    let again = client.compile_spmd(&module, &chips, &options).unwrap();
    assert!(again.same_program(&exe));
    assert_eq!(again.source(), CompileSource::MemoryCache);

    let args: Vec<Vec<Tensor>> = (0..8)
        .map(|d| {
            let v = |k: usize| {
                (0..64 * 128)
                    .map(|i| ((d * 131 + i * 7 + k) as f32 * 0.013).sin())
                    .collect()
            };
            vec![
                Tensor::from_f32(vec![64, 128], v(0)),
                Tensor::from_f32(vec![64, 128], v(1)),
            ]
        })
        .collect();
    let buffers = upload(&client, &chips, &args);
    for b in buffers.iter().flatten() {
        b.block_until_ready().unwrap();
    }
    let before: Vec<_> = chips.iter().map(|c| c.simulated_clock().unwrap()).collect();
    // Every chip got the same bytes over PCIe: their clocks agree before the step.
    assert!(before
        .iter()
        .all(|c| c.time_s == before[0].time_s && c.time_s > 0.0));
    let out = exe.execute(&borrowed(&buffers)).unwrap();
    for (d, chip) in chips.iter().enumerate() {
        let after = chip.simulated_clock().unwrap();
        let modelled = &cost.report.chips[d];
        assert_eq!(after.executions, before[d].executions + 1);
        assert_eq!(after.compute_s - before[d].compute_s, modelled.compute_s);
        assert_eq!(
            after.collective_s - before[d].collective_s,
            modelled.collective_s
        );
        let advanced = after.time_s - before[d].time_s;
        assert!(
            (advanced - modelled.time_s).abs() <= 1e-12 * modelled.time_s,
            "chip {d}: advanced {advanced}, modelled {}",
            modelled.time_s
        );
        // The outputs hold HBM on their chips.
        assert!(chip.hbm_in_use().unwrap() >= 3 * 64 * 128 * 4);
    }
    // The step waits for the slowest chip: its clock is the step time.
    let slowest = cost
        .report
        .chips
        .iter()
        .map(|c| c.time_s)
        .fold(0.0, f64::max);
    assert_eq!(slowest, cost.step_time_s());
    // The numbers: elementwise ops around the all_reduce, as the interpreter computes them.
    let want = interpreted(&module, &args);
    for (d, (g, w)) in out.iter().zip(&want).enumerate() {
        assert_eq!(g[0].device(), chips[d]);
        let g = g[0].to_tensor().unwrap();
        let differ = g
            .to_f64_vec()
            .iter()
            .zip(w[0].to_f64_vec())
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!(
            differ, 0,
            "chip {d}: {differ} elements differ from the interpreter's"
        );
    }
}

#[test]
fn slice_programs_must_use_the_whole_slice_in_order_and_fit_in_hbm() {
    let client = Client::with_slice("v5e:2x2").unwrap();
    let chips: Vec<Device> = client.devices()[1..].to_vec();
    let options = CompileOptions::no_disk_cache();
    // Half the slice, and the slice out of order.
    let err = client
        .compile_spmd(&data_parallel(2, 8), &chips[..2], &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("every chip of one slice"), "{err}");
    let shuffled = [chips[1], chips[0], chips[2], chips[3]];
    let err = client
        .compile_spmd(&data_parallel(4, 8), &shuffled, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("in its device order"), "{err}");
    // 2^32 f32 in and as many out per chip (32 GiB) do not fit a v5e's HBM.
    let huge = r#"module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<65536x65536xf32>) -> tensor<65536x65536xf32> {
    %0 = stablehlo.exponential %x : tensor<65536x65536xf32>
    return %0 : tensor<65536x65536xf32>
  }
}"#;
    let huge = parse_module(huge, "huge.mlir").unwrap();
    let err = client
        .compile_spmd(&huge, &chips, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("RESOURCE_EXHAUSTED"), "{err}");
    assert!(err.contains("tpu:v5e:0"), "{err}");
    assert!(err.contains("needs 32.00 GiB"), "{err}");
    assert!(err.contains("but the chip has"), "{err}");
}
