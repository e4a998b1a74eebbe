#!/usr/bin/env bash
# The spot check of docs/generalization.md: published MaxText runs outside the fit
# (MaxText's tiering table and tpu-recipes logs), each imported with `shardcalc maxtext`,
# printed as published tokens/s/device, published MFU in today's FLOP convention, the
# calibrated prediction and the roofline. These runs are never fitted: re-run this after a
# model change and update docs/generalization.md by hand.
#
#   scripts/generalization.sh            # builds the CLI (debug) and prints the table
#   BIN=target/release/shardcalc scripts/generalization.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
    cargo build -q -p shardcalc-cli
    BIN=target/debug/shardcalc
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# MaxText's benchmarks/xla_flags_library.py, the groups the runs set.
CF_AG="--xla_tpu_enable_async_collective_fusion=true --xla_tpu_enable_async_collective_fusion_fuse_all_gather=true --xla_tpu_enable_async_collective_fusion_multiple_steps=true --xla_tpu_overlap_compute_collective_tc=true --xla_enable_async_all_gather=true"
SC_AR="--xla_tpu_enable_async_collective_fusion_fuse_all_reduce=false --xla_tpu_enable_sparse_core_collective_offload_all_reduce=true"
DPO="--xla_tpu_enable_data_parallel_all_reduce_opt=true --xla_tpu_data_parallel_opt_different_sized_ops=true"
NO_CM="--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000"
SA2048="sa_block_q=2048 sa_block_kv=2048 sa_block_kv_compute=2048 sa_block_q_dkv=2048 sa_block_kv_dkv=2048 sa_block_kv_dkv_compute=2048 sa_block_q_dq=2048 sa_block_kv_dq=2048 sa_use_fused_bwd_kernel=true"
OFF_QKV="remat_policy=custom decoder_layer_input=offload query_proj=offload key_proj=offload value_proj=offload"
OFF_QKVO="$OFF_QKV out_proj=offload"
V6E="--chip tpu-v6e --topology 16x16"

# run NAME PUBLISHED_TOKENS_PER_S_PER_DEVICE SHARDCALC_MAXTEXT_ARGS...
run() {
    local name=$1 tokens=$2
    shift 2
    "$BIN" maxtext "$@" >"$OUT/$name.json" 2>/dev/null
    echo "$name $tokens" >>"$OUT/index"
}

# MaxText docs/reference/models/tiering.md (maxtext e591f30).
run v6e-llama2-70b 900 $V6E -- model_name=llama2-70b per_device_batch_size=2 ici_fsdp_parallelism=1 ici_fsdp_transpose_parallelism=-1 ici_tensor_parallelism=1 remat_policy=qkv_proj_offloaded max_target_length=4096 attention=flash sa_block_q=1024 sa_block_q_dkv=2048 sa_block_q_dq=2048 "LIBTPU_INIT_ARGS=$CF_AG $SC_AR"
run v6e-llama3.1-8b 7207 $V6E -- model_name=llama3.1-8b per_device_batch_size=4 ici_fsdp_parallelism=-1 $OFF_QKVO max_target_length=8192 attention=flash $SA2048 "LIBTPU_INIT_ARGS=$DPO $CF_AG $SC_AR"
run v6e-llama3.1-70b 960 $V6E -- model_name=llama3.1-70b per_device_batch_size=5 ici_fsdp_parallelism=-1 $OFF_QKV max_target_length=8192 attention=flash $SA2048 "LIBTPU_INIT_ARGS=$DPO $CF_AG"
run v6e-llama3.1-405b 123 $V6E --slices 2 -- model_name=llama3.1-405b per_device_batch_size=1 ici_fsdp_parallelism=64 ici_tensor_parallelism=4 dcn_fsdp_parallelism=2 allow_split_physical_axes=true custom_mesh=hybrid_ring_64x4 $OFF_QKVO max_target_length=8192 attention=flash sa_block_q=1024 sa_block_q_dkv=2048 sa_block_q_dq=2048 "LIBTPU_INIT_ARGS=$CF_AG"
run v6e-mixtral-8x7b 3899 $V6E -- model_name=mixtral-8x7b per_device_batch_size=12 ici_fsdp_parallelism=-1 max_target_length=4096 $OFF_QKVO attention=flash sa_block_q=2048 sa_block_q_dkv=2048 sa_block_q_dq=2048 megablox=false sparse_matmul=false capacity_factor=1.25 "LIBTPU_INIT_ARGS=$CF_AG $DPO"
run v6e-mixtral-8x22b 1326 $V6E -- model_name=mixtral-8x22b per_device_batch_size=8 max_target_length=4096 ici_fsdp_parallelism=64 ici_expert_parallelism=4 $OFF_QKVO attention=flash sa_block_q=2048 sa_block_q_dkv=2048 sa_block_q_dq=2048 megablox=false sparse_matmul=false capacity_factor=1.25 dtype=bfloat16 weight_dtype=bfloat16 allow_split_physical_axes=true custom_mesh=hybrid_ring_64x4 "LIBTPU_INIT_ARGS=$CF_AG $DPO"
run v5p-llama2-70b 692 --chip tpu-v5p --topology 8x8x8 -- model_name=llama2-70b ici_fsdp_parallelism=-1 per_device_batch_size=4 remat_policy=save_dot_except_mlpwi max_target_length=4096 "LIBTPU_INIT_ARGS=$DPO $CF_AG"
run v5p-mixtral-8x7b 2909 --chip tpu-v5p --topology 8x4x4 -- model_name=mixtral-8x7b per_device_batch_size=36 max_target_length=4096 dtype=bfloat16 weight_dtype=bfloat16 attention=flash "LIBTPU_INIT_ARGS=$CF_AG $DPO --xla_tpu_enable_ag_backward_pipelining=true"

# tpu-recipes training/trillium/*/README.md logged steps (tpu-recipes c8cfe2f).
run log-v6e-llama3.1-405b-pure-fsdp 149.482 $V6E --slices 2 -- model_name=llama3.1-405b per_device_batch_size=1 ici_fsdp_parallelism=256 dcn_fsdp_parallelism=2 remat_policy=custom decoder_layer_input=offload max_target_length=8192 attention=flash sa_block_q=1024 sa_block_q_dkv=2048 sa_block_q_dq=2048 "LIBTPU_INIT_ARGS=$CF_AG"
run log-v6e-gpt3-175b 357.580 $V6E -- model_name=gpt3-175b per_device_batch_size=3 ici_fsdp_parallelism=-1 remat_policy=full attention=flash sa_block_q=1024 sa_block_q_dkv=2048 sa_block_q_dq=2048 "LIBTPU_INIT_ARGS=$CF_AG $DPO"
run log-v6e-32-llama3.1-70b 920.965 --chip tpu-v6e --topology 4x8 -- model_name=llama3.1-70b per_device_batch_size=2 ici_fsdp_parallelism=-1 $OFF_QKV max_target_length=8192 attention=flash $SA2048 weight_dtype=bfloat16 "LIBTPU_INIT_ARGS=$DPO $CF_AG $NO_CM"
run log-v6e-64-llama3.1-70b 876.736 --chip tpu-v6e --topology 8x8 -- model_name=llama3.1-70b per_device_batch_size=2 ici_fsdp_parallelism=-1 $OFF_QKV max_target_length=8192 attention=flash $SA2048 "LIBTPU_INIT_ARGS=$DPO $CF_AG"
run log-v6e-128-llama3.1-70b 941.976 --chip tpu-v6e --topology 8x16 -- model_name=llama3.1-70b per_device_batch_size=4 ici_fsdp_parallelism=-1 $OFF_QKV max_target_length=8192 attention=flash $SA2048 "LIBTPU_INIT_ARGS=$DPO $CF_AG"
run log-v6e-mistral-7b 7776.813 $V6E -- model_name=mistral-7b per_device_batch_size=6 ici_fsdp_parallelism=-1 $OFF_QKVO max_target_length=8192 attention=flash $SA2048 "LIBTPU_INIT_ARGS=$DPO $CF_AG $SC_AR $NO_CM"

python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
print("| run | published tokens/s | published MFU (today's) | calibrated MFU | error (pts) | roofline MFU | fits |")
print("|---|--:|--:|--:|--:|--:|---|")
for line in open(f"{out}/index"):
    name, tokens = line.split()
    log = json.load(open(f"{out}/{name}.json"))["maxtext_log"]
    flops_per_token = log["tflops_per_device_step"] / log["tokens_per_device_step"]
    published = float(tokens) * flops_per_token / log["peak_tflops_per_device"] * 100
    calibrated = log["predicted"]["mfu"] * 100
    roofline = log["roofline"]["mfu"] * 100
    print(f"| {name} | {float(tokens):,.0f} | {published:.1f} | {calibrated:.1f} | {calibrated - published:+.1f} | {roofline:.1f} | {log['fits']} |")
EOF
