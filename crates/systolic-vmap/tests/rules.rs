//! One test per batching rule: JAX-lowered per-example programs (tests/programs, made by
//! tests/make_programs.py) batched with every combination of mapped and unmapped parameters,
//! on the interpreter, against the per-example program run on each example.

use crate::common;

use common::{check, check_all_axes, load};

#[test]
fn argmax() {
    check_all_axes("argmax");
    let n = load("argmax").func("main").unwrap().params().len();
    check("argmax", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn batch_group_conv() {
    check_all_axes("batch_group_conv");
    let n = load("batch_group_conv")
        .func("main")
        .unwrap()
        .params()
        .len();
    check("batch_group_conv", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn batched_dot() {
    check_all_axes("batched_dot");
    let n = load("batched_dot").func("main").unwrap().params().len();
    check("batched_dot", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn binary() {
    check_all_axes("binary");
    let n = load("binary").func("main").unwrap().params().len();
    check("binary", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn bitcast() {
    check_all_axes("bitcast");
    let n = load("bitcast").func("main").unwrap().params().len();
    check("bitcast", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn bitcast_narrow() {
    check_all_axes("bitcast_narrow");
    let n = load("bitcast_narrow").func("main").unwrap().params().len();
    check("bitcast_narrow", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn broadcast_bin() {
    check_all_axes("broadcast_bin");
    let n = load("broadcast_bin").func("main").unwrap().params().len();
    check("broadcast_bin", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn broadcast_in_dim() {
    check_all_axes("broadcast_in_dim");
    let n = load("broadcast_in_dim")
        .func("main")
        .unwrap()
        .params()
        .len();
    check("broadcast_in_dim", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn chlo() {
    check_all_axes("chlo");
    let n = load("chlo").func("main").unwrap().params().len();
    check("chlo", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn clamp() {
    check_all_axes("clamp");
    let n = load("clamp").func("main").unwrap().params().len();
    check("clamp", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn compare_select() {
    check_all_axes("compare_select");
    let n = load("compare_select").func("main").unwrap().params().len();
    check("compare_select", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn concat_rev() {
    check_all_axes("concat_rev");
    let n = load("concat_rev").func("main").unwrap().params().len();
    check("concat_rev", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn cond() {
    check_all_axes("cond");
    let n = load("cond").func("main").unwrap().params().len();
    check("cond", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn conv() {
    check_all_axes("conv");
    let n = load("conv").func("main").unwrap().params().len();
    check("conv", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn convert() {
    check_all_axes("convert");
    let n = load("convert").func("main").unwrap().params().len();
    check("convert", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn cumsum() {
    check_all_axes("cumsum");
    let n = load("cumsum").func("main").unwrap().params().len();
    check("cumsum", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn dot_t() {
    check_all_axes("dot_t");
    let n = load("dot_t").func("main").unwrap().params().len();
    check("dot_t", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn dynamic_slice() {
    check_all_axes("dynamic_slice");
    let n = load("dynamic_slice").func("main").unwrap().params().len();
    check("dynamic_slice", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn dynamic_update_slice() {
    check_all_axes("dynamic_update_slice");
    let n = load("dynamic_update_slice")
        .func("main")
        .unwrap()
        .params()
        .len();
    check("dynamic_update_slice", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn fori() {
    check_all_axes("fori");
    let n = load("fori").func("main").unwrap().params().len();
    check("fori", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn gather() {
    check_all_axes("gather");
    let n = load("gather").func("main").unwrap().params().len();
    check("gather", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn gather2() {
    check_all_axes("gather2");
    let n = load("gather2").func("main").unwrap().params().len();
    check("gather2", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn grouped_conv() {
    check_all_axes("grouped_conv");
    let n = load("grouped_conv").func("main").unwrap().params().len();
    check("grouped_conv", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn iota_const() {
    check_all_axes("iota_const");
    let n = load("iota_const").func("main").unwrap().params().len();
    check("iota_const", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn matmul() {
    check_all_axes("matmul");
    let n = load("matmul").func("main").unwrap().params().len();
    check("matmul", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn matvec() {
    check_all_axes("matvec");
    let n = load("matvec").func("main").unwrap().params().len();
    check("matvec", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn maxpool_grad() {
    check_all_axes("maxpool_grad");
    let n = load("maxpool_grad").func("main").unwrap().params().len();
    check("maxpool_grad", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn mlp_loss_grad() {
    check_all_axes("mlp_loss_grad");
    let n = load("mlp_loss_grad").func("main").unwrap().params().len();
    check("mlp_loss_grad", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn pad_value() {
    check_all_axes("pad_value");
    let n = load("pad_value").func("main").unwrap().params().len();
    check("pad_value", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn reduce_sum() {
    check_all_axes("reduce_sum");
    let n = load("reduce_sum").func("main").unwrap().params().len();
    check("reduce_sum", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn reduce_window() {
    check_all_axes("reduce_window");
    let n = load("reduce_window").func("main").unwrap().params().len();
    check("reduce_window", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn reshape_transpose() {
    check_all_axes("reshape_transpose");
    let n = load("reshape_transpose")
        .func("main")
        .unwrap()
        .params()
        .len();
    check("reshape_transpose", &vec![Some(0); n], &[Some(0)]);
}

// rng_bit_generator is batched as JAX batches it, which is not per example: tests/rng.rs
// checks it against JAX's outputs.

#[test]
fn scatter_add() {
    check_all_axes("scatter_add");
    let n = load("scatter_add").func("main").unwrap().params().len();
    check("scatter_add", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn select_scalar() {
    check_all_axes("select_scalar");
    let n = load("select_scalar").func("main").unwrap().params().len();
    check("select_scalar", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn slice_pad() {
    check_all_axes("slice_pad");
    let n = load("slice_pad").func("main").unwrap().params().len();
    check("slice_pad", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn sort() {
    check_all_axes("sort");
    let n = load("sort").func("main").unwrap().params().len();
    check("sort", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn switch() {
    check_all_axes("switch");
    let n = load("switch").func("main").unwrap().params().len();
    check("switch", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn top_k() {
    check_all_axes("top_k");
    let n = load("top_k").func("main").unwrap().params().len();
    check("top_k", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn unary() {
    check_all_axes("unary");
    let n = load("unary").func("main").unwrap().params().len();
    check("unary", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn while_count() {
    check_all_axes("while_count");
    let n = load("while_count").func("main").unwrap().params().len();
    check("while_count", &vec![Some(0); n], &[Some(0)]);
}

#[test]
fn while_data() {
    check_all_axes("while_data");
    let n = load("while_data").func("main").unwrap().params().len();
    check("while_data", &vec![Some(0); n], &[Some(0)]);
}
