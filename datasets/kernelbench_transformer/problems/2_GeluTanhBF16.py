import math

import torch
import torch.nn as nn

class Model(nn.Module):
    """
    GPT-2's MLP activation (transformers' NewGELUActivation, the tanh
    approximation) on a bf16 activation of the MLP's inner width:
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): bf16 activations of shape (batch_size, seq_len, inner_size).

        Returns:
            torch.Tensor: the activation, same shape and dtype.
        """
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

batch_size = 8
seq_len = 1024
inner_size = 3072

def get_inputs():
    x = torch.randn(batch_size, seq_len, inner_size, dtype=torch.bfloat16)
    return [x]

def get_init_inputs():
    return []
