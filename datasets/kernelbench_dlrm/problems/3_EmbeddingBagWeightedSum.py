import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Weighted sum pooling (nn.EmbeddingBag, mode='sum', per_sample_weights):
    out[b] = sum_l weights[b, l] * table[indices[b, l]].
    """
    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.embedding = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, per_sample_weights: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of shape (batch_size, pooling_factor).
            per_sample_weights (torch.Tensor): float32 weights of the same shape.

        Returns:
            torch.Tensor: pooled embeddings of shape (batch_size, embedding_dim).
        """
        return self.embedding(indices, per_sample_weights=per_sample_weights)

num_embeddings = 500000
embedding_dim = 128
batch_size = 16384
pooling_factor = 20

def get_inputs():
    indices = torch.randint(0, num_embeddings, (batch_size, pooling_factor))
    per_sample_weights = torch.rand(batch_size, pooling_factor)
    return [indices, per_sample_weights]

def get_init_inputs():
    return [num_embeddings, embedding_dim]
