"""nnproofs: the constructions, measurements and rate checks behind *Executable Proofs*.

Modules (one concept each):

* :mod:`nnproofs.device`   -- device, precision, seed and scale policy (``BOOK_DEVICE``, ``BOOK_SCALE``);
* :mod:`nnproofs.rates`    -- log-log fits and :class:`~nnproofs.rates.RateCheck`;
* :mod:`nnproofs.plotting` -- the book's log-log figure;
* :mod:`nnproofs.networks` -- ReLU networks with weights set by formula; compose, parallel, architecture;
* :mod:`nnproofs.gadgets`  -- hats, Yarotsky's tooth, sawtooth, square and product;
* :mod:`nnproofs.pieces`   -- exact linear pieces of 1-D ReLU networks;
* :mod:`nnproofs.measure`  -- non-dyadic grids and sup-norm errors;
* :mod:`nnproofs.squaring` -- the prelude's check of Yarotsky's theorem;
* :mod:`nnproofs.ledger`   -- the registry of every claim of the book.
"""

__version__ = "0.1.0"
