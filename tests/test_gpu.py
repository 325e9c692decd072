"""CUDA against CPU in float64 (design §6): the same code gives the same numbers to 1e-10 relative.

Every test here is marked ``gpu`` and skipped when torch sees no CUDA device (see conftest.py).
"""

from __future__ import annotations

import pytest
import torch

from nnproofs.gadgets import yarotsky_square
from nnproofs.measure import nondyadic_grid
from nnproofs.pieces import breakpoints, linear_pieces
from nnproofs.squaring import check_yarotsky_square

pytestmark = pytest.mark.gpu

CPU, CUDA = torch.device("cpu"), torch.device("cuda")
RTOL = 1e-10


@pytest.fixture(autouse=True)
def no_tf32():
    """TF32 would round float32 matmuls; make sure nothing switched it back on."""
    assert not torch.backends.cuda.matmul.allow_tf32
    assert not torch.backends.cudnn.allow_tf32


def test_square_values_agree():
    x = nondyadic_grid(10**5, device=CPU)
    with torch.no_grad():
        on_cpu = yarotsky_square(12, device=CPU)(x)
        on_cuda = yarotsky_square(12, device=CUDA)(x.to(CUDA))
    assert on_cuda.device.type == "cuda"
    assert on_cuda.dtype == torch.float64
    torch.testing.assert_close(on_cuda.cpu(), on_cpu, rtol=RTOL, atol=0.0)


def test_square_check_agrees():
    ms = list(range(1, 11))
    on_cpu = check_yarotsky_square(ms, device=CPU)
    on_cuda = check_yarotsky_square(ms, device=CUDA)
    on_cpu.assert_passed()
    on_cuda.assert_passed()
    torch.testing.assert_close(torch.tensor(on_cuda.y), torch.tensor(on_cpu.y), rtol=RTOL, atol=0.0)
    assert on_cuda.measured == pytest.approx(on_cpu.measured, rel=RTOL)
    assert on_cuda.notes["linear pieces"] == on_cpu.notes["linear pieces"] == [2**m for m in ms]
    assert on_cuda.notes["parameters"] == on_cpu.notes["parameters"]


@pytest.mark.parametrize("m", [1, 4, 8, 12])
def test_linear_pieces_identical(m):
    on_cpu, on_cuda = yarotsky_square(m, device=CPU), yarotsky_square(m, device=CUDA)
    assert linear_pieces(on_cuda) == linear_pieces(on_cpu) == 2**m
    kinks_cuda = breakpoints(on_cuda)
    assert kinks_cuda.device.type == "cuda"
    torch.testing.assert_close(kinks_cuda.cpu(), breakpoints(on_cpu), rtol=0.0, atol=1e-15)
