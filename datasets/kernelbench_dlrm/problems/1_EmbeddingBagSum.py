import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Sum-pooled embedding lookup of one sparse feature (nn.EmbeddingBag, mode='sum'),
    fixed-length bags: out[b] = sum_l table[indices[b, l]].
    """
    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.embedding = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of shape (batch_size, pooling_factor).

        Returns:
            torch.Tensor: pooled embeddings of shape (batch_size, embedding_dim).
        """
        return self.embedding(indices)

num_embeddings = 1000000
embedding_dim = 128
batch_size = 16384
pooling_factor = 32

def get_inputs():
    indices = torch.randint(0, num_embeddings, (batch_size, pooling_factor))
    return [indices]

def get_init_inputs():
    return [num_embeddings, embedding_dim]
