"""The largest logit of each row: what greedy decoding and the Gumbel-max trick sample."""
import torch

# numpy takes these dtypes as they are (bfloat16 it has not).
NUMPY_FLOATS = (torch.float16, torch.float32, torch.float64)


def argmax_rows(x: torch.Tensor) -> torch.Tensor:
    """x.argmax(dim=-1): per row the index of the largest entry, the first one on a tie (or the first
    NaN). On CPU numpy computes it: torch's CPU argmax over the last dim is not vectorised, 0.3 ms
    of a 6 ms decode step at batch 32 over a 4 096-word vocabulary, where numpy's takes 15 µs and
    picks the same index."""
    if x.device.type == "cpu" and x.dtype in NUMPY_FLOATS:
        return torch.from_numpy(x.numpy().argmax(axis=-1))
    return x.argmax(dim=-1)
