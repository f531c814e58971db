//! JAX's own exports of the programs the partitioner's control flow, gather/scatter and
//! uneven pieces exist for (`scripts/partitioner_ops_goldens.py`, JAX 0.10.2 on 8 host
//! devices, mesh data=4 × model=2): a scan over FSDP/TP-sharded stacked layer weights and its
//! rematerialised gradient, an embedding lookup from a vocabulary-sharded table and its
//! gradient, a loop with a cond inside, uneven rows. Each is partitioned by
//! `per_device_program` (inline, propagate, partition), run one interpreter process per
//! device, and compared with JAX's outputs.

use crate::spmd_partitioner_check::check_jax_golden;
use systolic_compiler::passes::SpmdModule;
use systolic_ir::OpKind;

fn check(name: &str) -> (SpmdModule, String) {
    check_jax_golden("partitioner_ops", name, 1e-4)
}

fn count(spmd: &SpmdModule, pred: fn(&OpKind) -> bool) -> usize {
    let mut n = 0;
    systolic_ir::walk::walk_ops(&spmd.module.func("main").unwrap().body, &mut |op, _| {
        n += usize::from(pred(&op.kind))
    });
    n
}

#[test]
fn a_scan_over_fsdp_and_tp_sharded_layers() {
    let (spmd, printed) = check("scan_fsdp_tp");
    // The loop stays a loop carrying weight pieces (3 x 16/4 x 32/2).
    assert_eq!(count(&spmd, |k| matches!(k, OpKind::While)), 1);
    assert!(printed.contains("tensor<3x4x16xf32>"), "{printed}");
}

#[test]
fn the_scans_rematerialised_gradient() {
    let (spmd, _) = check("scan_grad_fsdp_tp");
    assert!(count(&spmd, |k| matches!(k, OpKind::While)) >= 2);
}

#[test]
fn an_embedding_from_a_vocabulary_sharded_table_and_its_gradient() {
    let (spmd, _) = check("embedding_vocab");
    // The table is read where it lies: no gather of its rows.
    let table_gathered = |k: &OpKind| {
        matches!(
            k,
            OpKind::AllGather {
                all_gather_dim: 0,
                ..
            }
        )
    };
    assert_eq!(count(&spmd, table_gathered), 0);
    check("embedding_grad_vocab");
}

#[test]
fn a_loop_with_a_cond_inside() {
    let (spmd, _) = check("loop_cond");
    assert_eq!(count(&spmd, |k| matches!(k, OpKind::If | OpKind::Case)), 1);
}

#[test]
fn uneven_rows_with_constraints() {
    check("uneven_rows");
}
