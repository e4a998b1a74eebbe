"""shardcalc for Python: the calculator behind the shardcalc pages and CLI, as functions.

Every number comes from the same Rust core as the web pages and ``shardcalc eval``:
``evaluate(scenario)`` returns exactly the CLI's JSON report as a dict. Scenarios are plain
dicts (``default_scenario()``, ``from_hf_config(...)``, ``from_maxtext([...])``,
``from_torchtitan(...)``); ``set_field(scenario, path, text)`` edits one field as the page
does; tables (``table(report, name)``, ``search(...)``, ``presets()``, ``chips()``) are lists
of flat dicts that ``pandas.DataFrame`` takes as they are.

Errors are ``ShardcalcError`` (a ``ValueError``) whose ``errors`` list names each field.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _shardcalc

__all__ = [
    "ShardcalcError",
    "chips",
    "default_scenario",
    "evaluate",
    "fields",
    "from_hf_config",
    "from_maxtext",
    "from_maxtext_yaml",
    "from_torchtitan",
    "maxtext",
    "parse_maxtext_log",
    "presets",
    "flat",
    "search",
    "set_field",
    "table",
    "TABLES",
    "torchtitan",
    "__version__",
]

__version__ = _shardcalc.version()

PathOrText = Union[str, os.PathLike]


class ShardcalcError(ValueError):
    """A scenario or configuration shardcalc refused; ``errors`` names each field."""

    def __init__(self, errors: list[dict]):
        self.errors = errors
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))


def _result(text: str) -> Any:
    out = json.loads(text)
    if "errors" in out:
        raise ShardcalcError(out["errors"])
    return out["ok"]


def _dumps(value: Any) -> str:
    return json.dumps(value)


def _read(path_or_text: PathOrText) -> str:
    """A file's text, or the text itself when it is not a path to a file."""
    if isinstance(path_or_text, os.PathLike) or (
        isinstance(path_or_text, str) and "\n" not in path_or_text and os.path.isfile(path_or_text)
    ):
        with open(path_or_text, encoding="utf-8") as f:
            return f.read()
    return str(path_or_text)


def default_scenario() -> dict:
    """The default scenario: Llama 3 8B, one sequence of 4096 tokens per device."""
    return _result(_shardcalc.default_scenario())


def evaluate(scenario: Mapping, view: Optional[str] = None) -> dict:
    """The report ``shardcalc eval`` prints for ``scenario`` (docs/report.md), or, with
    ``view`` (model, hardware, training, serving, validation), what that page shows."""
    return _result(_shardcalc.evaluate(_dumps(scenario), view or ""))


def set_field(scenario: Mapping, path: str, text: Any) -> dict:
    """A copy of ``scenario`` with the field at ``path`` set from ``text`` exactly as the
    page's field reads it (``fields()`` lists them), e.g.
    ``set_field(s, "training.global_batch", "4M tokens")``."""
    return _result(_shardcalc.set_field(_dumps(scenario), path, str(text)))


def fields() -> list[dict]:
    """Every field ``set_field`` takes: path, unit, label, hint."""
    return _result(_shardcalc.fields())


def presets() -> list[dict]:
    """The model presets, one flat row each: id, name, family, parameters, layers, ..."""
    rows = []
    for p in _result(_shardcalc.presets()):
        c = p["config"]
        report = evaluate({"model": {"preset": p["id"]}, "workload": {"per_device_batch": 1, "seq_len": 4096}})
        rows.append(
            {
                "id": p["id"],
                "name": c["name"],
                "family": p.get("family"),
                "total_params": report["params"]["total"],
                "active_params": report["params"]["active"],
                "layers": c["num_layers"],
                "d_model": c["d_model"],
                "vocab_size": c["vocab_size"],
                "attention": report["model"]["attention"],
                "moe_layers": report["model"]["moe_layers"],
                "source": p.get("source"),
                "as_of": p.get("as_of"),
            }
        )
    return rows


def chips() -> list[dict]:
    """The chip catalog, one flat row each (peaks in FLOP/s, bytes, bytes/s; one-way links)."""
    rows = []
    for c in _result(_shardcalc.chips()):
        peak = c["peak_flops"]
        rows.append(
            {
                "id": c["id"],
                "name": c["name"],
                "family": c.get("family"),
                "bf16_flops": peak.get("bf16"),
                "fp8_flops": peak.get("fp8"),
                "int8_flops": peak.get("int8"),
                "hbm_bytes": c["hbm"]["capacity"],
                "hbm_bytes_per_s": c["hbm"]["bandwidth"],
                "scale_up": c["scale_up"]["name"],
                "scale_up_links": c["scale_up"]["links_per_chip"],
                "scale_up_link_one_way": c["scale_up"]["link"]["one_way"],
                "scale_out": c["scale_out"]["name"],
                "scale_out_per_chip": c["scale_out"]["bandwidth_per_chip"],
                "price_per_chip_hour_usd": c.get("price_per_chip_hour_usd"),
            }
        )
    return rows


def _workload(scenario: dict, per_device_batch: Optional[float], seq_len: Optional[int]) -> dict:
    if per_device_batch is not None:
        scenario["workload"]["per_device_batch"] = per_device_batch
    if seq_len is not None:
        scenario["workload"]["seq_len"] = seq_len
    return scenario


def from_hf_config(
    path_or_dict: Union[PathOrText, Mapping], *, per_device_batch: Optional[float] = None, seq_len: Optional[int] = None
) -> dict:
    """A scenario whose model is a Hugging Face ``config.json`` (a path, its text, or a dict);
    the importer's warnings are under the key ``import_warnings`` of the model's import
    (``from_hf_config(...)["model"]["custom"]`` is the model)."""
    text = json.dumps(path_or_dict) if isinstance(path_or_dict, Mapping) else _read(path_or_dict)
    imported = _result(_shardcalc.import_hf_config(text))
    s = default_scenario()
    s["model"] = {"custom": imported["config"]}
    return _workload(s, per_device_batch, seq_len)


def from_maxtext_yaml(
    path_or_text: PathOrText, *, per_device_batch: Optional[float] = None, seq_len: Optional[int] = None
) -> dict:
    """A scenario whose model is a MaxText model YAML (``configs/models/*.yml``)."""
    imported = _result(_shardcalc.import_maxtext_yaml(_read(path_or_text)))
    s = default_scenario()
    s["model"] = {"custom": imported["config"]}
    return _workload(s, per_device_batch, seq_len)


def _maxtext_args(args: Union[str, Sequence[str]]) -> list[str]:
    if isinstance(args, str):
        parsed = _result(_shardcalc.parse_maxtext_command(args))
        out = [parsed["base_config"]] if parsed.get("base_config") else []
        return out + [f"{o['key']}={o['text']}" for o in parsed["overrides"]]
    return [str(a) for a in args]


def _maxtext(args, chip, topology, slices, log, evaluate_it: bool) -> dict:
    args = _maxtext_args(args)
    base = None
    if args and args[0].endswith((".yml", ".yaml")) and "=" not in args[0]:
        if os.path.isfile(args[0]):
            base = _read(args[0])
        elif os.path.basename(args[0]) != "base.yml":
            raise ShardcalcError([{"field": "base_config", "message": f"{args[0]}: no such file"}])
    hardware = {"chip": chip, "topology": topology, "slices": slices}
    log_text = _read(log) if log is not None else None
    return _result(_shardcalc.maxtext(_dumps(args), base, _dumps(hardware), log_text, evaluate_it))


def from_maxtext(
    args: Union[str, Sequence[str]],
    *,
    chip: Optional[str] = None,
    topology: Optional[str] = None,
    slices: Optional[int] = None,
) -> dict:
    """The scenario of a MaxText training command line: ``train.py``'s arguments
    (``["src/maxtext/configs/base.yml", "model_name=llama3-8b", "per_device_batch_size=4"]``)
    or a pasted command or script. ``chip``, ``topology`` (``"4x4x8"``) and ``slices`` say
    where it runs (else ``compile_topology``). Its ``training`` section is the run's own mesh,
    with the search beside it. ``maxtext(...)`` also says what became of every key."""
    return _maxtext(args, chip, topology, slices, None, False)["scenario"]


def maxtext(
    args: Union[str, Sequence[str]],
    *,
    chip: Optional[str] = None,
    topology: Optional[str] = None,
    slices: Optional[int] = None,
    log: Optional[PathOrText] = None,
) -> dict:
    """Everything ``shardcalc maxtext`` prints: the report, ``maxtext`` (the scenario and
    every key: read, unknown, ignored, warnings), ``maxtext_log`` (what MaxText's log would
    print: TFLOP/s and tokens/s per device, seconds per step, MFU, GiB per device) and, with
    ``log`` (a MaxText log's path or text), ``maxtext_measured``: measured against predicted."""
    return _maxtext(args, chip, topology, slices, log, True)


def parse_maxtext_log(path_or_text: PathOrText) -> dict:
    """A MaxText log's step lines (``log``) and its steady-state step (``measured``)."""
    return _result(_shardcalc.parse_maxtext_log(_read(path_or_text)))


def _torchtitan(path_or_text, chip, gpus_per_node, nodes, hf_config, evaluate_it: bool) -> dict:
    model = None
    if hf_config is not None:
        text = json.dumps(hf_config) if isinstance(hf_config, Mapping) else _read(hf_config)
        model = _dumps(_result(_shardcalc.import_hf_config(text))["config"])
    hardware = {"chip": chip, "gpus_per_node": gpus_per_node, "nodes": nodes}
    return _result(_shardcalc.torchtitan(_read(path_or_text), _dumps(hardware), model, evaluate_it))


def from_torchtitan(
    path_or_text: PathOrText,
    *,
    chip: Optional[str] = None,
    gpus_per_node: Optional[int] = None,
    nodes: Optional[int] = None,
    hf_config: Union[PathOrText, Mapping, None] = None,
) -> dict:
    """The scenario of a torchtitan TOML training config on ``nodes`` nodes of
    ``gpus_per_node`` GPUs (default one node of ``h100-sxm``)."""
    return _torchtitan(path_or_text, chip, gpus_per_node, nodes, hf_config, False)["scenario"]


def torchtitan(
    path_or_text: PathOrText,
    *,
    chip: Optional[str] = None,
    gpus_per_node: Optional[int] = None,
    nodes: Optional[int] = None,
    hf_config: Union[PathOrText, Mapping, None] = None,
) -> dict:
    """Everything ``shardcalc torchtitan`` prints: the report and the import (``torchtitan``)."""
    return _torchtitan(path_or_text, chip, gpus_per_node, nodes, hf_config, True)


def search(
    scenario: Optional[Mapping] = None,
    *,
    preset: Optional[str] = None,
    chip: Optional[str] = None,
    topology: Optional[str] = None,
    slices: Optional[int] = None,
    global_batch_tokens: Optional[float] = None,
    global_batch_sequences: Optional[int] = None,
    seq_len: Optional[int] = None,
    top: int = 10,
) -> list[dict]:
    """The training search's fastest configurations, best first (one flat row each): for
    ``scenario`` (default the default scenario; without hardware, the training page's TPU
    v5p 4x4x4) with ``preset``, ``chip``, ``topology`` (``"8x8x8"``), ``slices``, the global
    batch in tokens or sequences, and ``seq_len`` set on top. An explicit mesh is left aside:
    every mesh is searched."""
    s = json.loads(json.dumps(scenario)) if scenario is not None else default_scenario()
    if preset is not None:
        s["model"] = {"preset": preset}
    # The training page's hardware when the scenario names none (a TPU v5p 4x4x4).
    if "hardware" not in s and chip is None:
        s = set_field(s, "hardware.chip", "tpu-v5p")
    for path, value in (
        ("hardware.chip", chip),
        ("hardware.topology", topology),
        ("hardware.topology.slices", slices),
        ("training.seq_len", seq_len),
        ("training.global_batch.unit", "tokens" if global_batch_tokens is not None else None),
        ("training.global_batch", global_batch_tokens),
        ("training.global_batch.unit", "sequences" if global_batch_sequences is not None else None),
        ("training.global_batch", global_batch_sequences),
    ):
        if value is not None:
            s = set_field(s, path, value)
    if "training" not in s:
        s = set_field(s, "training.seq_len", s["workload"]["seq_len"])
    training = s["training"]
    training.pop("mesh", None)
    training.pop("microbatches", None)
    training.setdefault("search", {})["top"] = top
    return table(evaluate(s), "search")


def flat(row: Mapping) -> dict:
    """A nested dict as one flat row: ``{"mesh": {"dp": 2}}`` → ``{"mesh_dp": 2}``; lists
    become JSON text."""
    out: dict = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(f"{prefix}_{k}" if prefix else str(k), v)
        elif isinstance(value, list):
            out[prefix] = json.dumps(value)
        else:
            out[prefix] = value

    walk("", row)
    return out


def _training(report: Mapping) -> Mapping:
    t = report.get("training")
    if not t:
        raise ShardcalcError([{"field": "training", "message": "the report has no training section"}])
    return t


def _rows(items: Iterable[Mapping]) -> list[dict]:
    return [flat(r) for r in items]


TABLES = {
    "params": lambda r: _rows(r["params"]["breakdown"]),
    "flops": lambda r: [
        dict(convention=c, **flat(row))
        for c in ("maxtext", "notebook", "six_nd", "book")
        for row in r["flops"][c]["rows"]
    ],
    "notebook_params": lambda r: _rows(r["notebook"]["params"]),
    "notebook_flops": lambda r: _rows(r["notebook"]["flops"]),
    "search": lambda r: _rows((_training(r).get("search") or {}).get("best", [])),
    "pareto": lambda r: _rows((_training(r).get("search") or {}).get("pareto", [])),
    "memory": lambda r: _rows(_training(r)["memory"]["breakdown"]),
    "breakdown": lambda r: [{"term": k, "seconds": v} for k, v in _training(r)["breakdown"].items()],
    "communication": lambda r: _rows(_training(r)["communication"]),
    "maxtext_measured": lambda r: _rows((r.get("maxtext_measured") or {}).get("terms", [])),
    "maxtext_keys": lambda r: [
        dict(disposition=d, **flat(k))
        for d in ("read", "warnings", "unknown", "ignored")
        for k in r["maxtext"]["keys"][d]
    ],
}


def table(report: Mapping, name: str) -> list[dict]:
    """One table of a report as a list of flat dicts (``pandas.DataFrame(table(r, name))``):
    ``params``, ``flops`` (every convention), ``notebook_params``, ``notebook_flops`` (MaxText's
    LLM-calculator notebook, printed and correct), ``search``, ``pareto``, ``memory``,
    ``breakdown``, ``communication``, and for ``maxtext(...)``'s report ``maxtext_measured`` and
    ``maxtext_keys``."""
    try:
        return TABLES[name](report)
    except KeyError as e:
        if name not in TABLES:
            raise ShardcalcError([{"field": "name", "message": f"unknown table {name!r}; tables: {', '.join(TABLES)}"}]) from None
        raise ShardcalcError([{"field": name, "message": f"the report has no {e}"}]) from None
