import torch
import torch.nn as nn

class Model(nn.Module):
    """
    The hashing trick on raw sparse ids (64-bit categorical hashes) before the
    lookup: each of the 26 features maps its ids into its own table with a
    per-feature modulus, row = id mod table_size[f]; every lookup of a table-batched
    embedding then adds the table's base row.
    """
    def __init__(self, table_sizes):
        super(Model, self).__init__()
        sizes = torch.tensor(table_sizes, dtype=torch.int64)
        self.register_buffer("sizes", sizes.unsqueeze(1))
        self.register_buffer("bases", (torch.cumsum(sizes, 0) - sizes).unsqueeze(1))

    def forward(self, raw_ids: torch.Tensor) -> torch.Tensor:
        """
        Args:
            raw_ids (torch.Tensor): int64 ids of shape (num_features, lookups_per_feature), non-negative.

        Returns:
            torch.Tensor: int64 global row ids of the same shape.
        """
        return torch.remainder(raw_ids, self.sizes) + self.bases

num_features = 26
lookups_per_feature = 16384 * 20
table_sizes = [1000000 + 37 * f for f in range(num_features)]

def get_inputs():
    raw_ids = torch.randint(0, 2 ** 62, (num_features, lookups_per_feature))
    return [raw_ids]

def get_init_inputs():
    return [table_sizes]
