//! Whether the pool's large fresh buffers ask Linux for transparent huge pages, and the advice.
//!
//! A fresh output is first touched by the kernel that writes it. With 4 KiB pages a 64 MiB
//! output takes 16384 page faults (trap, zeroing, accounting, and as many unmaps when it is
//! freed); with huge pages 32, and later runs (the buffer pooled) walk a fraction of the TLB
//! entries. Common Linux setups run THP in `madvise` mode, so we ask.
//!
//! Except in a virtual machine whose guest reports its free memory to the host (virtio-balloon
//! *free page reporting*): the guest hands every free block of at least a huge page's order back
//! to the host, which drops its backing; a huge page is exactly such a block, so a fresh one
//! usually has to be faulted in again by the host, 4 KiB at a time, one VM exit each. Small
//! pages come from the guest's lower-order free lists, which are never reported. Measured on
//! such a guest (AMD EPYC Zen 3, 2 vCPUs, KVM, `page_reporting_order` 9, 30 Nov 2026): touching
//! 64 MiB of fresh huge pages took 5–7 ms when the blocks were just freed and 135–171 ms when
//! reported, 4 KiB pages 33–40 ms. First runs of the benchmark programs in fresh processes,
//! huge pages asked for against not, alternating: lm_train_step_bf16 2117–2316 ms against
//! 1494–1589, transformer_train_step 389–551 against 367–391, per_example_grads 22–171
//! (bimodal) against 56–77; steady-state medians equal within noise (lm 1118–1206 against
//! 1129–1216, matmul_f32_2048 95–98 against 95–107). So there we do not ask.
//!
//! `SYSTOLIC_CPU_HUGE_PAGES` overrides the choice for a process: `on`, `off`, or `auto` (the
//! default).

use crate::buffer::Storage;
use std::sync::OnceLock;

/// Buffers at least this large are backed by transparent huge pages when [`wanted`].
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// The virtio-balloon feature bit of free page reporting (`VIRTIO_BALLOON_F_REPORTING`).
const BALLOON_REPORTING_BIT: usize = 5;

/// Whether this process asks for huge pages (decided once: `SYSTOLIC_CPU_HUGE_PAGES`, else
/// [`guest_reports_free_pages`]).
pub fn wanted() -> bool {
    static WANTED: OnceLock<bool> = OnceLock::new();
    *WANTED.get_or_init(|| {
        crate::switch::from_env(
            "SYSTOLIC_CPU_HUGE_PAGES",
            &[("on", true), ("off", false)],
            || !guest_reports_free_pages(),
        )
    })
}

/// True when a virtio balloon device of this machine negotiated free page reporting (Linux
/// lists each device's negotiated features as a string of `0`/`1`, bit 0 first).
pub fn guest_reports_free_pages() -> bool {
    let Ok(devices) = std::fs::read_dir("/sys/bus/virtio/drivers/virtio_balloon") else {
        return false;
    };
    devices.flatten().any(|device| {
        std::fs::read_to_string(device.path().join("features"))
            .is_ok_and(|bits| reports_free_pages(&bits))
    })
}

/// Whether a virtio feature string has the free page reporting bit set.
fn reports_free_pages(features: &str) -> bool {
    features.trim().as_bytes().get(BALLOON_REPORTING_BIT) == Some(&b'1')
}

/// Asks Linux to back the 2 MiB-aligned interior of a large buffer with transparent huge pages,
/// when [`wanted`]. A buffer already touched (from the pool) is unaffected.
pub fn advise_huge_pages(s: &Storage) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (ptr, bytes) = crate::with_storage!(s, v => (
            v.as_ptr() as usize,
            std::mem::size_of_val(v.as_slice()),
        ));
        if bytes < HUGE_PAGE_MIN_BYTES || !wanted() {
            return;
        }
        let start = ptr.next_multiple_of(HUGE);
        let end = (ptr + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: advice only (no change to the contents); the range lies inside the
            // buffer's own allocation. A failure (THP disabled) leaves ordinary pages.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = s;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_reporting_bit_of_a_balloon_feature_string() {
        // A KVM guest's balloon: stats queue, deflate on OOM, free page reporting, version 1.
        let reporting = "0110010100000000000000000000000010000000";
        assert!(reports_free_pages(reporting));
        assert!(reports_free_pages(&format!("{reporting}\n")));
        assert!(!reports_free_pages(
            "0110000100000000000000000000000010000000"
        ));
        assert!(!reports_free_pages("01100"));
        assert!(!reports_free_pages(""));
    }
}
