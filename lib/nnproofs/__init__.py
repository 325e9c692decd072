"""nnproofs: the constructions, measurements and rate checks behind *Executable Proofs*.

Modules (one concept each):

* :mod:`nnproofs.device`   -- device, precision, seed and scale policy (``BOOK_DEVICE``, ``BOOK_SCALE``);
* :mod:`nnproofs.rates`    -- log-log fits and :class:`~nnproofs.rates.RateCheck`;
* :mod:`nnproofs.plotting` -- the book's log-log figure;
* :mod:`nnproofs.networks` -- ReLU networks with weights set by formula; compose, parallel, architecture;
* :mod:`nnproofs.pruning`  -- rigorous bounds over an input box; removal of the units they prove idle;
* :mod:`nnproofs.compiled` -- the feature-major forward pass compiled by ``torch.compile``;
* :mod:`nnproofs.gadgets`  -- hats, Yarotsky's tooth, sawtooth, square and product;
* :mod:`nnproofs.pieces`   -- exact linear pieces of 1-D ReLU networks;
* :mod:`nnproofs.measure`  -- non-dyadic grids and sup-norm errors;
* :mod:`nnproofs.book`     -- glueing computed numbers into the prose;
* :mod:`nnproofs.ledger`   -- the registry of every claim of the book.

One module (or a small family) per chapter, each exposing ``check_*`` functions and registering
its claims with the ledger:

* :mod:`nnproofs.squaring`       -- prelude: Yarotsky's ReLU square;
* :mod:`nnproofs.smooth`         -- chapter 1: constant depth with smooth activations
  (a package: gadgets, network, training, checks, controls, claims);
* :mod:`nnproofs.korobov`        -- chapter 2: super-approximation of Korobov functions (``sparsegrid``);
* :mod:`nnproofs.representation` -- chapter 3: sharpened ReLU integral representations, a package
  (``symbolic``, ``moments``, ``sampling``, ``controls``, ``quadrature``, ``targets``, ``checks``, ``neurons``:
  trained networks against the representation, ``claims``; the old paths ``representation_symbolic`` and
  ``neuron_statistics`` name the same modules);
* :mod:`nnproofs.barrier`        -- chapter 4: constructive low-loss paths and barrier decay.
"""

import os

# MKL's sums depend on the memory alignment of their operands unless its conditional numerical
# reproducibility is strict: the same float64 product then differs by an ulp from one allocation to the
# next, so a claim's value would depend on what ran before it in the process (a Dask worker, a notebook).
# MKL reads this once, at its first call: set before any computation. A reader's own setting wins.
os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")

__version__ = "0.1.0"
