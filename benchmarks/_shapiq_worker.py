"""The shapiq side of ``benchmarks/estimators.py``: shapiq's Shapley-value approximators, run in the
shapiq side environment (``compendium.side_env.shapiq_python``: shapiq 1.8 needs Python >= 3.12), on games
that the book's process evaluates.

This script imports neither the book nor its models. It reads jobs on stdin and answers on stdout
(framed messages: :func:`send`, :func:`receive`); every value of a game is asked of the parent
process, which evaluates the coalitions on the book's model and counts the model rows
(``lib.counting.CountingModel``). So the approximators see the very game the book's estimators see,
at the cost the same counter measures.

Jobs (a JSON header, then arrays as ``.npy`` bytes):

* ``{"op": "versions"}``: the side environment's versions of shapiq and its back-ends;
* ``{"op": "run", "name", "n", "budget", "seed"}``: one approximator, by the benchmark's name
  (:data:`APPROXIMATORS`), on ``n`` players, with ``budget`` coalitions and ``random_state=seed``;
  while it runs it sends ``{"op": "game"}`` and a boolean ``(c, n)`` array of coalitions, and reads
  back their ``(c,)`` values; it ends with ``{"op": "result"}`` and the ``(n,)`` first-order values,
  or ``{"op": "error", "message"}``;
* ``{"op": "exact", "n"}``: shapiq's ``ExactComputer`` Shapley values of the game (all ``2**n``
  coalitions), to check that both sides hold the same game;
* ``{"op": "quit"}``.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import traceback
import warnings

import numpy as np

#: the protocol's channels: a copy of the original stdout, and stdin; file descriptor 1 then points at
#: stderr, so that what a library prints, from Python or from C (LightGBM), stays out of the protocol
_OUT = os.fdopen(os.dup(1), "wb")
_IN = sys.stdin.buffer
os.dup2(2, 1)
sys.stdout = sys.stderr


def send(header: dict, *arrays: np.ndarray) -> None:
    """One message: a JSON header and ``len(arrays)`` arrays, each framed by its byte length."""
    parts = [json.dumps({**header, "arrays": len(arrays)}).encode()]
    for a in arrays:
        buf = io.BytesIO()
        np.save(buf, np.asarray(a), allow_pickle=False)
        parts.append(buf.getvalue())
    for p in parts:
        _OUT.write(struct.pack("<Q", len(p)))
        _OUT.write(p)
    _OUT.flush()


def _frame() -> bytes:
    head = _IN.read(8)
    if len(head) < 8:
        raise EOFError
    (size,) = struct.unpack("<Q", head)
    return _IN.read(size)


def receive() -> tuple[dict, list[np.ndarray]]:
    header = json.loads(_frame())
    arrays = [np.load(io.BytesIO(_frame()), allow_pickle=False) for _ in range(header.get("arrays", 0))]
    return header, arrays


def game(coalitions: np.ndarray) -> np.ndarray:
    """The parent's game: coalitions out, values in."""
    send({"op": "game"}, np.atleast_2d(np.asarray(coalitions, dtype=bool)))
    header, arrays = receive()
    if header.get("op") != "values":
        raise RuntimeError(f"expected values from the parent, got {header}")
    return arrays[0]


def approximators() -> dict:
    """The benchmark's name -> constructor(n, seed) of every shapiq approximator of Shapley values run
    here: shapiq's ``SV_APPROXIMATORS`` except SPEX and ShaplEIG (their extras, ``sparse`` and
    ``shapleig`` with torch, are not installed), and ProxySHAP with ``max_order=1, index="SV"``.
    Each with its defaults otherwise, as a user would call it."""
    from shapiq import approximator as ap

    return {
        "shapiq KernelSHAP": lambda n, s: ap.KernelSHAP(n=n, random_state=s),
        "shapiq LeverageSHAP": lambda n, s: ap.LeverageSHAP(n=n, random_state=s),
        "shapiq PolySHAP": lambda n, s: ap.PolySHAP(n=n, random_state=s),
        "shapiq RegressionMSR": lambda n, s: ap.RegressionMSR(n=n, index="SV", random_state=s),
        "shapiq ProxySHAP": lambda n, s: ap.ProxySHAP(n=n, max_order=1, index="SV", random_state=s),
        "shapiq ProxySPEX": lambda n, s: ap.ProxySPEX(n=n, max_order=1, index="SV", random_state=s),
        "shapiq OddSHAP": lambda n, s: ap.OddSHAP(n=n, random_state=s),
        "shapiq permutation": lambda n, s: ap.PermutationSamplingSV(n=n, random_state=s),
        "shapiq kADDSHAP": lambda n, s: ap.kADDSHAP(n=n, random_state=s),
        "shapiq SVARM": lambda n, s: ap.SVARM(n=n, random_state=s),
        "shapiq unbiased KernelSHAP": lambda n, s: ap.UnbiasedKernelSHAP(n=n, random_state=s),
        "shapiq stratified": lambda n, s: ap.StratifiedSamplingSV(n=n, random_state=s),
        "shapiq Owen": lambda n, s: ap.OwenSamplingSV(n=n, random_state=s),
    }


def first_order(iv, n: int) -> np.ndarray:
    return np.asarray(iv.get_n_order_values(1), dtype=float).reshape(n)


def versions() -> dict:
    from importlib.metadata import version

    out = {"python": ".".join(map(str, sys.version_info[:3]))}
    for pkg in ("shapiq", "xgboost-cpu", "lightgbm", "numpy", "scipy", "scikit-learn"):
        out[pkg] = version(pkg)
    return out


def main() -> None:
    warnings.simplefilter("ignore")
    makers = approximators()
    while True:
        try:
            header, _ = receive()
        except EOFError:
            return
        op = header["op"]
        try:
            if op == "quit":
                return
            if op == "versions":
                send({"op": "result", "versions": versions(), "names": list(makers)})
            elif op == "exact":
                from shapiq import ExactComputer

                n = int(header["n"])
                send({"op": "result"}, first_order(ExactComputer(game, n_players=n)("SV", 1), n))
            elif op == "run":
                n = int(header["n"])
                approx = makers[header["name"]](n, int(header["seed"]))
                send({"op": "result"}, first_order(approx.approximate(int(header["budget"]), game), n))
            else:
                raise ValueError(f"unknown job {op!r}")
        except Exception as error:  # reported to the parent, which records the run as failed
            send({"op": "error", "message": f"{type(error).__name__}: {error}",
                  "trace": traceback.format_exc()[-2000:]})


if __name__ == "__main__":
    main()
