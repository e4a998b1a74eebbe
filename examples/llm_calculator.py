"""MaxText's LLM-calculator notebook (docs/guides/llm_calculator.ipynb), with shardcalc.

Cells 1-3 reproduce the notebook's three tables -- a dense model, a Mixtral-like MoE and a
DeepSeek-like MoE, parameters and TFLOPs per device per training step -- as it prints them,
with the correct number beside every row it gets wrong and the reason (core/src/notebook.rs).
Cells 4-7 go where the notebook stops: the mesh and step time on a TPU slice, a MaxText run
and what its log will print, and serving.

Run it as a script (`python examples/llm_calculator.py`) or paste the cells into Jupyter;
with pandas installed the tables print as DataFrames.
"""

import shardcalc

try:
    import pandas as pd
except ImportError:  # the tables are lists of dicts either way
    pd = None


def show(title, rows, columns=None):
    """Print a table (a list of flat dicts) as a DataFrame when pandas is there."""
    print(f"\n## {title}")
    if pd is not None:
        frame = pd.DataFrame(rows)
        print(frame[columns].to_string(index=False) if columns else frame.to_string(index=False))
        return
    for row in rows:
        print({k: row[k] for k in columns} if columns else row)


def notebook_tables(model, per_device_batch, seq_len, edit=None):
    """The notebook's parameter and FLOPs tables for a preset at a batch and sequence."""
    scenario = {"model": {"preset": model}, "workload": {"per_device_batch": per_device_batch, "seq_len": seq_len}}
    if edit:
        for path, text in edit.items():
            scenario = shardcalc.set_field(scenario, path, text)
    report = shardcalc.evaluate(scenario)
    return shardcalc.table(report, "notebook_params"), shardcalc.table(report, "notebook_flops")


COLUMNS = ["label", "printed", "correct", "discrepancy"]

# %% 1. Dense: the notebook's dense example is Mistral 7B with every layer global, 1 x 4096 tokens.
params, flops = notebook_tables("mistral-7b", 1, 4096, {"model.layout.pattern": "G"})
show("Dense (Mistral 7B): parameters", params, COLUMNS)
show("Dense (Mistral 7B): TFLOPs per device per step", flops, COLUMNS)

# %% 2. Mixtral-like MoE: the notebook's example is Mixtral 8x7B cut to 5 layers, 1 x 4096.
params, flops = notebook_tables("mixtral-8x7b", 1, 4096, {"model.num_layers": "5"})
show("Mixtral-like (8x7B, 5 layers): parameters", params, COLUMNS)
show("Mixtral-like (8x7B, 5 layers): TFLOPs per device per step", flops, COLUMNS)

# %% 3. DeepSeek-like MoE: DeepSeek-V3, 8 x 8192 tokens per device.
params, flops = notebook_tables("deepseek-v3", 8, 8192)
show("DeepSeek-like (V3): parameters", params, COLUMNS)
show("DeepSeek-like (V3): TFLOPs per device per step", flops, COLUMNS)

# %% 4. Beyond the notebook: which mesh, what step time, what MFU -- Llama 3 70B on a TPU v5p
# 8x8x8 slice (512 chips) at 4M tokens per step, searched over every mesh, remat policy,
# microbatch count, ZeRO stage and pipeline schedule.
best = shardcalc.search(preset="llama-3-70b", topology="8x8x8", global_batch_tokens=4 * 2**20, seq_len=8192, top=5)
show(
    "Llama 3 70B on TPU v5p 8x8x8, 4M tokens per step: the search's fastest",
    best,
    ["mesh_dp", "mesh_fsdp", "mesh_tp", "mesh_pp", "remat", "microbatches", "step_time_s", "mfu", "memory_bytes"],
)

# %% 5. A MaxText run as MaxText's own command line, and the numbers its log will print.
run = shardcalc.maxtext(
    ["src/maxtext/configs/base.yml", "model_name=llama3-8b", "per_device_batch_size=4",
     "max_target_length=8192", "remat_policy=full", "ici_fsdp_parallelism=-1"],
    chip="tpu-v5p",
    topology="4x4x4",
)
print("\n## MaxText llama3-8b on v5p-128: what its log will print")
for line in run["maxtext_log"]["lines"]:
    print(line)
show("The step, term by term (seconds)", shardcalc.table(run, "breakdown"))

# %% 6. The search's best beside the run's own mesh.
show("...and the search's best for the same run", shardcalc.table(run, "search")[:3],
     ["mesh_fsdp", "mesh_tp", "remat", "microbatches", "step_time_s", "mfu"])

# %% 7. Serving: Llama 3 70B on a TPU v6e 2x4 slice (8 chips), 1024-token prompts, 256 out.
serving = {"model": {"preset": "llama-3-70b"}, "workload": {"per_device_batch": 1, "seq_len": 1024}}
for path, text in [("hardware.chip", "tpu-v6e"), ("hardware.topology", "2x4"),
                   ("inference.prompt_len", "1024"), ("inference.output_len", "256")]:
    serving = shardcalc.set_field(serving, path, text)
inference = shardcalc.evaluate(serving)["inference"]
decode, prefill = inference["decode"], inference["prefill"]
print("\n## Serving Llama 3 70B on TPU v6e 2x4 (1024 tokens in, 256 out)")
print(f"KV cache per token: {inference['kv_bytes_per_token']:.0f} bytes; largest batch: {inference['max_batch']}")
print(f"decode step: {decode['step_time_s'] * 1e3:.1f} ms ({decode['binds']}), "
      f"{decode['tokens_per_s_per_chip']:.0f} tokens/s per chip")
print(f"prefill: {prefill.get('time_s', prefill.get('step_time_s', 0)) * 1e3:.1f} ms per request")
