"""Load safetensors weights into a model by HuggingFace name (never pickle).

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


def checkpoint_views(model: nn.Module) -> dict[str, torch.Tensor]:
    """What a checkpoint holds for `model`, by HuggingFace name: each parameter, and for a packed
    module (the model's packed_modules_mapping, as in nano-vllm) each projection's shard of its
    packed parameter, as a view (writing to it writes the parameter). A tied head and its
    embedding are two names of one Parameter."""
    packed: dict[str, list[tuple[str, int | str]]] = {}
    for name, (packed_name, shard_id) in getattr(model, "packed_modules_mapping", {}).items():
        packed.setdefault(packed_name, []).append((name, shard_id))
    views: dict[str, torch.Tensor] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        module_name, _, leaf = name.rpartition(".")
        parent, _, child = module_name.rpartition(".")
        if child not in packed:
            views[name] = param
            continue
        module = model.get_submodule(module_name)
        for checkpoint_child, shard_id in packed[child]:
            views[f"{parent}.{checkpoint_child}.{leaf}"] = module.shard(param, shard_id)
    return views


def checkpoint_tensors(model: nn.Module) -> dict[str, torch.Tensor]:
    """`model`'s weights under their HuggingFace names, ready for safetensors' save_file: packed
    parameters split back into their projections, a tied head left out (stored once, as the
    embedding, as HuggingFace saves it). Copies, so nothing shares memory."""
    tensors: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for name, view in checkpoint_views(model).items():
        if id(view) not in seen:
            seen.add(id(view))
            tensors[name] = view.detach().clone()
    return tensors


def load_model(model: nn.Module, path: str | Path) -> None:
    """Copy checkpoint tensors into `model`'s parameters, by HuggingFace name, cast to their dtype.

    q_proj / k_proj / v_proj and gate_proj / up_proj go into their shards of the packed qkv_proj and
    gate_up_proj (checkpoint_views). A tied head (the same Parameter as the embedding) may be
    absent from the checkpoint, as HF saves it; a checkpoint's extra lm_head.weight is ignored then.
    """
    tensors = read_safetensors(path)
    views = checkpoint_views(model)
    # Names of one tensor (a tied embedding and head): the first name found in the checkpoint wins.
    source: dict[int, str] = {}
    for name, view in views.items():
        if name in tensors:
            source.setdefault(id(view), name)
    missing = [n for n, v in views.items() if id(v) not in source]
    unexpected = [n for n in tensors if n not in views]
    wrong_shape = [f"{n}: checkpoint {tuple(tensors[n].shape)}, model {tuple(v.shape)}"
                   for n, v in views.items() if n in tensors and tensors[n].shape != v.shape]
    not_float = [f"{n} ({tensors[n].dtype})" for n in views if n in tensors and not tensors[n].is_floating_point()]
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
        for name, view in views.items():
            if source[id(view)] == name:
                view.copy_(tensors[name])
