"""Why a claim could not be tested on the paper's own set-up, and the repository's facts that make each reason true.

A set-up that is not the paper's, or a claim with no evidence at all, names its reason (:data:`REASONS`) and the
facts that make it true (:data:`REASON_FACTS`, the keys of its ``fact`` in the registry). :func:`reason_problems`
checks each reason on its own, from the repository's files, the installed packages and an attempted fetch,
independently of the outcome it excuses; :func:`reason_fact_text` says them in one line for the report.
:mod:`compendium.registry` validates the registries against these reasons, and re-exports these names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from compendium.registry import SetUp

__all__ = [
    "MODEL_WORDS",
    "REASONS",
    "REASON_FACTS",
    "attempt_fetch",
    "fact_keys",
    "reason_fact_text",
    "reason_problems",
]

#: Why a claim was tested only on a substitute, or not at all: the registry's ``reason`` of a set-up that is
#: not the paper's, or of a claim with no evidence (short name -> what it means). Never counted as a failure.
REASONS = {
    "tool version": "the paper's version of its tool cannot be installed here",
    "data offline": "the paper's data come from a source the book's offline build cannot fetch",
    "cheaper model": "the book's substitute model is cheaper to call than the paper's",
    "set-up not identified": "neither the paper nor the authors' code in the repository names its model or instance",
    "other machine": "the paper's timings were measured on a machine the book does not have",
}
#: What makes each reason true: the keys of a set-up's ``fact`` (all required), each checked by
#: :func:`reason_problems` on its own, independently of the outcome the reason excuses: the version the tool
#: installed here reports against the one the authors' own files name (``tool version``), a fetch of the
#: paper's data that is attempted and fails (``data offline``), a stored benchmark (``cheaper model``,
#: ``other machine``), the paper's text and the authors' repositories (``set-up not identified``). A reason
#: with no check cannot be declared.
REASON_FACTS = {
    "tool version": ("names", "pinned", "authors"),
    "data offline": ("names",),
    "cheaper model": ("names", "benchmark", "row", "ours", "paper's tool", "output"),
    "set-up not identified": ("section",),
    "other machine": ("cpu", "benchmark"),
}
#: Words that name a model: a section that identifies its model uses one of them.
MODEL_WORDS = ("classifier", "forest", "xgboost", "lightgbm", "boosting", "neural", "logistic", "svm",
               "trained", "naive bayes", "decision tree")


def fact_keys(reasons: Sequence[str]) -> tuple[str, ...]:
    """The keys of ``fact`` that one or several reasons need (:data:`REASON_FACTS`), each once."""
    return tuple(dict.fromkeys(k for r in reasons for k in REASON_FACTS.get(r, ())))


# --------------------------------------------------------------------------- reasons, checked
def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip().lower()


def _section(text: str, heading: str) -> str | None:
    """The text of a paper's section, from the line that starts with ``heading`` to the next numbered heading."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith(heading)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^\s*(?:#+\s*)?\d+(?:\.\d+)*\.?\s+[A-Z]", lines[i])),
               len(lines))
    return "\n".join(lines[start:end])


def _pinned(root: Path, package: str) -> str | None:
    """The version ``requirements.txt`` pins for ``package`` (``package==x.y``), or None."""
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(rf"^\s*{re.escape(package)}\s*==\s*([^\s;#]+)", line, flags=re.I)
        if match:
            return match[1]
    return None


def _manifest_hosts(root: Path) -> set[str]:
    from urllib.parse import urlparse

    text = (root / "data" / "MANIFEST.yaml").read_text(encoding="utf-8")
    return {urlparse(u).netloc.lower() for u in re.findall(r"https?://[^\s'\"]+", text)}


def _manifest_file(root: Path, rel: str) -> dict[str, Any] | None:
    """The data manifest's entry of one cache file (``path``, ``sha256``, ...), or None."""
    raw = yaml.safe_load((root / "data" / "MANIFEST.yaml").read_text(encoding="utf-8"))
    for entry in (raw.get("datasets") or {}).values():
        for f in entry.get("files", []):
            if f.get("path") == rel:
                return dict(f)
    return None


def _authors_version(root: Path, rel: str, tool: str) -> tuple[str | None, str]:
    """The version of ``tool`` that wrote one of the authors' files pinned in the data manifest (its first line,
    ``#Khiops 10.0.8.9i``), and what went wrong ("" when read)."""
    import hashlib

    from compendium.data.cache import data_dir

    entry = _manifest_file(root, rel)
    if entry is None:
        return None, f"{rel} is not a file of the data manifest"
    path = data_dir() / rel
    if not path.is_file():
        return None, f"{rel} is not in the data cache ({data_dir()})"
    if hashlib.sha256(path.read_bytes()).hexdigest() != entry.get("sha256"):
        return None, f"{rel}: its sha256 is not the manifest's"
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
    match = re.search(rf"{re.escape(tool)}\s+v?(\d+(?:\.\d+)*)", first[0] if first else "", flags=re.I)
    return (match[1], "") if match else (None, f"{rel}: its first line names no version of {tool}")


def _installed_version(package: str) -> str | None:
    """The version of ``package`` installed here (its distribution's metadata), or None."""
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def attempt_fetch(url: str, timeout: float = 10.0) -> str:
    """Try to fetch the first bytes of ``url``: ``""`` when it could be fetched, else the error, in words."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "shapley-book"}),
                                    timeout=timeout) as response:
            response.read(64)
        return ""
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return f"{type(error).__name__}: {reason}"


def _authors_material(root: Path, repos: Sequence[str]) -> list[str]:
    """Where the repository reads or runs the authors' own code or data (their repositories named in the data
    manifest, the scripts, the experiment modules or the side environments): ``"owner/name in path"``."""
    places = [root / "data" / "MANIFEST.yaml", *sorted((root / "scripts").glob("*.py")),
              *sorted((root / "lib" / "experiments").glob("*.py"))]
    found = []
    for repo in repos:
        for path in places:
            if path.is_file() and repo.lower() in path.read_text(encoding="utf-8").lower():
                found.append(f"{repo} in {path.relative_to(root).as_posix()}")
    return found


def _cpus(root: Path, csv: str) -> list[str]:
    from compendium.registry import read_table

    frame = read_table(root, csv, "a reason's fact")
    if "cpu" not in frame.columns:
        raise ValueError(f"{csv}: no column 'cpu' (the machine the benchmark ran on)")
    return sorted(set(frame["cpu"]))


def reason_fact_text(setup: SetUp, root: str | Path | None = None) -> str:
    """What the repository holds that makes a set-up's reasons true, in one line (for the report).

    Raises ``ValueError`` when the set-up declares no fact, or a stored file the fact reads is missing.
    """
    from compendium.registry import read_table, repo_root

    root = Path(root) if root is not None else repo_root()
    f = setup.fact
    if not f:
        raise ValueError(f"the reason {setup.reason!r} of this set-up declares no fact ({list(fact_keys(setup.reasons))})")
    said = []
    for reason in setup.reasons:
        if reason == "tool version":
            version, _ = _authors_version(root, f["authors"], f["names"])
            said.append(f"the authors' own files were written by {f['names']} {version or '(unread)'} "
                        f"({f['authors']}, pinned in the data manifest); the one installed here reports "
                        f"{f['pinned']} {_installed_version(f['pinned'])} (requirements.txt pins "
                        f"{_pinned(root, f['pinned'])}), another major version")
        elif reason == "data offline":
            from urllib.parse import urlparse

            said.append(f"the paper's data are at {f['names']}; a test attempts to fetch it and fails, and no file of "
                        f"the data manifest comes from {urlparse(f['names']).netloc}")
        elif reason == "cheaper model":
            row = read_table(root, f["benchmark"], "a reason's fact").set_index("data set").loc[f["row"]]
            tool = float(row[f["paper's tool"]])
            said.append(f"the paper: \u201c{f['names']}\u201d; the book's KernelSHAP explains the model's log odds (the "
                        f"benchmark's {f['output']}: {row[f['output']]!r}) by a table look-up, {float(row[f['ours']]):.2g} s "
                        f"for all {row['rows']} {f['row']} rows, where the paper's tool, Khiops, takes {tool:.2g} s for the "
                        f"same rows (data/derived/{f['benchmark']})")
        elif reason == "set-up not identified":
            said.append(f"§{f['section'].split()[0]} of the paper names no model (none of the words "
                        f"{', '.join(MODEL_WORDS)}), and the repository holds none of the authors' own code or demos")
        elif reason == "other machine":
            said.append(f"the paper timed on {f['cpu']}; the stored benchmark ran on "
                        f"{', '.join(_cpus(root, f['benchmark']))} (data/derived/{f['benchmark']})")
        else:
            raise ValueError(f"no fact is known for the reason {reason!r}")
    return "; ".join(said)


def reason_problems(setup: SetUp, paper_text: str | None, root: str | Path | None = None, *, paper: str = "",
                    fetch: bool = True) -> list[str]:
    """Why a set-up's reasons are not true by the repository's facts (an empty list when they are).

    Each reason of :data:`REASONS` has its own check, independent of the outcome it excuses. ``paper_text`` is the
    paper's full text (or None: the checks that read it are skipped); ``paper`` its BibTeX key (for the authors'
    repositories, :func:`~compendium.registry.load_authors_code`); ``fetch=False`` skips the network attempt of ``data offline``.

    - ``tool version``: the paper names the tool; the version installed here, read from its package, is the one
      ``requirements.txt`` pins; one of the authors' own files pinned in the data manifest names the version that
      wrote it, and its major version differs from the installed one.
    - ``data offline``: the paper names its data's address; a fetch of it is attempted and fails; the data
      manifest holds no file from its host.
    - ``cheaper model``: the paper says it explains its classifier's output, and the stored benchmark shows the
      book's look-up cheaper than the paper's tool on the same rows.
    - ``set-up not identified``: the paper's section names no model, and the repository reads or runs nothing of
      the authors' own repositories (the papers' registry's ``code``).
    - ``other machine``: the paper names its CPU, and the stored benchmark records another one.
    """
    from compendium.registry import load_authors_code, read_table, repo_root

    root = Path(root) if root is not None else repo_root()
    f, problems = setup.fact, []
    unknown = [r for r in setup.reasons if r not in REASON_FACTS]
    if unknown:
        return [f"the reason(s) {unknown} have no check: declare them in REASON_FACTS"]
    if set(f) != set(fact_keys(setup.reasons)):
        return [f"the reason {setup.reason!r} needs the facts {list(fact_keys(setup.reasons))}, got {sorted(f)}"]
    text = _normal(paper_text) if paper_text is not None else None
    for reason in setup.reasons:
        if reason in ("tool version", "data offline", "cheaper model") and text is not None and _normal(f["names"]) not in text:
            problems.append(f"{reason}: the paper does not say {f['names']!r}")
        if reason == "tool version":
            installed, pinned = _installed_version(f["pinned"]), _pinned(root, f["pinned"])
            authors, why = _authors_version(root, f["authors"], f["names"])
            if pinned is None:
                problems.append(f"tool version: requirements.txt pins no version of {f['pinned']!r}")
            if installed is None:
                problems.append(f"tool version: {f['pinned']!r} is not installed here")
            elif pinned is not None and installed != pinned:
                problems.append(f"tool version: {f['pinned']} {installed} is installed, requirements.txt pins {pinned}")
            if authors is None:
                problems.append(f"tool version: the authors' version is not read: {why}")
            elif installed is not None and authors.split(".")[0] == installed.split(".")[0]:
                problems.append(f"tool version: the authors' files were written by {f['names']} {authors}, the same major "
                                f"version as the one installed ({installed}): the paper's tool can be run here")
        elif reason == "data offline":
            from urllib.parse import urlparse

            host = urlparse(f["names"]).netloc.lower()
            if not host:
                problems.append(f"data offline: {f['names']!r} is not an address")
            elif host in _manifest_hosts(root):
                problems.append(f"data offline: the data manifest holds a file from {host}: the build can have it")
            elif fetch and not attempt_fetch(f["names"]):
                problems.append(f"data offline: {f['names']} was fetched here: the paper's data can be had")
        elif reason == "cheaper model":
            frame = read_table(root, f["benchmark"], "a reason's fact").set_index("data set")
            if f["row"] not in frame.index:
                problems.append(f"cheaper model: {f['benchmark']} has no row {f['row']!r}")
            else:
                row = frame.loc[f["row"]]
                tool = float(row[f["paper's tool"]])
                if not float(row[f["ours"]]) < tool:
                    problems.append(f"cheaper model: the book's look-up ({row[f['ours']]} s) is not cheaper than the "
                                    f"paper's tool ({tool} s)")
                if "classifier" in str(row[f["output"]]).lower() or "probab" in str(row[f["output"]]).lower():
                    problems.append(f"cheaper model: the benchmark's KernelSHAP explains {row[f['output']]!r}, the paper's output")
        elif reason == "set-up not identified":
            if paper_text is not None:
                section = _section(paper_text, f["section"])
                if section is None:
                    problems.append(f"set-up not identified: the paper has no section {f['section']!r}")
                else:
                    named = [w for w in MODEL_WORDS if re.search(rf"\b{re.escape(w)}", section.lower())]
                    if named:
                        problems.append(f"set-up not identified: §{f['section'].split()[0]} names a model ({', '.join(named)})")
            held = _authors_material(root, load_authors_code(root).get(paper, [])) if paper else []
            if held:
                problems.append(f"set-up not identified: the repository reads or runs the authors' own code or data "
                                f"({'; '.join(held)}): what it fixes is the paper's set-up")
        elif reason == "other machine":
            if text is not None and _normal(f["cpu"]) not in text:
                problems.append(f"other machine: the paper does not name the CPU {f['cpu']!r}")
            try:
                cpus = _cpus(root, f["benchmark"])
            except (ValueError, FileNotFoundError) as error:
                problems.append(f"other machine: {error}")
            else:
                same = [c for c in cpus if _normal(f["cpu"]) in _normal(c)]
                if not cpus or same:
                    problems.append(f"other machine: the benchmark ran on {cpus}, the paper's {f['cpu']!r}")
    return problems
