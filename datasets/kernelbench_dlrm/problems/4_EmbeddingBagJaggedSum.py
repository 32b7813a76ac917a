import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Sum pooling over variable-length bags (the jagged input a recommender actually
    receives): bag b covers indices[offsets[b]:offsets[b+1]] (offsets has
    batch_size + 1 entries, the last one the number of indices).
    """
    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.embedding = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum", include_last_offset=True)

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of shape (total_lookups,).
            offsets (torch.Tensor): int64 bag starts of shape (batch_size + 1,).

        Returns:
            torch.Tensor: pooled embeddings of shape (batch_size, embedding_dim).
        """
        return self.embedding(indices, offsets)

num_embeddings = 2000000
embedding_dim = 64
batch_size = 16384
mean_pooling = 40

def get_inputs():
    # Pooling factors uniform over [1, 2 * mean_pooling - 1]: mean 40, some bags of 1.
    lengths = torch.randint(1, 2 * mean_pooling, (batch_size,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=lengths.device), torch.cumsum(lengths, 0)])
    indices = torch.randint(0, num_embeddings, (int(offsets[-1].item()),))
    return [indices, offsets]

def get_init_inputs():
    return [num_embeddings, embedding_dim]
