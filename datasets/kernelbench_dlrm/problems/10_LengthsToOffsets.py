import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Jagged sparse-feature bookkeeping: the per-bag lengths of every feature become
    offsets (exclusive prefix sum, with the total appended), as a KeyedJaggedTensor
    does before a table-batched lookup. Lengths of all features are one flat array
    (feature-major), so the offsets run on across features.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, lengths: torch.Tensor) -> torch.Tensor:
        """
        Args:
            lengths (torch.Tensor): int64 bag lengths of shape (num_features * batch_size,).

        Returns:
            torch.Tensor: int64 offsets of shape (num_features * batch_size + 1,).
        """
        zero = torch.zeros(1, dtype=lengths.dtype, device=lengths.device)
        return torch.cat([zero, torch.cumsum(lengths, dim=0)])

num_features = 26
batch_size = 65536
max_length = 80

def get_inputs():
    lengths = torch.randint(0, max_length, (num_features * batch_size,))
    return [lengths]

def get_init_inputs():
    return []
