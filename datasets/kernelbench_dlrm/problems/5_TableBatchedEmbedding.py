import torch
import torch.nn as nn

class Model(nn.Module):
    """
    The sparse half of a DLRM forward: one sum-pooled nn.EmbeddingBag per sparse
    feature (26 tables, as Criteo has), each looked up with its own bags, the
    pooled vectors concatenated per sample.
    """
    def __init__(self, num_tables, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.tables = nn.ModuleList(
            [nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum") for _ in range(num_tables)])

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of shape (num_tables, batch_size, pooling_factor).

        Returns:
            torch.Tensor: shape (batch_size, num_tables * embedding_dim).
        """
        return torch.cat([table(indices[t]) for t, table in enumerate(self.tables)], dim=1)

num_tables = 26
num_embeddings = 100000
embedding_dim = 64
batch_size = 4096
pooling_factor = 20

def get_inputs():
    indices = torch.randint(0, num_embeddings, (num_tables, batch_size, pooling_factor))
    return [indices]

def get_init_inputs():
    return [num_tables, num_embeddings, embedding_dim]
