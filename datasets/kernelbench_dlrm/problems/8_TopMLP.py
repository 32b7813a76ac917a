import torch
import torch.nn as nn

class Model(nn.Module):
    """
    DLRM's top MLP on the interaction output (MLPerf: 479-1024-1024-512-256-1),
    ReLU between layers and a sigmoid on the click probability.
    """
    def __init__(self, layer_sizes):
        super(Model, self).__init__()
        layers = []
        for i in range(len(layer_sizes) - 1):
            layers.append(nn.Linear(layer_sizes[i], layer_sizes[i + 1]))
            layers.append(nn.ReLU() if i < len(layer_sizes) - 2 else nn.Sigmoid())
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): interaction output of shape (batch_size, 479).

        Returns:
            torch.Tensor: click probabilities of shape (batch_size, 1).
        """
        return self.mlp(x)

batch_size = 16384
layer_sizes = [479, 1024, 1024, 512, 256, 1]

def get_inputs():
    x = torch.rand(batch_size, layer_sizes[0])
    return [x]

def get_init_inputs():
    return [layer_sizes]
