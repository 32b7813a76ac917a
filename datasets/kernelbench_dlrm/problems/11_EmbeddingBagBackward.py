import torch
import torch.nn as nn

class Model(nn.Module):
    """
    The backward of a sum-pooled embedding bag, as a training step runs it: the
    gradient of every bag is scattered (added) to each row the bag looked up,
    giving the dense gradient of the table.
    """
    def __init__(self, num_embeddings):
        super(Model, self).__init__()
        self.num_embeddings = num_embeddings

    def forward(self, indices: torch.Tensor, grad_output: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of shape (batch_size, pooling_factor).
            grad_output (torch.Tensor): gradient of the pooled output, shape (batch_size, embedding_dim).

        Returns:
            torch.Tensor: the table's gradient, shape (num_embeddings, embedding_dim).
        """
        pooling = indices.shape[1]
        grad_weight = torch.zeros(self.num_embeddings, grad_output.shape[1], dtype=grad_output.dtype,
                                  device=grad_output.device)
        return grad_weight.index_add_(0, indices.reshape(-1), grad_output.repeat_interleave(pooling, dim=0))

num_embeddings = 1000000
embedding_dim = 64
batch_size = 16384
pooling_factor = 32

def get_inputs():
    indices = torch.randint(0, num_embeddings, (batch_size, pooling_factor))
    grad_output = torch.randn(batch_size, embedding_dim)
    return [indices, grad_output]

def get_init_inputs():
    return [num_embeddings]
