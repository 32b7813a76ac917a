import torch
import torch.nn as nn

class Model(nn.Module):
    """
    LayerNorm over the hidden dimension of a bf16 activation, as every GPT-2
    block runs it twice (ln_1, ln_2) and once at the end (ln_f).
    """
    def __init__(self, hidden_size, eps):
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(hidden_size, eps=eps).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): bf16 activations of shape (batch_size, seq_len, hidden_size).

        Returns:
            torch.Tensor: normalised activations, same shape and dtype.
        """
        return self.ln(x)

batch_size = 8
seq_len = 1024
hidden_size = 768
eps = 1e-5

def get_inputs():
    x = torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16)
    return [x]

def get_init_inputs():
    return [hidden_size, eps]
