"""Aitchison geometry of the simplex: operations, ILR coordinates, class-compositions.

Everything here follows the Shapley-composition paper (book chapter
``02-shapley-compositions``), §3 and Appendix B, which in turn follows Aitchison
(1982, 2001), Egozcue et al. (2003), Egozcue & Pawlowsky-Glahn (2005) and
Pawlowsky-Glahn et al. (2015).

Conventions
-----------
A *composition* with ``N`` parts is an array whose **last axis** holds the ``N``
strictly positive parts; any leading axes index independent compositions, and every
function is vectorised over them (numpy broadcasting).  Results are closed to sum 1
(the probability simplex, ``k = 1`` in the paper).  Zero, negative, NaN or infinite
parts raise a :class:`ValueError`: log-ratios are undefined there.

An *ILR basis* is a real matrix ``V`` of shape ``(N, N-1)`` whose columns are the clr
coefficients of an Aitchison-orthonormal basis ``e^(1) .. e^(N-1)`` of the simplex:
``V.T @ V = I`` and ``V.T @ 1 = 0``.  Then

* ``ilr(x) = clr(x) @ V``  (coordinate ``j`` is ``<x, e^(j)>_a``, paper §3.2),
* ``ilr_inv(z) = C(exp(z @ V.T))``.

The default basis is the Gram-Schmidt ("Helmert") basis of Egozcue et al. (2003,
their eq. for the basis obtained by Gram-Schmidt from the canonical generating
system), whose ``j``-th coordinate (``j = 1 .. N-1``) is the balance

.. math::

    z_j = \\sqrt{\\tfrac{j}{j+1}}\\,
          \\ln \\frac{(x_1 \\cdots x_j)^{1/j}}{x_{j+1}},

the first ``j`` parts (numerator) against part ``j+1`` (denominator): the bifurcation
tree of the paper's Figure 3a (``z_1`` compares classes 1 and 2, each next balance
compares the next class with all previous ones).  The paper does not print the sign
convention; this is the one of Egozcue et al. (2003) and of scikit-bio's ``ilr``.
Any sequential binary partition (a sign matrix) gives another basis through
:func:`sbp_basis`; :func:`mahalanobis_sbp` builds one from data, by agglomerative
clustering of the classes on the Mahalanobis distance between them in ILR output space
(the paper's footnote 6 and Figure 3b).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "angle",
    "aitchison_mean",
    "balance_coefficients",
    "check_basis",
    "check_composition",
    "class_composition_p",
    "class_compositions",
    "class_mahalanobis",
    "closure",
    "clr",
    "clr_inv",
    "cosine",
    "difference",
    "distance",
    "helmert_basis",
    "helmert_sbp",
    "ilr",
    "ilr_of_checked",
    "ilr_inv",
    "inner",
    "linkage_sbp",
    "mahalanobis_sbp",
    "norm",
    "perturb",
    "power",
    "projection",
    "sbp_basis",
    "support_ordered_sbp",
    "uniform",
]


# ---------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------


def check_composition(x: npt.ArrayLike, name: str = "composition") -> np.ndarray:
    """``x`` as a float array of compositions (last axis = parts), or a ``ValueError``.

    Requires at least 2 parts, every part finite and strictly positive.  The parts need
    not sum to 1 (compositions are equivalence classes under scaling; paper §3.1).
    """
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be an array whose last axis holds the parts, got a scalar")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} needs at least 2 parts on its last axis, got {arr.shape[-1]}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} has NaN parts")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has infinite parts")
    if np.any(arr <= 0):
        raise ValueError(
            f"{name} has {int((arr <= 0).sum())} zero or negative parts: log-ratios are "
            "undefined there (a composition has strictly positive parts; a classifier "
            "must output probabilities > 0)"
        )
    return arr


def _check_real(z: npt.ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(z, dtype=float)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be an array whose last axis holds coordinates, got a scalar")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has NaN or infinite values")
    return arr


def check_basis(basis: npt.ArrayLike, n_parts: int | None = None, *, atol: float = 1e-10) -> np.ndarray:
    """Validate an ILR basis ``V`` of shape ``(N, N-1)`` (clr coefficients in columns).

    Raises ``ValueError`` unless ``V.T @ V = I`` and every column sums to 0 (each
    basis vector is a clr vector, orthogonal to ``1``), i.e. the columns are the clr
    of an Aitchison-orthonormal basis (Egozcue et al., 2003).
    """
    V = np.asarray(basis, dtype=float)
    if V.ndim != 2 or V.shape[0] < 2 or V.shape[1] != V.shape[0] - 1:
        raise ValueError(f"an ILR basis has shape (N, N-1) with N >= 2, got {V.shape}")
    if n_parts is not None and V.shape[0] != n_parts:
        raise ValueError(f"the basis is for {V.shape[0]} parts but the data have {n_parts}")
    if not np.all(np.isfinite(V)):
        raise ValueError("the basis has NaN or infinite entries")
    if np.abs(V.sum(axis=0)).max() > atol:
        raise ValueError("the basis columns must sum to 0 (clr vectors are orthogonal to 1)")
    if np.abs(V.T @ V - np.eye(V.shape[1])).max() > atol:
        raise ValueError("the basis columns are not orthonormal (V.T @ V != I)")
    return V


# ---------------------------------------------------------------------------
# Operations (paper §3.1)
# ---------------------------------------------------------------------------


def closure(x: npt.ArrayLike, total: float = 1.0) -> np.ndarray:
    """Closure ``C(x) = total * x / ||x||_1`` over the last axis (paper §3.1)."""
    arr = check_composition(x)
    if not (np.isfinite(total) and total > 0):
        raise ValueError(f"the closure constant must be > 0, got {total}")
    return total * arr / arr.sum(axis=-1, keepdims=True)


def _close_log(logx: np.ndarray) -> np.ndarray:
    """``C(exp(logx))``, computed stably (a softmax over the last axis)."""
    logx = logx - logx.max(axis=-1, keepdims=True)
    e = np.exp(logx)
    return e / e.sum(axis=-1, keepdims=True)


def perturb(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """Perturbation ``x ⊕ y = C(x_1 y_1, ..., x_N y_N)`` (paper §3.1): the simplex's addition.

    Book: :ref:`eq-comp-operations` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).
    """
    a = check_composition(x, "x")
    b = check_composition(y, "y")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"x has {a.shape[-1]} parts and y has {b.shape[-1]}")
    return _close_log(np.log(a) + np.log(b))


def power(alpha: npt.ArrayLike, x: npt.ArrayLike) -> np.ndarray:
    """Powering ``α ⊙ x = C(x_1^α, ..., x_N^α)`` (paper §3.1): multiplication by a scalar.

    Book: :ref:`eq-comp-operations` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    ``alpha`` broadcasts against the leading axes of ``x`` (a scalar, or shape
    ``x.shape[:-1]``).
    """
    a = np.asarray(alpha, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError("alpha must be finite")
    arr = check_composition(x)
    return _close_log(a[..., None] * np.log(arr))


def difference(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """``x ⊖ y = x ⊕ ((-1) ⊙ y) = C(x_1/y_1, ..., x_N/y_N)`` (paper §4, Eq. (C5)).

    Book: :ref:`eq-comp-operations` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).
    """
    a = check_composition(x, "x")
    b = check_composition(y, "y")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"x has {a.shape[-1]} parts and y has {b.shape[-1]}")
    return _close_log(np.log(a) - np.log(b))


def uniform(n_parts: int) -> np.ndarray:
    """The neutral element of ⊕: the uniform composition ``C(1, ..., 1)``."""
    if n_parts < 2:
        raise ValueError(f"a composition has at least 2 parts, got {n_parts}")
    return np.full(n_parts, 1.0 / n_parts)


def aitchison_mean(x: npt.ArrayLike, axis: int = 0) -> np.ndarray:
    """Expectation under the Aitchison measure of a sample of compositions.

    Book: :ref:`eq-comp-value`
        (notebooks/02-shapley-compositions/02-definition-and-properties.ipynb).

    ``E^A[Y] = ilr^{-1}(E[ilr Y])`` (paper §4, after Eq. (C6); Pawlowsky-Glahn et al.,
    2015), which for any ILR basis equals the closed geometric mean of the sample,
    ``C(exp(mean log Y))`` -- computed that way here, without a basis.  ``axis``
    indexes the sample and must not be the last (parts) axis.
    """
    arr = check_composition(x)
    ax = axis % arr.ndim
    if ax == arr.ndim - 1:
        raise ValueError("axis must index the sample, not the parts (the last axis)")
    return _close_log(np.log(arr).mean(axis=ax))


# ---------------------------------------------------------------------------
# Inner product, norm, distance (paper §3.1)
# ---------------------------------------------------------------------------


def clr(x: npt.ArrayLike) -> np.ndarray:
    """Centred log-ratio ``clr(x) = log(x / g(x))``, ``g`` the geometric mean of the parts.

    Book: :ref:`eq-comp-inner` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).
    """
    return _clr_of_checked(check_composition(x))


def _clr_of_checked(x: np.ndarray) -> np.ndarray:
    """:func:`clr`'s arithmetic on compositions already checked: the one place it is written."""
    lx = np.log(x)
    return lx - lx.mean(axis=-1, keepdims=True)


def clr_inv(z: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`clr`: ``C(exp(z))`` (``z`` need not be centred)."""
    arr = _check_real(z, "clr coordinates")
    if arr.shape[-1] < 2:
        raise ValueError("clr coordinates need at least 2 entries on the last axis")
    return _close_log(arr)


def inner(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """Aitchison inner product (paper §3.1).

    Book: :ref:`eq-comp-inner` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    ``<x, y>_a = 1/(2N) Σ_i Σ_j log(x_i/x_j) log(y_i/y_j)``, computed as
    ``clr(x) · clr(y)`` (the two are equal: expand the double sum).
    """
    a, b = clr(x), clr(y)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"x has {a.shape[-1]} parts and y has {b.shape[-1]}")
    return np.sum(a * b, axis=-1)


def norm(x: npt.ArrayLike) -> np.ndarray:
    """Aitchison norm ``||x||_a = sqrt(<x, x>_a)``: the strength of a Shapley composition (§5.3)."""
    return np.sqrt(inner(x, x))


def distance(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """Aitchison distance ``d_a(x, y) = ||x ⊖ y||_a``."""
    a, b = clr(x), clr(y)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"x has {a.shape[-1]} parts and y has {b.shape[-1]}")
    return np.sqrt(np.sum((a - b) ** 2, axis=-1))


def cosine(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """Cosine similarity ``<x, y>_a / (||x||_a ||y||_a)`` (paper §5.3, Table 1).

    Raises ``ValueError`` if either composition is the neutral element (norm 0).
    """
    nx, ny = norm(x), norm(y)
    if np.any(nx == 0) or np.any(ny == 0):
        raise ValueError("the cosine is undefined for the uniform composition (Aitchison norm 0)")
    return inner(x, y) / (nx * ny)


def angle(x: npt.ArrayLike, y: npt.ArrayLike, degrees: bool = False) -> np.ndarray:
    """Angle between two compositions in the Aitchison geometry (radians, or degrees)."""
    a = np.arccos(np.clip(cosine(x, y), -1.0, 1.0))
    return np.degrees(a) if degrees else a


def projection(x: npt.ArrayLike, onto: npt.ArrayLike) -> np.ndarray:
    """Scalar projection ``<x, u>_a / ||u||_a`` of ``x`` on the direction of ``onto``.

    On a unit class-composition (Appendix B) this is ``<x, c^(k)>_a``: the paper's
    "projection on the class-compositions" (§5.3, Tables 1 and 3).
    """
    nu = norm(onto)
    if np.any(nu == 0):
        raise ValueError("cannot project on the uniform composition (Aitchison norm 0)")
    return inner(x, onto) / nu


# ---------------------------------------------------------------------------
# ILR bases (paper §3.2 and §5.2)
# ---------------------------------------------------------------------------


def helmert_sbp(n_parts: int) -> np.ndarray:
    """Sign matrix of the Gram-Schmidt basis of Egozcue et al. (2003) (paper Fig. 3a).

    Row ``j`` (``j = 0 .. N-2``) puts parts ``0 .. j`` in the numerator (+1) and part
    ``j+1`` in the denominator (-1).  ``sbp_basis(helmert_sbp(N)) == helmert_basis(N)``.
    """
    if n_parts < 2:
        raise ValueError(f"a basis needs at least 2 parts, got {n_parts}")
    s = np.zeros((n_parts - 1, n_parts), dtype=int)
    for j in range(n_parts - 1):
        s[j, : j + 1] = 1
        s[j, j + 1] = -1
    return s


def helmert_basis(n_parts: int) -> np.ndarray:
    """Gram-Schmidt ILR basis of Egozcue et al. (2003), shape ``(N, N-1)``.

    Book: :ref:`eq-comp-helmert` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    Column ``j`` (``j = 1 .. N-1`` in the text) is
    ``sqrt(j/(j+1)) * (1/j, ..., 1/j, -1, 0, ..., 0)`` with ``j`` entries ``1/j``:
    the balance of the first ``j`` parts against part ``j+1`` (module docstring).
    """
    if n_parts < 2:
        raise ValueError(f"a basis needs at least 2 parts, got {n_parts}")
    V = np.zeros((n_parts, n_parts - 1))
    for j in range(1, n_parts):
        V[:j, j - 1] = 1.0 / j
        V[j, j - 1] = -1.0
        V[:, j - 1] *= np.sqrt(j / (j + 1.0))
    return V


def _check_sbp(signs: np.ndarray) -> None:
    """Raise unless ``signs`` is a sequential binary partition (a full binary tree)."""
    n_rows, n = signs.shape
    groups_pos = [frozenset(np.flatnonzero(r > 0).tolist()) for r in signs]
    groups_neg = [frozenset(np.flatnonzero(r < 0).tolist()) for r in signs]
    for k, (gp, gn) in enumerate(zip(groups_pos, groups_neg)):
        if not gp or not gn:
            raise ValueError(f"row {k} of the partition must have both a +1 and a -1 part")
    supports = [gp | gn for gp, gn in zip(groups_pos, groups_neg)]
    full = frozenset(range(n))
    roots = [k for k, s in enumerate(supports) if s == full]
    if len(roots) != 1:
        raise ValueError(
            "a sequential binary partition has exactly one row splitting all parts, "
            f"found {len(roots)}"
        )
    for k, s in enumerate(supports):
        if k in roots:
            continue
        owners = [m for m in range(n_rows) if m != k and s in (groups_pos[m], groups_neg[m])]
        if not owners:
            raise ValueError(
                f"row {k} splits parts {sorted(s)}, which is not a group made by another row: "
                "each step of a sequential binary partition splits a group of the previous steps"
            )


def sbp_basis(signs: npt.ArrayLike) -> np.ndarray:
    """ILR basis of a sequential binary partition (bifurcation tree), shape ``(N, N-1)``.

    ``signs`` is ``(N-1, N)`` with entries in ``{+1, -1, 0}``: row ``j`` splits the
    parts marked ``±1`` into a numerator group (``r`` parts, ``+1``) and a denominator
    group (``s`` parts, ``-1``).  Its balance (Egozcue & Pawlowsky-Glahn, 2005;
    paper §5.2) is

    .. math::

        z_j = \\sqrt{\\tfrac{rs}{r+s}}\\,\\ln\\frac{g(x_+)}{g(x_-)},

    so the clr coefficients are ``+sqrt(s/(r(r+s)))`` on the ``+`` parts and
    ``-sqrt(r/(s(r+s)))`` on the ``-`` parts.  The rows may come in any order; the
    columns of the result follow the rows.  Raises ``ValueError`` unless the rows form
    a sequential binary partition (one row splits all parts; every other row splits a
    group made by another row).
    """
    S = np.asarray(signs)
    if S.ndim != 2 or S.shape[1] < 2 or S.shape[0] != S.shape[1] - 1:
        raise ValueError(f"a sign matrix has shape (N-1, N) with N >= 2, got {S.shape}")
    if not np.all(np.isin(S, (-1, 0, 1))):
        raise ValueError("a sign matrix has entries in {+1, -1, 0} only")
    S = S.astype(int)
    _check_sbp(S)
    r = (S > 0).sum(axis=1).astype(float)
    s = (S < 0).sum(axis=1).astype(float)
    pos = np.sqrt(s / (r * (r + s)))
    neg = -np.sqrt(r / (s * (r + s)))
    V = np.where(S > 0, pos[:, None], np.where(S < 0, neg[:, None], 0.0)).T
    return V


def _basis_for(n_parts: int, basis: npt.ArrayLike | None) -> np.ndarray:
    if basis is None:
        return helmert_basis(n_parts)
    return check_basis(basis, n_parts)


def ilr(x: npt.ArrayLike, basis: npt.ArrayLike | None = None) -> np.ndarray:
    """Isometric log-ratio coordinates ``ilr(x) = clr(x) @ V`` (paper §3.2), shape ``(..., N-1)``.

    Book: :ref:`eq-comp-ilr` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    ``basis=None`` uses :func:`helmert_basis` (the basis of the paper's Figures 1-2);
    otherwise a validated ``(N, N-1)`` basis, e.g. from :func:`sbp_basis`.
    """
    c = clr(x)
    return c @ _basis_for(c.shape[-1], basis)


def ilr_of_checked(x: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """:func:`ilr` without its checks, for a caller that has made them: ``x`` a float array of
    compositions, every part finite and > 0 (:func:`check_composition`), ``basis`` a basis that
    :func:`check_basis` accepted or :func:`helmert_basis` built.

    Book: :ref:`eq-comp-ilr` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    The same arithmetic as :func:`ilr` (both through :func:`_clr_of_checked`), hence the same bytes
    (``lib/tests/test_simplex.py`` compares them); :func:`lib.compositions.ilr_model` calls it once per
    model call, thousands of times in one sampled explanation, where the checks of :func:`ilr` cost more
    than the model."""
    return _clr_of_checked(x) @ basis


def ilr_inv(z: npt.ArrayLike, basis: npt.ArrayLike | None = None) -> np.ndarray:
    """Inverse ILR: ``C(exp(z @ V.T))``, shape ``(..., N)`` with ``N = z.shape[-1] + 1``.

    Book: :ref:`eq-comp-ilr` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).
    """
    arr = _check_real(z, "ILR coordinates")
    V = _basis_for(arr.shape[-1] + 1, basis)
    return _close_log(arr @ V.T)


# ---------------------------------------------------------------------------
# Class-compositions (paper Appendix B)
# ---------------------------------------------------------------------------


def class_composition_p(n_parts: int) -> float:
    """The off-class part ``p`` of a unit-norm class-composition (paper Appendix B, Eq. (C15)).

    Book: :ref:`eq-comp-class-composition`
        (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    ``p = exp(-sqrt(N/(N-1))) / (1 + (N-1) exp(-sqrt(N/(N-1))))``.
    """
    if n_parts < 2:
        raise ValueError(f"class-compositions need at least 2 classes, got {n_parts}")
    e = np.exp(-np.sqrt(n_parts / (n_parts - 1.0)))
    return float(e / (1.0 + (n_parts - 1) * e))


def class_compositions(n_parts: int) -> np.ndarray:
    """The ``N`` class-compositions of Appendix B (Eq. (C14)-(C16)), as rows of an ``(N, N)`` array.

    Row ``k`` is ``c^(k)``: part ``k`` equal to ``1 - (N-1)p`` and every other part
    ``p`` (:func:`class_composition_p`), so ``||c^(k)||_a = 1`` and ``c^(k)`` points
    "straight to class ``k`` and uniformly against all the others".
    """
    p = class_composition_p(n_parts)
    c = np.full((n_parts, n_parts), p)
    np.fill_diagonal(c, 1.0 - (n_parts - 1) * p)
    return c


# ---------------------------------------------------------------------------
# Bifurcation trees from data (paper §5.2, footnote 6, Figure 3b)
# ---------------------------------------------------------------------------

_SCIPY_METHODS = ("single", "complete", "average", "weighted")


def balance_coefficients(signs: npt.ArrayLike) -> np.ndarray:
    """clr coefficients of the balances of *any* rows of signs, shape ``(N, m)``.

    Book: :ref:`eq-comp-balance` (notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb).

    Row ``j`` of ``signs`` (``(m, N)``, entries in ``{+1, -1, 0}``, at least one of each
    sign) gives the balance of eq. ``eq-comp-balance`` (Egozcue & Pawlowsky-Glahn, 2005;
    paper §5.2), ``z_j = sqrt(rs/(r+s)) ln(g(x_+)/g(x_-)) = clr(x) · b_j`` with ``b_j``
    equal to ``+sqrt(s/(r(r+s)))`` on the ``+`` parts and ``-sqrt(r/(s(r+s)))`` on the
    ``-`` parts.  Unlike :func:`sbp_basis`, the rows need not form a full sequential
    binary partition: a balance depends on its own row only, so the coordinates of a few
    known balances (e.g. the paper's ``p̃_3``, ``p̃_5`` of Figure 4) can be computed
    without the rest of the tree.  For a full partition the result equals
    :func:`sbp_basis`.
    """
    S = np.asarray(signs)
    if S.ndim == 1:
        S = S[None, :]
    if S.ndim != 2 or S.shape[1] < 2 or S.shape[0] < 1:
        raise ValueError(f"rows of signs have shape (m, N) with N >= 2, got {np.shape(signs)}")
    if not np.all(np.isin(S, (-1, 0, 1))):
        raise ValueError("a sign matrix has entries in {+1, -1, 0} only")
    S = S.astype(int)
    r = (S > 0).sum(axis=1).astype(float)
    s = (S < 0).sum(axis=1).astype(float)
    if np.any(r == 0) or np.any(s == 0):
        raise ValueError("every row of signs must have both a +1 and a -1 part")
    pos = np.sqrt(s / (r * (r + s)))
    neg = -np.sqrt(r / (s * (r + s)))
    return np.where(S > 0, pos[:, None], np.where(S < 0, neg[:, None], 0.0)).T


def _class_groups(P: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[np.ndarray, list[np.ndarray]]:
    """ILR (Gram-Schmidt) coordinates of ``P`` and the row indices of each class 0..N-1."""
    Z = ilr(P)
    if Z.ndim != 2:
        raise ValueError(f"expected probabilities of shape (n, N), got {np.shape(P)}")
    n_classes = Z.shape[1] + 1
    y = np.asarray(labels)
    if y.shape != (Z.shape[0],):
        raise ValueError(f"{y.shape[0] if y.ndim else 0} labels for {Z.shape[0]} rows of probabilities")
    if not np.issubdtype(y.dtype, np.integer):
        if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(int)
        else:
            raise ValueError("labels must be integer class indices 0 .. N-1")
    if y.min(initial=0) < 0 or y.max(initial=0) >= n_classes:
        raise ValueError(f"labels must be class indices 0 .. {n_classes - 1}")
    idx = [np.flatnonzero(y == k) for k in range(n_classes)]
    few = [k for k in range(n_classes) if len(idx[k]) < 2]
    if few:
        raise ValueError(f"classes {few} have fewer than 2 rows: no covariance can be estimated")
    return Z, idx


def _scatter(Zg: np.ndarray) -> np.ndarray:
    d = Zg - Zg.mean(axis=0)
    return d.T @ d


def _mahalanobis(mu_a: np.ndarray, mu_b: np.ndarray, cov: np.ndarray) -> float:
    try:
        c = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the pooled covariance of the ILR outputs is singular: too few rows per class, or "
            "outputs confined to a subspace"
        ) from None
    w = np.linalg.solve(c, mu_a - mu_b)
    return float(np.sqrt(w @ w))


def class_mahalanobis(
    P: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    covariance: str = "pair",
) -> np.ndarray:
    """Mahalanobis distances between the classes in ILR output space, shape ``(N, N)``.

    Book: :ref:`eq-comp-mahalanobis`
        (notebooks/02-shapley-compositions/05-digits-ten-classes.ipynb).

    ``P`` ``(n, N)``: a classifier's probabilities for ``n`` rows whose true classes are
    ``labels`` (integers ``0 .. N-1``, at least 2 rows per class).  With ``μ_k`` the mean
    of ``ilr(P)`` over class ``k`` and ``W_k`` its scatter matrix,

    ``D_jk = sqrt((μ_j - μ_k)ᵀ Σ⁻¹ (μ_j - μ_k))``,

    where ``Σ`` is the pooled within-class covariance: of the pair,
    ``(W_j + W_k) / (n_j + n_k - 2)`` (``covariance="pair"``: the paper's footnote 6,
    "assuming that within a pair of classes, the class-conditional densities are
    logistic-normal (Aitchison & Shen, 1980) with same covariance matrix"), or of all
    classes, ``Σ_k W_k / (n - N)`` (``covariance="all"``: one metric for every pair).
    The distance is invariant under any invertible linear change of ILR coordinates, so
    it does not depend on the orthonormal basis (the Gram-Schmidt one is used).
    """
    if covariance not in ("pair", "all"):
        raise ValueError(f"covariance must be 'pair' or 'all', got {covariance!r}")
    Z, idx = _class_groups(P, labels)
    n_classes = len(idx)
    mus = [Z[i].mean(axis=0) for i in idx]
    W = [_scatter(Z[i]) for i in idx]
    shared = sum(W) / (Z.shape[0] - n_classes) if covariance == "all" else None
    D = np.zeros((n_classes, n_classes))
    for j in range(n_classes):
        for k in range(j + 1, n_classes):
            cov = shared if shared is not None else (W[j] + W[k]) / (len(idx[j]) + len(idx[k]) - 2)
            D[j, k] = D[k, j] = _mahalanobis(mus[j], mus[k], cov)
    return D


def linkage_sbp(linkage: npt.ArrayLike, n_parts: int, *, numerator: str = "smallest") -> np.ndarray:
    """Sign matrix ``(N-1, N)`` of the bifurcation tree of a scipy linkage matrix.

    Row ``j`` is merge ``j`` of ``linkage`` (``scipy.cluster.hierarchy`` format: row
    ``j`` joins clusters ``linkage[j, 0]`` and ``linkage[j, 1]``, ids ``>= N`` being
    earlier merges), so the balances are numbered from the first merge to the root, as
    in the Gram-Schmidt tree of the paper's Figure 3a (``p̃_1`` is its lowest split).
    The group holding the smallest class index is the numerator (``+1``), also as in
    Figure 3a and as the paper reads Figure 4 ("compares class 0 with class 6", "class 1
    with the group of classes 7 and 8").  With ``numerator="first"`` the first cluster of
    each linkage row is the numerator instead: the convention of the authors' code
    (repository ``shapley-composition/ecai-2024-code-and-exp``, ``bifurc_tree.py``,
    ``sbp_from_aggloclustchildren``: ``+1`` for ``children_[i, 0]`` of scikit-learn's
    ``AgglomerativeClustering``, which is scipy's ``linkage[i, 0]``, the cluster with the
    smaller id).
    """
    if numerator not in ("smallest", "first"):
        raise ValueError(f"numerator must be 'smallest' or 'first', got {numerator!r}")
    Zl = np.asarray(linkage, dtype=float)
    if Zl.shape != (n_parts - 1, 4) or n_parts < 2:
        raise ValueError(f"a linkage of {n_parts} classes has shape ({n_parts - 1}, 4), got {Zl.shape}")
    members: dict[int, list[int]] = {k: [k] for k in range(n_parts)}
    signs = np.zeros((n_parts - 1, n_parts), dtype=int)
    for j, (a, b) in enumerate(Zl[:, :2]):
        ia, ib = int(a), int(b)
        if ia != a or ib != b or ia not in members or ib not in members or ia == ib:
            raise ValueError(f"row {j} of the linkage does not join two existing clusters")
        ga, gb = members.pop(ia), members.pop(ib)
        if numerator == "smallest" and min(gb) < min(ga):
            ga, gb = gb, ga
        signs[j, ga] = 1
        signs[j, gb] = -1
        members[n_parts + j] = sorted(ga + gb)
    return signs


def mahalanobis_sbp(
    P: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    method: str = "merged",
    covariance: str = "pair",
    numerator: str = "smallest",
) -> tuple[np.ndarray, np.ndarray]:
    """Bifurcation tree of the classes by agglomerative clustering on Mahalanobis distance.

    Reconstruction of the paper's footnote 6 (§5.2, Figure 3b): "the bifurcation tree is
    obtained with agglomerative clustering of classes by recursively merging pair of
    classes based on the Mahalanobis distance in the classifier's output space, assuming
    that within a pair of classes, the class-conditional densities are logistic-normal
    (Aitchison & Shen, 1980) with same covariance matrix".  Logistic-normal means
    Gaussian in ILR coordinates, so each class is summarised by the mean and scatter of
    ``ilr(P)`` over its rows (see :func:`class_mahalanobis`).

    ``method="merged"`` (default, the literal reading): repeatedly merge the two groups
    at the smallest Mahalanobis distance, where a merged group is treated as one class
    (mean and scatter of all its rows) and the covariance is pooled over the pair
    (``covariance="pair"``) or is the within-class covariance of all ``N`` classes
    (``"all"``).  ``method`` in ``("single", "complete", "average", "weighted")``:
    :func:`scipy.cluster.hierarchy.linkage` with that linkage on the class-by-class
    distances of :func:`class_mahalanobis`.  Ties are broken by the lowest class indices.

    ``numerator`` is passed to :func:`linkage_sbp`.  The authors' own construction
    (``04_10_classes_example.ipynb``: a Mahalanobis matrix of the classifier's ILR outputs
    on the *test* rows, scikit-learn's ``AgglomerativeClustering(metric="precomputed",
    linkage="average")``) is ``method="average", covariance="pair", numerator="first"``,
    with the rows then ordered by :func:`support_ordered_sbp`.

    Returns ``(signs, linkage)``: the ``(N-1, N)`` sign matrix (row ``j`` = merge ``j``,
    :func:`linkage_sbp`; accepted by :func:`sbp_basis`) and the ``(N-1, 4)`` linkage
    matrix in scipy's format (merge heights = the Mahalanobis distances at merging).
    """
    from scipy.cluster import hierarchy

    if covariance not in ("pair", "all"):
        raise ValueError(f"covariance must be 'pair' or 'all', got {covariance!r}")
    if method != "merged" and method not in _SCIPY_METHODS:
        raise ValueError(f"method must be 'merged' or one of {_SCIPY_METHODS}, got {method!r}")
    if method != "merged":
        D = class_mahalanobis(P, labels, covariance=covariance)
        n = D.shape[0]
        link = hierarchy.linkage(D[np.triu_indices(n, 1)], method=method)
        return linkage_sbp(link, n, numerator=numerator), link

    Z, idx = _class_groups(P, labels)
    n = len(idx)
    shared = sum(_scatter(Z[i]) for i in idx) / (Z.shape[0] - n) if covariance == "all" else None
    clusters: dict[int, np.ndarray] = {k: idx[k] for k in range(n)}
    classes: dict[int, list[int]] = {k: [k] for k in range(n)}
    link = np.zeros((n - 1, 4))
    for step in range(n - 1):
        ids = sorted(clusters, key=lambda c: min(classes[c]))
        best: tuple[float, int, int] | None = None
        for u in range(len(ids)):
            for v in range(u + 1, len(ids)):
                A, B = Z[clusters[ids[u]]], Z[clusters[ids[v]]]
                cov = shared if shared is not None else (_scatter(A) + _scatter(B)) / (len(A) + len(B) - 2)
                d = _mahalanobis(A.mean(axis=0), B.mean(axis=0), cov)
                if best is None or d < best[0]:
                    best = (d, ids[u], ids[v])
        assert best is not None
        d, a, b = best
        link[step] = (min(a, b), max(a, b), d, len(classes[a]) + len(classes[b]))
        clusters[n + step] = np.concatenate([clusters.pop(a), clusters.pop(b)])
        classes[n + step] = sorted(classes.pop(a) + classes.pop(b))
    return linkage_sbp(link, n, numerator=numerator), link


def support_ordered_sbp(signs: npt.ArrayLike) -> np.ndarray:
    """The rows of a sign matrix reordered by the number of parts they split (stable).

    Balances that split fewer parts come first; rows splitting as many parts keep their
    order.  This is the order of the balances in the authors' code for the paper's
    ten-class digits example (§5.2, footnote 6, Figures 3b and 4): their tree drawing
    (``bifurc_tree.py``, ``create_tree_from_sbp``) numbers the balances so, and the ILR
    coordinates their notebook ``04_10_classes_example.ipynb`` prints for its explained
    instance are in this order (``p̃3`` = 0 | 6 and ``p̃5`` = 1 | 7 8, as §5.2 names them),
    not in the merge order of :func:`linkage_sbp`.  Any order of the rows of a
    sequential binary partition gives an orthonormal basis (:func:`sbp_basis`); only the
    numbering of the coordinates changes.
    """
    S = np.asarray(signs)
    if S.ndim != 2:
        raise ValueError(f"a sign matrix has shape (N-1, N), got {S.shape}")
    order = np.argsort((S != 0).sum(axis=1), kind="stable")
    return S[order]
