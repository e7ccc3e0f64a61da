"""Load safetensors weights into a model by parameter name (never pickle).

Every file is read and checked before any parameter changes, so a failed load leaves the model as
it was (nothing half-loaded).
"""
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from torch import nn


def read_safetensors(path: str | Path) -> dict[str, torch.Tensor]:
    """All tensors of the *.safetensors files in a folder (or of one file)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.safetensors"))
        if not files:
            raise FileNotFoundError(f"no *.safetensors file in model folder {path}")
    elif path.is_file():
        files = [path]
    else:
        raise FileNotFoundError(f"model weights not found: {path}")
    tensors: dict[str, torch.Tensor] = {}
    for file in files:
        try:
            with safe_open(file, "pt", device="cpu") as f:
                for name in f.keys():
                    if name in tensors:
                        raise ValueError(f"tensor {name!r} appears in more than one file ({file.name})")
                    tensors[name] = f.get_tensor(name)
        except (SafetensorError, OSError) as e:
            raise ValueError(f"cannot read {file}: not a valid safetensors file ({e})") from None
    return tensors


def load_model(model: nn.Module, path: str | Path) -> None:
    """Copy checkpoint tensors into `model`'s parameters with the same names, cast to their dtype.

    Checkpoint names must equal the model's (HuggingFace names, see models/qwen3.py). A tied head
    (the same Parameter as the embedding) may be absent from the checkpoint, as HF saves it; a
    checkpoint's extra lm_head.weight is ignored then.
    """
    tensors = read_safetensors(path)
    params = dict(model.named_parameters(remove_duplicate=False))
    # Names of one Parameter (a tied embedding and head): the first name found in the checkpoint wins.
    source: dict[int, str] = {}
    for name, p in params.items():
        if name in tensors:
            source.setdefault(id(p), name)
    missing = [n for n, p in params.items() if id(p) not in source]
    unexpected = [n for n in tensors if n not in params]
    wrong_shape = [f"{n}: checkpoint {tuple(tensors[n].shape)}, model {tuple(params[n].shape)}"
                   for n, p in params.items() if n in tensors and tensors[n].shape != p.shape]
    not_float = [f"{n} ({tensors[n].dtype})" for n in params if n in tensors and not tensors[n].is_floating_point()]
    problems = []
    if not_float:  # copy_ would cast integers into the weights without a word
        problems.append(f"not floating-point: {', '.join(not_float)}")
    if missing:
        problems.append(f"missing tensors: {', '.join(missing)}")
    if unexpected:
        problems.append(f"unexpected tensors: {', '.join(unexpected)}")
    if wrong_shape:
        problems.append(f"shape mismatch: {'; '.join(wrong_shape)}")
    if problems:
        raise ValueError(f"weights in {path} do not fit the model: " + " | ".join(problems))
    with torch.no_grad():
        for name, param in params.items():
            if source[id(param)] == name:
                param.copy_(tensors[name])
