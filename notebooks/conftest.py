"""nbval without clocks tuned to a quiet machine (for `make test` and `make test-portable`).

nbval 0.11 waits 5 s for each output message after a cell's reply (``IPyNbCell.output_timeout``), 10 s for
the reply to its first ``kernel_info`` request and 30 s in all for the kernel's output channel to come up
(``RunningKernel._ensure_iopub_up``). On a machine whose cores are busy with other work, a reply can take
longer than that without anything being wrong, and the cell then fails with "Timeout of 5 seconds exceeded
waiting for output". These limits only stop a kernel that can no longer answer, so here they are as generous
as the per-cell limit (``--nbval-cell-timeout`` in the Makefile). The logic is nbval's own; only the limits
change.
"""

from __future__ import annotations

import time
from queue import Empty

import nbval.kernel
import nbval.plugin

LIMIT = 300.0  # seconds: as the Makefile's --nbval-cell-timeout
POLL = 1.0  # seconds between kernel_info requests while the output channel comes up


def _cell_init(self, *args, **kwargs):
    _nbval_cell_init(self, *args, **kwargs)
    self.output_timeout = LIMIT


def _ensure_iopub_up(self):
    """Ask ``kernel_info`` until its ``idle`` status arrives on the output channel (subscribing takes a moment,
    so the first status can be lost), for at most :data:`LIMIT` seconds."""
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        msg_id = self.kc.kernel_info()
        try:
            self.await_reply(msg_id, timeout=LIMIT)
        except Empty:
            raise RuntimeError(f"the kernel did not answer kernel_info within {LIMIT:.0f} s") from None
        try:
            self.await_idle(msg_id, POLL)
            return
        except Empty:
            continue
    raise RuntimeError(f"the kernel's output channel did not come up within {LIMIT:.0f} s")


_nbval_cell_init = nbval.plugin.IPyNbCell.__init__
nbval.plugin.IPyNbCell.__init__ = _cell_init
nbval.kernel.RunningKernel._ensure_iopub_up = _ensure_iopub_up
