import torch
import torch.nn as nn

class Model(nn.Module):
    """
    DLRM's dot interaction: the bottom-MLP output and the pooled embeddings form
    F = num_sparse + 1 feature vectors per sample; every pair's dot product below
    the diagonal is kept and concatenated after the dense vector.
    """
    def __init__(self, num_features):
        super(Model, self).__init__()
        li, lj = torch.tril_indices(num_features, num_features, offset=-1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)

    def forward(self, dense: torch.Tensor, sparse: torch.Tensor) -> torch.Tensor:
        """
        Args:
            dense (torch.Tensor): shape (batch_size, dim), the bottom MLP's output.
            sparse (torch.Tensor): shape (batch_size, num_features - 1, dim), pooled embeddings.

        Returns:
            torch.Tensor: shape (batch_size, dim + num_features * (num_features - 1) / 2).
        """
        t = torch.cat([dense.unsqueeze(1), sparse], dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        return torch.cat([dense, z[:, self.li, self.lj]], dim=1)

batch_size = 16384
num_features = 27
dim = 128

def get_inputs():
    dense = torch.rand(batch_size, dim)
    sparse = torch.rand(batch_size, num_features - 1, dim)
    return [dense, sparse]

def get_init_inputs():
    return [num_features]
