//! Transfers are asynchronous in both directions, observed without timing: a test holds the
//! client's transfer thread ([`Client::hold_transfers`]) and sees buffers and host copies not
//! ready, then ready once it lets go. Host copies give the synchronous read-back's errors and,
//! from a simulated TPU, its PCIe time.

use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use systolic_ir::Tensor;
use systolic_runtime::transfer::TransferHold;
use systolic_runtime::{Buffer, Client, CompileOptions, Executable, HostTransfer, RuntimeError};

fn tensor(values: &[f32]) -> Tensor {
    Tensor::from_f32(vec![values.len() as i64], values.to_vec())
}

/// Releases `hold` from another thread after a pause, having set the returned flag first: a
/// wait that returns with the flag set waited for the release.
fn release_later(hold: TransferHold) -> Arc<AtomicBool> {
    let released = Arc::new(AtomicBool::new(false));
    let flag = released.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        flag.store(true, Ordering::SeqCst);
        drop(hold);
    });
    released
}

#[test]
fn a_host_to_device_buffer_is_not_ready_until_the_transfer_thread_runs_it() {
    let client = Client::cpu();
    let t = tensor(&[1.0, -2.0, 3.5]);
    let hold = client.hold_transfers();
    let buffer = client
        .buffer_from_tensor(t.clone(), client.devices()[0])
        .unwrap();
    assert!(
        !buffer.is_ready(),
        "buffer_from_tensor returned a ready buffer"
    );
    assert!(!buffer.is_donated());
    // Still not ready a while later: nothing but the transfer thread fills it.
    std::thread::sleep(Duration::from_millis(10));
    assert!(!buffer.is_ready());
    hold.release();
    buffer.block_until_ready().unwrap();
    assert!(buffer.is_ready());
    assert_eq!(buffer.to_tensor().unwrap(), t);
}

#[test]
fn block_until_ready_and_reads_wait_for_the_transfer() {
    let client = Client::cpu();
    let t = tensor(&[4.0, 5.0]);
    let hold = client.hold_transfers();
    let buffer = client
        .buffer_from_tensor(t.clone(), client.devices()[0])
        .unwrap();
    let released = release_later(hold);
    buffer.block_until_ready().unwrap();
    assert!(
        released.load(Ordering::SeqCst),
        "returned before the transfer ran"
    );

    let hold = client.hold_transfers();
    let buffer = client
        .buffer_from_tensor(t.clone(), client.devices()[0])
        .unwrap();
    let released = release_later(hold);
    assert_eq!(buffer.to_tensor().unwrap(), t);
    assert!(
        released.load(Ordering::SeqCst),
        "read before the transfer ran"
    );
}

#[test]
fn a_host_copy_returns_at_once_and_is_made_on_the_transfer_thread() {
    let client = Client::cpu();
    let t = tensor(&[0.5, 1.5, 2.5, 3.5]);
    let buffer = client
        .buffer_from_tensor(t.clone(), client.devices()[0])
        .unwrap();
    buffer.block_until_ready().unwrap();

    let hold = client.hold_transfers();
    let copy = buffer.copy_to_host_async();
    std::thread::sleep(Duration::from_millis(10));
    assert!(
        !copy.is_ready(),
        "the copy of a ready buffer was made synchronously"
    );
    hold.release();
    assert_eq!(copy.wait_tensor().unwrap(), t);

    // `wait` waits for the copy.
    let hold = client.hold_transfers();
    let copy = buffer.copy_to_host_async();
    let released = release_later(hold);
    let host = copy.wait().unwrap();
    assert!(
        released.load(Ordering::SeqCst),
        "wait returned before the copy was made"
    );
    assert_eq!(host.to_tensor(), t);
    // The buffer is untouched.
    assert_eq!(buffer.to_tensor().unwrap(), t);
}

#[test]
fn a_host_copy_of_a_pending_buffer_waits_for_its_transfer() {
    let client = Client::cpu();
    let t = tensor(&[9.0, 8.0, 7.0]);
    let hold = client.hold_transfers();
    let buffer = client
        .buffer_from_tensor(t.clone(), client.devices()[0])
        .unwrap();
    let copy = buffer.copy_to_host_async();
    assert!(!buffer.is_ready() && !copy.is_ready());
    let released = release_later(hold);
    assert_eq!(copy.wait_tensor().unwrap(), t);
    assert!(released.load(Ordering::SeqCst));
    assert!(buffer.is_ready());
}

#[test]
fn a_host_copy_sees_the_buffer_as_it_was_when_asked_for() {
    let client = Client::cpu();
    let module = systolic_ir::text::parse_module(
        "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
           %0 = stablehlo.negate %a : tensor<3xf32>
           return %0 : tensor<3xf32>
         }",
        "negate",
    )
    .unwrap();
    let exe = client
        .compile(&module, &CompileOptions::no_disk_cache())
        .unwrap();
    let t = tensor(&[1.0, 2.0, 3.0]);

    // Asked for while the buffer's own transfer is pending, then the buffer is donated: the
    // copy is made as the transfer finishes, before the donation can take the data.
    let hold = client.hold_transfers();
    let buffer = client.buffer_from_tensor(t.clone(), exe.device()).unwrap();
    let copy = buffer.copy_to_host_async();
    hold.release();
    let out = exe.execute_donating(vec![buffer.clone()]).unwrap();
    assert!(buffer.is_donated());
    assert_eq!(copy.wait_tensor().unwrap(), t);
    assert_eq!(out[0].to_tensor().unwrap(), tensor(&[-1.0, -2.0, -3.0]));

    // Asked for when ready, deleted before the copy runs.
    let hold = client.hold_transfers();
    let copy = out[0].copy_to_host_async();
    out[0].delete();
    hold.release();
    assert_eq!(copy.wait_tensor().unwrap(), tensor(&[-1.0, -2.0, -3.0]));
}

#[test]
fn donated_and_deleted_buffers_fail_the_copy_as_the_synchronous_read_does() {
    let client = Client::cpu();
    let module = systolic_ir::text::parse_module(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
           %0 = stablehlo.add %a, %a : tensor<2xf32>
           return %0 : tensor<2xf32>
         }",
        "double",
    )
    .unwrap();
    let exe = client
        .compile(&module, &CompileOptions::no_disk_cache())
        .unwrap();
    let donated = client
        .buffer_from_tensor(tensor(&[1.0, 2.0]), exe.device())
        .unwrap();
    exe.execute_donating(vec![donated.clone()]).unwrap();
    let deleted = client
        .buffer_from_tensor(tensor(&[3.0, 4.0]), exe.device())
        .unwrap();
    deleted.delete();

    for buffer in [&donated, &deleted] {
        let sync = buffer.to_cpu_buffer().unwrap_err();
        assert!(matches!(sync, RuntimeError::Donated { .. }), "{sync}");
        // The error is there at once, even with the transfer thread held.
        let hold = client.hold_transfers();
        let copy = buffer.copy_to_host_async();
        assert!(copy.is_ready());
        assert_eq!(copy.wait().unwrap_err(), sync);
        assert_eq!(
            buffer.copy_to_host_async().wait_tensor().unwrap_err(),
            buffer.to_tensor().unwrap_err()
        );
        hold.release();
    }
}

#[test]
fn a_host_copy_from_a_simulated_tpu_costs_the_same_pcie_time_when_it_is_made() {
    // Two chips that see the same transfers: one read back asynchronously, one synchronously.
    let client = Client::with_tpus(&[("v5e", 2)]).unwrap();
    let (tpu, twin) = (
        client.device("tpu:v5e:0").unwrap(),
        client.device("tpu:v5e:1").unwrap(),
    );
    let pcie = tpu.chip().unwrap().pcie_bandwidth.value.unwrap();
    let n = 4096;
    let t = Tensor::from_f32(vec![n], (0..n).map(|i| i as f32).collect());
    let on_tpu = client.buffer_from_tensor(t.clone(), tpu).unwrap();
    let on_twin = client.buffer_from_tensor(t.clone(), twin).unwrap();
    on_tpu.block_until_ready().unwrap();
    on_twin.block_until_ready().unwrap();
    let before = tpu.simulated_clock().unwrap();
    assert_eq!(twin.simulated_clock().unwrap(), before);

    let hold = client.hold_transfers();
    let copy = on_tpu.copy_to_host_async();
    assert_eq!(
        tpu.simulated_clock().unwrap(),
        before,
        "charged before the copy was made"
    );
    hold.release();
    assert_eq!(copy.wait_tensor().unwrap(), t);
    let after = tpu.simulated_clock().unwrap();
    let bytes = (n * 4) as u64;
    assert_eq!(after.bytes_from_device - before.bytes_from_device, bytes);
    let seconds = after.device_to_host_s - before.device_to_host_s;
    assert!((seconds - bytes as f64 / pcie).abs() <= 1e-15, "{seconds}");

    // The synchronous read-back charges exactly as much.
    assert_eq!(on_twin.to_tensor().unwrap(), t);
    assert_eq!(twin.simulated_clock().unwrap(), after);
}

#[test]
fn buffers_outlive_their_client_and_still_read_back_asynchronously() {
    let t = tensor(&[6.0, 7.0]);
    let (buffer, exe) = {
        let client = Client::cpu();
        let module = systolic_ir::text::parse_module(
            "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
               return %a : tensor<2xf32>
             }",
            "id",
        )
        .unwrap();
        let exe = client
            .compile(&module, &CompileOptions::no_disk_cache())
            .unwrap();
        (
            client.buffer_from_tensor(t.clone(), exe.device()).unwrap(),
            exe,
        )
    };
    assert_eq!(buffer.copy_to_host_async().wait_tensor().unwrap(), t);
    let out = exe.execute(&[&buffer]).unwrap().remove(0);
    assert_eq!(out.copy_to_host_async().wait_tensor().unwrap(), t);
}

#[test]
fn handles_cross_threads_and_buffers_cross_unwinding() {
    fn shared<T: Send + Sync>() {}
    fn unwind_safe<T: Send + Sync + UnwindSafe + RefUnwindSafe>() {}
    // Holding the transfer queue keeps buffers as they were: usable across threads and
    // `catch_unwind` (the front end catches panics around work holding them).
    unwind_safe::<Buffer>();
    unwind_safe::<HostTransfer>();
    shared::<Executable>();
    shared::<Client>();
}
