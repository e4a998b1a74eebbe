"""The shardcalc Python package against published numbers and the CLI's own tests' fixtures.

Run by ./dev.sh test (scripts/python-test.sh) on the wheel built from core.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import shardcalc

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "cli" / "tests" / "fixtures"


def test_evaluate_is_the_cli_report():
    report = shardcalc.evaluate(shardcalc.default_scenario())
    # Llama 3 8B's published parameter count (its config.json's safetensors total).
    assert report["params"]["total"] == 8_030_261_248
    for key in ("model", "params", "workload", "flops", "notebook"):
        assert key in report
    view = shardcalc.evaluate(shardcalc.default_scenario(), view="training")
    assert view["devices"] == 64, "the training page's default TPU v5p 4x4x4"


def test_presets_and_chips():
    presets = {p["id"]: p for p in shardcalc.presets()}
    assert presets["llama-3-70b"]["total_params"] == 70_553_706_496
    assert presets["mixtral-8x7b"]["active_params"] < presets["mixtral-8x7b"]["total_params"]
    chips = {c["id"]: c for c in shardcalc.chips()}
    # Google Cloud's TPU v5p page: 459 TFLOP/s bf16, 95 GB HBM.
    assert chips["tpu-v5p"]["bf16_flops"] == 459e12
    assert chips["tpu-v5p"]["hbm_bytes"] == 96e9


def test_from_hf_config_counts_a_small_model_by_hand():
    config = {
        "model_type": "llama",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 128,
        "vocab_size": 100,
    }
    # Embedding and head 2·100·64; per layer q, o 64·64 each, k, v 64·32 each, MLP 3·64·128,
    # two norms 2·64; the final norm 64.
    by_hand = 2 * 100 * 64 + 2 * (2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 2 * 64) + 64
    assert shardcalc.evaluate(shardcalc.from_hf_config(config))["params"]["total"] == by_hand


def test_errors_name_their_field():
    with pytest.raises(shardcalc.ShardcalcError) as e:
        shardcalc.evaluate({"model": {"preset": "nope"}, "workload": {"per_device_batch": 1, "seq_len": 8}})
    assert e.value.errors[0]["field"] == "model.preset"
    assert isinstance(e.value, ValueError)
    with pytest.raises(shardcalc.ShardcalcError):
        shardcalc.set_field(shardcalc.default_scenario(), "workload.seq_len", "many")
    assert any(f["path"] == "training.global_batch" for f in shardcalc.fields())


@pytest.mark.parametrize(
    "preset, batch, seq, edit, printed",
    [
        # MaxText's LLM-calculator notebook as printed (3 significant figures):
        ("mistral-7b", 1, 4096, {"model.layout.pattern": "G"}, {"Total": 7.24e9, "TFLOPs": 201}),
        ("mixtral-8x7b", 1, 4096, {"model.num_layers": "5"}, {"Total": 7.52e9, "Active": 2.23e9, "TFLOPs": 55.8}),
        ("deepseek-v3", 8, 8192, {}, {"Total": 6.71e11, "Active": 3.76e10}),
    ],
)
def test_the_notebook_s_three_tables(preset, batch, seq, edit, printed):
    s = {"model": {"preset": preset}, "workload": {"per_device_batch": batch, "seq_len": seq}}
    for path, text in edit.items():
        s = shardcalc.set_field(s, path, text)
    report = shardcalc.evaluate(s)
    params = {r["label"]: r["printed"] for r in shardcalc.table(report, "notebook_params")}
    flops = {r["label"]: r["printed"] for r in shardcalc.table(report, "notebook_flops")}
    for label, value in printed.items():
        got = flops["Total"] if label == "TFLOPs" else params[label]
        assert float(f"{got:.3g}") == value, (label, got)


def test_the_example_runs():
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "llm_calculator.py")], capture_output=True, text=True, check=True
    ).stdout
    # The notebook's three tables (parameters and TFLOPs each), then the steps it never had.
    for family in ("Dense (Mistral 7B)", "Mixtral-like (8x7B, 5 layers)", "DeepSeek-like (V3)"):
        for table in ("parameters", "TFLOPs per device per step"):
            assert f"## {family}: {table}" in out, (family, table)
    # The notebook's printed totals, as the parametrized test above checks them through the API.
    for total in ("7241732096", "7519645696", "201.13", "55.79"):
        assert total in out, total
    assert "completed step: 1, seconds:" in out


def _flat_and_regular(rows):
    assert rows, "a table has rows"
    for row in rows:
        assert all(not isinstance(v, (dict, list)) for v in row.values()), row
    return rows


def test_tables_are_what_pandas_takes():
    report = shardcalc.maxtext(
        ["model_name=llama3-8b", "per_device_batch_size=2", "ici_tensor_parallelism=2", "no_such_key=1"],
        chip="tpu-v5p",
        topology="4x4x4",
    )
    for name in ("params", "flops", "notebook_params", "notebook_flops", "search", "pareto", "memory", "breakdown",
                 "communication", "maxtext_keys"):
        _flat_and_regular(shardcalc.table(report, name))
    for rows in (shardcalc.presets(), shardcalc.chips()):
        _flat_and_regular(rows)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(shardcalc.table(report, "search"))
    assert {"mesh_fsdp", "step_time_s", "mfu"} <= set(frame.columns)
    with pytest.raises(shardcalc.ShardcalcError):
        shardcalc.table(report, "nope")


def test_search_is_fastest_first():
    rows = shardcalc.search(preset="llama-3-8b", topology="4x4x4", global_batch_tokens=2**20, top=5)
    assert 1 <= len(rows) <= 5
    times = [r["step_time_s"] for r in rows]
    assert times == sorted(times)
    assert all(r["mesh_dp"] * r["mesh_fsdp"] * r["mesh_tp"] * r["mesh_ep"] * r["mesh_cp"] * r["mesh_pp"] == 64 for r in rows)


ARGS = ["src/maxtext/configs/base.yml", "model_name=llama3-8b", "per_device_batch_size=2",
        "max_target_length=8192", "remat_policy=minimal", "ici_fsdp_parallelism=-1"]


def test_from_maxtext_is_evaluated_as_maxtext_reports_it():
    scenario = shardcalc.from_maxtext(ARGS, chip="tpu-v5p", topology="4x4x4")
    report = shardcalc.maxtext(ARGS, chip="tpu-v5p", topology="4x4x4")
    assert shardcalc.evaluate(scenario)["training"] == report["training"]
    assert report["training"]["mesh"]["fsdp"] == 64
    log = report["maxtext_log"]
    assert log["tokens_per_device_step"] == 2 * 8192
    step = report["training"]["step_time_s"]
    assert math.isclose(log["predicted"]["tflops_per_s_per_device"], log["tflops_per_device_step"] / step)
    # The same run pasted as a shell line.
    pasted = shardcalc.from_maxtext("python3 -m MaxText.train " + " ".join(ARGS), chip="tpu-v5p", topology="4x4x4")
    assert pasted == scenario


def test_a_published_run_gives_back_its_logged_tflops():
    # v5p-readme-32b-1xv5p-128: 3252.4 TFLOPs per device and step, 9.92 s: 328 TFLOP/s (README).
    base = FIXTURES / "maxtext" / "base-2023-12.yml"
    args = [str(base), "per_device_batch_size=8", "remat_policy=minimal", "global_parameter_scale=32",
            "ici_fsdp_parallelism=-1", "ici_tensor_parallelism=4", "max_target_length=2048"]
    report = shardcalc.maxtext(args, chip="tpu-v5p", topology="4x4x4")
    tflops = report["maxtext_log"]["tflops_per_device_step"]
    assert abs(tflops - 3252.4) < 0.05
    assert abs(tflops / 9.92 - 328) / 328 < 1e-3


def test_a_log_is_compared_term_by_term():
    log = (
        "completed step: 0, seconds: 80.000, TFLOP/s/device: 10.000, Tokens/s/device: 100.000, total_weights: 1, loss: 11\n"
        "completed step: 1, seconds: 7.000, TFLOP/s/device: 240.000, Tokens/s/device: 2340.571, total_weights: 1, loss: 9\n"
    )
    report = shardcalc.maxtext(ARGS, chip="tpu-v5p", topology="4x4x4", log=log)
    terms = {t["quantity"]: t for t in shardcalc.table(report, "maxtext_measured")}
    assert terms["seconds per step"]["measured"] == 7.0
    assert "MFU" in terms
    assert shardcalc.parse_maxtext_log(log)["measured"]["steps"] == [1]


def test_torchtitan():
    config = FIXTURES / "torchtitan" / "llama3_8b.toml"
    scenario = shardcalc.from_torchtitan(config, nodes=8)
    assert scenario["training"]["mesh"]["fsdp"] == 64
    report = shardcalc.torchtitan(config, nodes=8)
    assert shardcalc.evaluate(scenario)["training"] == report["training"]
    json.dumps(report)
