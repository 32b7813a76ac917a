import torch
import torch.nn as nn

class Model(nn.Module):
    """
    DLRM's bottom MLP on the 13 dense Criteo features (MLPerf: 13-512-256-128),
    ReLU after every layer.
    """
    def __init__(self, layer_sizes):
        super(Model, self).__init__()
        layers = []
        for i in range(len(layer_sizes) - 1):
            layers += [nn.Linear(layer_sizes[i], layer_sizes[i + 1]), nn.ReLU()]
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): dense features of shape (batch_size, 13).

        Returns:
            torch.Tensor: shape (batch_size, 128).
        """
        return self.mlp(x)

batch_size = 16384
layer_sizes = [13, 512, 256, 128]

def get_inputs():
    x = torch.rand(batch_size, layer_sizes[0])
    return [x]

def get_init_inputs():
    return [layer_sizes]
