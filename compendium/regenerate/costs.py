"""What regenerating costs and how much of it CI checks: the cost table of ``data/derived/README.md``.

The state of every result run by ``python -m compendium.regenerate`` (status, CPU and wall seconds,
commit) is merged into ``data/derived/regenerate-record.json`` (:func:`merge_record`, committed,
so that the checks of several sessions and machines add up); :func:`cost_table` writes from it
one row per script (its units), benchmark or notebook: the units checked and not checked, the
CPU seconds measured, their makespan on 2 and 32 workers, and :func:`coverage`, the share of
the stored files that every CI run checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compendium.regenerate.registry import REGISTRY
from compendium.regenerate.result import Result

__all__ = ["COSTS_BEGIN", "COSTS_END", "RECORD", "Coverage", "cost_table", "coverage", "family", "makespan",
           "merge_record", "write_costs"]


COSTS_BEGIN = "<!-- cost table: written by `python -m compendium.regenerate --write-costs`; do not edit -->"
COSTS_END = "<!-- end of the cost table -->"


def family(res: Result) -> str:
    """The group a result belongs to in the cost table: its script's folder, or the notebook."""
    return res.name.split("/")[0] if res.kind == "script" else res.name


def makespan(seconds: Sequence[float], workers: int) -> float:
    """Wall time of independent units on ``workers`` workers, longest first to the least loaded (LPT)."""
    loads = [0.0] * workers
    for s in sorted(seconds, reverse=True):
        loads[loads.index(min(loads))] += s
    return max(loads, default=0.0)


@dataclass(frozen=True)
class Coverage:
    """How many of the registered files every CI run checks."""

    files: int          # files the registry declares (every file of data/derived/ but NOT_RESULTS)
    notebooks: int      # written by notebooks: nbval reruns them and CI fails if one changed
    cheap: int          # written by the --cheap results, which .ci/run checks with --check

    @property
    def checked(self) -> int:
        return self.notebooks + self.cheap

    @property
    def fraction(self) -> float:
        return self.checked / self.files if self.files else 0.0

    def __str__(self) -> str:
        return (f"{self.checked} of {self.files} stored files ({100 * self.fraction:.0f} %) are checked on every CI "
                f"run: {self.notebooks} written by notebooks (nbval reruns them, git status compares them) and "
                f"{self.cheap} by the --cheap results (`python -m compendium.regenerate --check --cheap`)")


def coverage(registry: Sequence[Result] = REGISTRY) -> Coverage:
    """The files of the registry that every CI run checks (notebooks' and the cheap set's)."""
    files = sum(len(r.outputs) for r in registry)
    notebooks = sum(len(r.outputs) for r in registry if r.kind == "notebook")
    cheap = sum(len(r.outputs) for r in registry if r.cheap and r.kind != "notebook")
    return Coverage(files, notebooks, cheap)


#: The record of every run the cost table is written from, kept with the results (committed), so
#: that the checks of earlier sessions and other machines add up: ``--write-costs`` merges the
#: states of the scratch folder into it (the later run of a result wins) and writes the table.
RECORD = "regenerate-record.json"
_RECORDED = ("status", "detail", "cpu_seconds", "wall_seconds", "commit", "finished")


def _clean(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """An outcome as recorded: no log path (a machine path), only the fields the table reads."""
    kept = {k: outcome[k] for k in _RECORDED if k in outcome}
    kept["detail"] = str(kept.get("detail", "")).split("; see ")[0]
    return kept


def merge_record(record: Mapping[str, Any], check: Mapping[str, Any],
                 runs: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The record with the states of a scratch folder added: per mode and result, the later run wins."""
    merged: dict[str, dict[str, Any]] = {"check": dict(record.get("check", {})),
                                         "regenerate": dict(record.get("regenerate", {}))}
    for mode, states in (("check", check), ("regenerate", runs or {})):
        for name, outcome in states.items():
            old = merged[mode].get(name)
            if old is None or str(outcome.get("finished", "")) >= str(old.get("finished", "")):
                merged[mode][name] = _clean(outcome)
    return {mode: dict(sorted(v.items())) for mode, v in merged.items()}


def _units(names: Sequence[str], others: int, other: str) -> str:
    """``names`` listed when they are the shorter side (or at most 7), else counted against the ``other`` side."""
    if not names:
        return "-"
    if not others:
        return f"{len(names)}: all"
    if len(names) <= max(others, 7):
        return f"{len(names)}: " + ", ".join(names)
    return f"{len(names)}: every unit but the {others} {other}"


def _cheap_cost(registry: Sequence[Result], check: Mapping[str, Any], runs: Mapping[str, Any]) -> str:
    cheap = [r for r in registry if r.cheap]
    cpu = [float((check.get(r.name) or runs.get(r.name))["cpu_seconds"]) for r in cheap
           if check.get(r.name) or runs.get(r.name)]
    return (f"The --cheap set: {len(cheap)} results, {len(cpu)} of them measured, {sum(cpu) / 60:.0f} CPU minutes "
            f"measured (`.ci/run` runs them two at a time at the lowest priority, from the start of the tests to the end).")


def cost_table(check: Mapping[str, Any], runs: Mapping[str, Any] | None = None,
               registry: Sequence[Result] = REGISTRY) -> str:
    """The cost table of data/derived/README.md, from the recorded states of --check runs (and of plain runs).

    One row per script (its units: data sets, seeds, pairs), benchmark or notebook, every registered
    result included (one never run says so); per row the units checked by ``--check`` and those not.
    """
    runs = runs or {}
    groups: dict[str, list[Result]] = {}
    for res in registry:
        groups.setdefault(family(res), []).append(res)
    lines = [
        ("| result | units | files | units in CI's --cheap | command (one unit) | units measured | CPU s measured "
         "| longest unit CPU s | last --check | units checked | units not checked |"),
        "|---|---:|---:|---:|---|---:|---:|---:|---|---|---|",
    ]
    measured: list[float] = []
    n_checked = n_units = 0
    never: list[str] = []
    for name, members in groups.items():
        seen = {r.name: check.get(r.name) or runs.get(r.name) for r in members}
        cpu = [float(v["cpu_seconds"]) for v in seen.values() if v]
        measured += cpu
        checked = {r.name: check[r.name]["status"] for r in members if r.name in check}
        counts: dict[str, int] = {}
        for status in checked.values():
            counts[status] = counts.get(status, 0) + 1
        notebook = members[0].kind == "notebook"
        if counts:
            verdict = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        elif notebook:
            verdict = "not run by this tool; nbval reruns it on every test run"
        else:
            verdict = "never run by this tool"
            never.append(name)
        details = [f"{r.name.split('/', 1)[-1]}: {check[r.name]['detail']}" for r in members
                   if r.name in check and check[r.name].get("detail")
                   and check[r.name]["status"] not in ("identical", "within tolerance")]
        notes = [r.note for r in members if r.note and r.name in check
                 and check[r.name]["status"] not in ("identical", "within tolerance")]
        if details or notes:
            verdict += " (" + "; ".join(details[:3] + notes) + ")"
        short = [r.name.split("/", 1)[-1] if "/" in r.name and not notebook
                 else "gather" if len(members) > 1 else "the notebook" if notebook else "the run" for r in members]
        done = [u for u, r in zip(short, members) if r.name in check]
        left = [u for u, r in zip(short, members) if r.name not in check]
        not_done = _units(left, len(done), "checked")
        if notebook and not done:
            not_done = "- (nbval reruns it on every test run)"
        n_checked += len(checked)
        n_units += len(members)
        command = " ".join(members[0].command).replace("|", "\\|")
        verdict = verdict.replace("|", "\\|")
        lines.append(f"| `{name}` | {len(members)} | {sum(len(r.outputs) for r in members)} "
                     f"| {sum(r.cheap for r in members)} | `{command}` "
                     f"| {len(cpu)} | {sum(cpu):.0f} | {max(cpu, default=0):.0f} | {verdict} "
                     f"| {_units(done, len(left), 'not checked')} | {not_done} |")
    total = sum(measured)
    unmeasured = n_units - len(measured)
    lines += [
        "",
        f"{coverage(registry)}.",
        "",
        _cheap_cost(registry, check, runs),
        "",
        (f"Measured (CPU seconds of the units this tool has run, by `--check` or in place): {len(measured)} of "
         f"{n_units} units ({n_checked} checked by `--check`), {total / 3600:.2f} CPU-hours. Their wall time, "
         f"longest unit first to the least-loaded worker: {makespan(measured, 2) / 3600:.2f} h on 2 cores, "
         f"{makespan(measured, 32) / 3600:.2f} h projected on 32 workers (the longest unit, "
         f"{max(measured, default=0) / 60:.1f} min, bounds it). Not measured: the other {unmeasured} units"
         + (f" (never run by this tool: {', '.join(f'`{n}`' for n in never)})" if never else "")
         + "; they are not in these sums, so the whole compendium from raw data costs more than this."),
    ]
    names = {r.name for r in registry}
    stamps = [v for k, v in check.items() if k in names]
    commits = sorted({str(v.get("commit", "unknown"))[:7] for v in stamps})
    finished = sorted(str(v["finished"]) for v in stamps if v.get("finished"))
    if finished:
        lines += ["", f"The checks recorded here ran from {finished[0][:10]} to {finished[-1][:10]}, at commit"
                      f"{'s' if len(commits) > 1 else ''} {', '.join(commits)} (the state of each result is in `{RECORD}`)."]
    return "\n".join(lines)


def write_costs(readme: Path, check: Mapping[str, Any], runs: Mapping[str, Any] | None = None) -> None:
    """Replace the cost table between :data:`COSTS_BEGIN` and :data:`COSTS_END` in ``readme``."""
    text = readme.read_text(encoding="utf-8")
    if COSTS_BEGIN not in text or COSTS_END not in text:
        raise SystemExit(f"{readme} has no cost-table markers ({COSTS_BEGIN} ... {COSTS_END})")
    head, rest = text.split(COSTS_BEGIN, 1)
    _, tail = rest.split(COSTS_END, 1)
    readme.write_text(head + COSTS_BEGIN + "\n" + cost_table(check, runs) + "\n" + COSTS_END + tail,
                      encoding="utf-8")

