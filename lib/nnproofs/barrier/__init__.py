"""Chapter 4: constructive low-loss paths between shallow ReLU networks, and their barriers.

The networks are bias-free shallow ReLU networks on :math:`\\mathbb{R}^n`,

.. math::

    f_\\theta(x) = \\sum_{j=1}^m a_j\\,\\rho(w_j \\cdot x), \\qquad \\lVert w_j \\rVert \\le 1,

    \\theta = (W, a),\\ W \\in \\mathbb{R}^{m\\times n},\\ a \\in \\mathbb{R}^m,

with the cost (definition ``def-barrier-cost``) :math:`C(\\theta) = \\frac1N\\sum_i \\ell(f_\\theta(x_i), y_i)
+ \\lambda\\lVert a\\rVert_1` for a convex, :math:`L`-Lipschitz loss (``huber``: :math:`L = \\delta_H = 1/2`;
``bce`` on logits: :math:`L = 1`). The barrier of a path :math:`\\gamma` is
:math:`B(\\gamma) = \\max_t C(\\gamma(t)) - \\max(C(\\gamma(0)), C(\\gamma(1)))`.

The API, in the chapter's order:

* networks and cost (``def-barrier-cost``): :func:`as_network`, :func:`as_pair`, :func:`forward` (and
  :func:`function_roundoff`, the float64 error bound of each computed ``f(x_i)``), :func:`cost`, the losses :data:`LOSSES` / :func:`get_loss` (verified convex and Lipschitz);
* the path of Theorem ``thm-barrier-decay`` (our reconstruction of Baturin 2026), segment by segment:
  :func:`constructive_path` (prune / spherize, merge, consolidate, free moves, the bridge in output
  weights, transfers, the second network's steps reversed), its covers :func:`sphere_cover`,
  :func:`ball_cover`, :func:`weighted_kmeans`, and the types :class:`Segment`, :class:`Path`,
  :class:`Canonical`;
* the cost along a path: :func:`profile`, :func:`barrier`, :func:`barriers`, and :func:`audit`, which
  checks that the path joins ``A`` to ``B`` continuously and every segment's form (:func:`form_problem`)
  and guarantee (``GUARANTEES``) on data; every function's cost estimate lives in ``costs``;
* networks to connect: :func:`spread_network` / :func:`spread_pairs` (worst case), :func:`teacher_data`,
  :func:`train_networks`, and :func:`tight_pair` (where the certificate is nearly attained, for both
  covers, both losses, both orders, n = 2 and 3: :func:`tight_audits`);
* the path finders without a guarantee: :func:`straight_line`, :func:`weight_matching`,
  :func:`matched_line`, :func:`bezier_paths`, and :func:`compare_paths` / :func:`path_finders`;
* the claims: :func:`check_barrier_decay` (worst-case rate, ``thm-barrier-decay``),
  :func:`check_trained_barriers` (the certificate on trained networks), :func:`check_zero_barrier_1d`
  (``thm-barrier-1d``), with :func:`spread_certificate_slopes`, :func:`default_widths`,
  :func:`default_seeds`; their ledger registrations live in ``claims``;
* figures: :func:`draw_profile`, :func:`draw_path_state`, :func:`draw_directions`.
"""

from . import claims  # registers the chapter's claims with the ledger
from .baselines import (
    METHODS,
    POINTS_PER_SEGMENT,
    bezier_paths,
    compare_paths,
    matched_line,
    path_finders,
    straight_line,
    weight_matching,
)
from .checks import (
    REQ_FORM,
    REQ_JOINTS,
    TIGHT_DIMENSIONS,
    TIGHT_ORDERS,
    TIGHT_RATIO,
    tight_audits,
    REQ_BRIDGE,
    REQ_CERTIFICATE,
    REQ_CONSTANT,
    REQ_EXACT,
    REQ_FEASIBLE,
    REQ_MONOTONE,
    REQ_ORDER,
    REQ_OUTPUT,
    REQ_TIGHT,
    MEASURED_SIZES,
    SLOPE_TOL,
    ZERO_BARRIER_ATOL,
    check_barrier_decay,
    check_trained_barriers,
    check_zero_barrier_1d,
    default_seeds,
    default_widths,
    spread_certificate_slopes,
)
from .claims import CHAPTER
from .construction import BRIDGES, COVERS, SPHERIZATIONS, constructive_path, default_cells
from .covers import ball_cover, sphere_cover, weighted_kmeans
from .data import spread_network, spread_pairs, teacher_data, tight_pair, train_networks
from .drawing import COVER_COLORS, draw_directions, draw_path_state, draw_profile
from .evaluation import COST_ATOL, EXACT_RESOLUTION, JOINT_RTOL, OUTPUT_RTOL, Audit, Profile, SegmentAudit, audit, barrier, barriers, cost_roundoff, profile
from .losses import CONVEXITY_ATOL, HUBER_DELTA, LOSS_PROBE, LOSS_PROBE_TARGETS, LOSSES, PROBE_RESOLUTION, Loss, get_loss, proof_of
from .model import CHUNK_ELEMENTS, FEASIBILITY_RTOL, LAMBDA, UNIT_ROUNDOFF, Network, as_network, as_pair, cost, forward, function_roundoff
from .paths import EXACT_KINDS, GUARANTEES, Canonical, Path, Segment, form_problem

__all__ = [
    # networks, losses, cost
    "Network", "LAMBDA", "FEASIBILITY_RTOL", "CHUNK_ELEMENTS", "as_network", "as_pair", "forward", "function_roundoff", "cost",
    "HUBER_DELTA", "CONVEXITY_ATOL", "LOSS_PROBE", "LOSS_PROBE_TARGETS", "PROBE_RESOLUTION", "Loss", "LOSSES", "get_loss", "proof_of",
    # the construction
    "EXACT_KINDS", "GUARANTEES", "Segment", "Canonical", "Path", "form_problem",
    "sphere_cover", "ball_cover", "weighted_kmeans",
    "COVERS", "SPHERIZATIONS", "BRIDGES", "default_cells", "constructive_path",
    # the cost along a path, the audit
    "COST_ATOL", "EXACT_RESOLUTION", "UNIT_ROUNDOFF", "OUTPUT_RTOL", "JOINT_RTOL", "cost_roundoff", "Profile", "profile", "barrier", "barriers", "SegmentAudit", "Audit", "audit",
    # networks to connect
    "spread_network", "spread_pairs", "teacher_data", "tight_pair", "train_networks",
    # path finders
    "straight_line", "weight_matching", "matched_line", "bezier_paths", "METHODS", "POINTS_PER_SEGMENT",
    "path_finders", "compare_paths",
    # claims
    "ZERO_BARRIER_ATOL", "SLOPE_TOL", "REQ_EXACT", "REQ_MONOTONE", "REQ_CONSTANT", "REQ_BRIDGE", "REQ_CERTIFICATE",
    "REQ_FEASIBLE", "REQ_ORDER", "REQ_OUTPUT", "REQ_TIGHT", "REQ_JOINTS", "REQ_FORM", "TIGHT_RATIO", "TIGHT_ORDERS",
    "TIGHT_DIMENSIONS",
    "MEASURED_SIZES", "tight_audits",
    "spread_certificate_slopes", "check_barrier_decay", "check_trained_barriers", "check_zero_barrier_1d",
    "default_widths", "default_seeds", "CHAPTER",
    # figures
    "draw_profile", "draw_path_state", "draw_directions", "COVER_COLORS",
]
