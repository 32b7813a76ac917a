import torch
import torch.nn as nn


class Model(nn.Module):
    """
    C = diag(A) * B (a Kernel Workbench test problem in KernelBench's format,
    shaped like KernelBench v0's level-1 problem 12): the reference builds the
    N x N diagonal matrix and multiplies, which a row scaling does in a
    fraction of the time -- an honest large speedup.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.diag(A) @ B


N = 4096
M = 4096


def get_inputs():
    A = torch.randn(N)
    B = torch.randn(N, M)
    return [A, B]


def get_init_inputs():
    return []
