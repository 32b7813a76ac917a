import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Softmax over the last dimension of uniform [0, 1) inputs (a Kernel
    Workbench test problem in KernelBench's format). Each output is about
    1/dim, below KernelBench's fp32 tolerance of 1e-4, so an all-zeros output
    passes its allclose: the problem exists to show zero acceptance.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 2048
dim = 32768


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
