//! A global program costed on a slice: what `systolic simulate FILE --slice … --cost-only` and
//! the front end's examples ask. The program (automatic `sdy.sharding`s, constraints, shard_map
//! bodies) is turned into the program each chip runs by the compiler's SPMD lowering
//! (`per_device_program`; mesh device `d` on the slice's row-major chip `d`), compiled by the
//! TPU pipeline and costed on every chip ([`simulate_spmd`]); MFU is taken over the global
//! program's FLOPs (each op once), so work every chip repeats does not count as useful. A
//! program already written per device is costed as it is.

use crate::compile::compile;
use crate::slice::Slice;
use crate::{simulate, simulate_spmd, SimOptions, SpmdReport, TpuError};
use systolic_compiler::passes::per_device_program;
use systolic_ir::Module;

/// Costs `global` on every chip of `slice`; see the module docs. With `compiled == false` the
/// programs are costed as written (no TPU pipeline), as `--no-compile` asks.
pub fn simulate_global(
    global: &Module,
    slice: &Slice,
    options: &SimOptions,
    compiled: bool,
) -> Result<SpmdReport, TpuError> {
    let tpu = |m: &Module| {
        if compiled {
            compile(m, Default::default())
        } else {
            Ok(m.clone())
        }
    };
    let spmd = per_device_program(global, &options.entry).map_err(|e| TpuError::Compile {
        message: format!("partitioning @{}: {e}", options.entry),
    })?;
    let chips = slice.total_chips() as usize;
    let per_device = match &spmd {
        Some(s) if s.num_devices != chips => {
            return Err(TpuError::Compile {
                message: format!(
                    "the program's mesh has {} device(s) but the slice {slice} has {chips} \
                     chip(s): choose a slice with as many chips as the mesh (device d of the \
                     mesh runs on the slice's chip at row-major position d)",
                    s.num_devices
                ),
            })
        }
        Some(s) => &s.module,
        None => global,
    };
    let mut report = simulate_spmd(&tpu(per_device)?, slice, options)?;
    if spmd.is_some() {
        let whole_options = SimOptions {
            enforce_hbm: false,
            ..options.clone()
        };
        let whole = simulate(&tpu(global)?, slice.chip(), &whole_options)?;
        report.set_model_flops(whole.flops);
    }
    if let Some(s) = spmd {
        report.warnings = s.warnings;
    }
    Ok(report)
}
