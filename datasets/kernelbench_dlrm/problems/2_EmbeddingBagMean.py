import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Mean-pooled embedding lookup (nn.EmbeddingBag, mode='mean') over a large table
    with a high pooling factor: out[b] = mean_l table[indices[b, l]].
    """
    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.embedding = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="mean")

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of shape (batch_size, pooling_factor).

        Returns:
            torch.Tensor: pooled embeddings of shape (batch_size, embedding_dim).
        """
        return self.embedding(indices)

num_embeddings = 4000000
embedding_dim = 64
batch_size = 8192
pooling_factor = 80

def get_inputs():
    indices = torch.randint(0, num_embeddings, (batch_size, pooling_factor))
    return [indices]

def get_init_inputs():
    return [num_embeddings, embedding_dim]
