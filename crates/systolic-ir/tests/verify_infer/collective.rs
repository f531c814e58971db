use super::*;
use systolic_ir::{ChannelHandle, CollectiveAttrs};

fn groups(rows: &[&[i64]]) -> CollectiveAttrs {
    CollectiveAttrs {
        replica_groups: rows.iter().map(|r| r.to_vec()).collect(),
        channel_handle: None,
        use_global_device_ids: false,
        has_dynamic_root: false,
    }
}

fn add(d: DType) -> RegionSignature {
    reducer(&[d])
}

#[test]
fn all_gather_multiplies_by_the_group_size() {
    // The spec's example: tensor<2x2xf32>, groups [[0, 1]], dim 1 -> tensor<2x4xf32>.
    let k = OpKind::AllGather {
        all_gather_dim: 1,
        collective: groups(&[&[0, 1]]),
    };
    assert_eq!(infer(k, &[f32t(&[2, 2])]), Ok(vec![f32t(&[2, 4])]));
    // Without groups the declared result decides, as long as it is a multiple.
    let k = OpKind::AllGather {
        all_gather_dim: 0,
        collective: groups(&[]),
    };
    assert_eq!(
        infer_decl(k.clone(), &[f32t(&[2, 2])], &[f32t(&[8, 2])]),
        Ok(vec![f32t(&[8, 2])])
    );
    expect_err(
        infer_decl(k, &[f32t(&[2, 2])], &[f32t(&[3, 2])]),
        "does not gather",
    );
    let k = OpKind::AllGather {
        all_gather_dim: 2,
        collective: groups(&[&[0, 1]]),
    };
    expect_err(infer(k, &[f32t(&[2, 2])]), "`all_gather_dim` entry 2");
    let k = OpKind::AllGather {
        all_gather_dim: 0,
        collective: groups(&[&[0, 1], &[1, 2]]),
    };
    expect_err(infer(k, &[f32t(&[2])]), "repeats the id 1");
}

#[test]
fn all_reduce_and_reduce_scatter() {
    let c = groups(&[&[0, 1]]);
    let k = OpKind::AllReduce {
        collective: c.clone(),
    };
    assert_eq!(
        infer_regions(k.clone(), &[f32t(&[4])], &[add(DType::F32)]),
        Ok(vec![f32t(&[4])])
    );
    expect_err(
        infer_regions(k, &[f32t(&[4])], &[add(DType::I32)]),
        "computation takes",
    );
    // The spec's example: tensor<2x4xf32> scattered along 1 over 2 processes -> tensor<2x2xf32>.
    let k = OpKind::ReduceScatter {
        scatter_dimension: 1,
        collective: c.clone(),
    };
    assert_eq!(
        infer_regions(k.clone(), &[f32t(&[2, 4])], &[add(DType::F32)]),
        Ok(vec![f32t(&[2, 2])])
    );
    expect_err(
        infer_regions(k, &[f32t(&[2, 3])], &[add(DType::F32)]),
        "not divisible by the group size 2",
    );
    let mut global = c;
    global.use_global_device_ids = true;
    let k = OpKind::AllReduce {
        collective: global.clone(),
    };
    expect_err(
        infer_regions(k, &[f32t(&[4])], &[add(DType::F32)]),
        "use_global_device_ids needs a channel_handle",
    );
    global.channel_handle = Some(ChannelHandle { handle: 1, kind: 1 });
    let k = OpKind::AllReduce { collective: global };
    assert_eq!(
        infer_regions(k, &[f32t(&[4])], &[add(DType::F32)]),
        Ok(vec![f32t(&[4])])
    );
}

#[test]
fn all_to_all_splits_and_concatenates() {
    // The spec's example: tensor<2x4xf32>, split 1, concat 0, count 2 -> tensor<4x2xf32>.
    let k = |count, rows: &[&[i64]]| OpKind::AllToAll {
        split_dimension: 1,
        concat_dimension: 0,
        split_count: count,
        collective: groups(rows),
    };
    assert_eq!(
        infer(k(2, &[&[0, 1]]), &[f32t(&[2, 4])]),
        Ok(vec![f32t(&[4, 2])])
    );
    expect_err(
        infer(k(3, &[&[0, 1, 2]]), &[f32t(&[2, 4])]),
        "not divisible by split_count 3",
    );
    expect_err(
        infer(k(0, &[]), &[f32t(&[2, 4])]),
        "split_count 0 must be positive",
    );
    expect_err(
        infer(k(4, &[&[0, 1]]), &[f32t(&[2, 4])]),
        "split_count 4 must equal the group size 2",
    );
    // Splitting and concatenating along one dimension keeps the type.
    let same = OpKind::AllToAll {
        split_dimension: 1,
        concat_dimension: 1,
        split_count: 2,
        collective: groups(&[&[0, 1]]),
    };
    assert_eq!(infer(same, &[f32t(&[2, 4])]), Ok(vec![f32t(&[2, 4])]));
}

#[test]
fn point_to_point_and_ids() {
    let k = |pairs: &[(i64, i64)]| OpKind::CollectivePermute {
        source_target_pairs: pairs.to_vec(),
        channel_handle: None,
    };
    assert_eq!(
        infer(k(&[(0, 1), (1, 0)]), &[f32t(&[2, 2])]),
        Ok(vec![f32t(&[2, 2])])
    );
    expect_err(
        infer(k(&[(0, 1), (0, 2)]), &[f32t(&[2])]),
        "repeats the source 0",
    );
    expect_err(
        infer(k(&[(0, 1), (2, 1)]), &[f32t(&[2])]),
        "repeats the target 1",
    );
    expect_err(infer(k(&[(-1, 1)]), &[f32t(&[2])]), "negative process id");
    assert_eq!(infer(OpKind::ReplicaId, &[]), Ok(vec![t(&[], DType::U32)]));
    assert_eq!(
        infer(OpKind::PartitionId, &[]),
        Ok(vec![t(&[], DType::U32)])
    );
}

#[test]
fn send_recv_infeed_outfeed_thread_tokens() {
    let host_send = OpKind::Send {
        channel_handle: ChannelHandle { handle: 5, kind: 2 },
        is_host_transfer: true,
    };
    assert_eq!(
        infer(host_send.clone(), &[i32t(&[3, 4]), Type::Token]),
        Ok(vec![Type::Token])
    );
    expect_err(
        infer(host_send, &[i32t(&[3, 4])]),
        "the last operand must be a token",
    );
    let wrong = OpKind::Send {
        channel_handle: ChannelHandle { handle: 5, kind: 1 },
        is_host_transfer: true,
    };
    expect_err(
        infer(wrong, &[Type::Token]),
        "channel type 1 does not match is_host_transfer = true",
    );
    let recv = OpKind::Recv {
        channel_handle: ChannelHandle { handle: 5, kind: 3 },
        is_host_transfer: true,
    };
    let outs = [i32t(&[3, 4]), Type::Token];
    assert_eq!(
        infer_decl(recv.clone(), &[Type::Token], &outs),
        Ok(outs.to_vec())
    );
    expect_err(
        infer_decl(recv, &[Type::Token], &[i32t(&[3, 4])]),
        "the last one must be a token",
    );
    let infeed = OpKind::Infeed {
        infeed_config: String::new(),
    };
    assert_eq!(
        infer_decl(infeed.clone(), &[Type::Token], &outs),
        Ok(outs.to_vec())
    );
    expect_err(
        infer_decl(infeed, &[i32t(&[])], &outs),
        "the operand must be a token",
    );
    let outfeed = OpKind::Outfeed {
        outfeed_config: String::new(),
    };
    assert_eq!(
        infer(outfeed, &[i32t(&[2]), Type::Token]),
        Ok(vec![Type::Token])
    );
}

#[test]
fn cross_replica_and_partition_groups_take_their_size_from_the_declared_result() {
    // A channel without use_global_device_ids groups each replica group with every partition;
    // the partition count is a module setting, so 2 replicas may gather 2 or 4 or 6 … pieces.
    // (The upstream interpreter test for issue 1933 gathers 2x2 into 2x8 this way.)
    let mut c = groups(&[&[0, 1]]);
    c.channel_handle = Some(ChannelHandle { handle: 1, kind: 0 });
    let k = OpKind::AllGather {
        all_gather_dim: 1,
        collective: c.clone(),
    };
    let x = t(&[2, 2], DType::I64);
    assert_eq!(
        infer_decl(
            k.clone(),
            std::slice::from_ref(&x),
            &[t(&[2, 8], DType::I64)]
        ),
        Ok(vec![t(&[2, 8], DType::I64)])
    );
    assert_eq!(
        infer_decl(
            k.clone(),
            std::slice::from_ref(&x),
            &[t(&[2, 4], DType::I64)]
        ),
        Ok(vec![t(&[2, 4], DType::I64)])
    );
    expect_err(
        infer_decl(
            k.clone(),
            std::slice::from_ref(&x),
            &[t(&[2, 6], DType::I64)],
        ),
        "over groups of 2 replicas",
    );
    expect_err(infer(k, std::slice::from_ref(&x)), "must be declared");
    // With global device ids the rows are the groups.
    c.use_global_device_ids = true;
    let k = OpKind::AllGather {
        all_gather_dim: 1,
        collective: c.clone(),
    };
    assert_eq!(
        infer(k, std::slice::from_ref(&x)),
        Ok(vec![t(&[2, 4], DType::I64)])
    );
    // reduce_scatter the same way: 8 elements over 2 replicas x P partitions.
    c.use_global_device_ids = false;
    let k = OpKind::ReduceScatter {
        scatter_dimension: 0,
        collective: c,
    };
    let body = [add(DType::F32)];
    assert_eq!(
        infer_result_types(&k, &[f32t(&[8])], &body, Some(&[f32t(&[2])])),
        Ok(vec![f32t(&[2])])
    );
    expect_err(
        infer_result_types(&k, &[f32t(&[8])], &body, Some(&[f32t(&[3])])),
        "does not scatter",
    );
}

#[test]
fn collective_broadcast_keeps_the_operand_type() {
    let k = OpKind::CollectiveBroadcast {
        collective: groups(&[&[0, 1], &[2, 3]]),
    };
    assert_eq!(infer(k, &[f32t(&[1, 2])]), Ok(vec![f32t(&[1, 2])]));
    let k = OpKind::CollectiveBroadcast {
        collective: groups(&[&[0, 1], &[2]]),
    };
    expect_err(infer(k, &[f32t(&[1, 2])]), "rows must have the same length");
    let k = OpKind::CollectiveBroadcast {
        collective: groups(&[&[0, -2]]),
    };
    expect_err(infer(k, &[f32t(&[1, 2])]), "invalid id -2");
}
