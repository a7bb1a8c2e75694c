"""A release of the book, from one command: the bundle a tag publishes and Zenodo archives.

    python tools/release.py                      # from a clean checkout: build the book and the PDF, then the bundle
    python tools/release.py --reuse-build        # the bundle from the book and PDF already built at this commit
    python tools/release.py --verify DIR         # check a bundle against its manifest
    python tools/release.py --check-tag v0.1.0   # the tag names pyproject's version (the release workflow)
    python tools/release.py --write-zenodo       # write .zenodo.json from CITATION.cff and the papers' identifiers

The bundle, ``_build/release/shapley-compendium-<version>/`` (``--out`` names another folder):

``html.tar.gz``
    the web book (``_build/html``), every page naming the version, the commit and the build date;
``shapley-compendium.pdf``
    the book as one PDF (``tools/build_pdf.py``), its first page naming them too;
``figures/``
    every figure of ``book/figures``, PNG and SVG;
``notebooks/``
    every notebook with its stored outputs;
``data/derived/``
    every stored result of the long runs;
``shapley_book_lib-<version>-py3-none-any.whl``
    the package ``lib`` (what a notebook's first cell installs outside a clone);
``CITATION.cff``
    the repository's, with the release's ``version``, ``date-released`` and ``commit``;
``release.json``
    version, commit, tag, date, and ``draft`` with its reasons;
``MANIFEST.sha256``
    the sha256 of every other file (``sha256sum -c MANIFEST.sha256`` in the folder checks it).

Beside it, ``assets/`` holds what the GitHub release publishes (its files are flat): the whole
bundle as ``shapley-compendium-<version>.tar.gz``, the wheel, the PDF, ``CITATION.cff`` and
``SHA256SUMS`` of these. The tar files are reproducible (sorted names, fixed times and owners).

A release is made from a clean checkout (no change to a tracked file, no untracked file) whose
built pages name the commit being released. ``--draft`` allows what a release refuses (a dirty
tree, a build of another commit, ``--no-pdf``, ``--no-html``) for a preview or a test, and says so
in ``release.json`` and in the bundle's name. The build date is the commit's (``SOURCE_DATE_EPOCH``),
so a bundle rebuilt from its tag names the same date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
PDF = ROOT / "_build" / "pdf" / "shapley-compendium.pdf"
OUT = ROOT / "_build" / "release"
NAME = "shapley-compendium"
MANIFEST = "MANIFEST.sha256"
ASSETS = "assets"
SUMS = "SHA256SUMS"
ZENODO = ROOT / ".zenodo.json"

#: the five papers the book reproduces (keys of book/references.bib), cited by the archived record
PAPERS = ("lemaire2023naive", "anonymous_shapley_compositions", "amoukou_brunel_game_changers",
          "anonymous_typical_value", "ferrettini2020improving")


# ----------------------------------------------------------------------------- what is released
def version(root: Path = ROOT) -> str:
    return str(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@dataclass
class State:
    """The checkout and the build a bundle would be made from."""

    version: str
    commit: str | None
    tag: str | None
    changed: list[str]                  # `git status --porcelain` lines (tracked changes and untracked files)
    built_commit: str | None            # the commit the built pages name (None: no built book)
    built_dirty: bool
    pdf: bool
    epoch: int                          # the commit's time (SOURCE_DATE_EPOCH)
    reasons: list[str] = field(default_factory=list)

    @property
    def date(self) -> str:
        return dt.datetime.fromtimestamp(self.epoch, tz=dt.timezone.utc).date().isoformat()


def built_pages(html: Path = HTML) -> dict[str, str]:
    """The pinned build of the built book: the footer's data (version, commit, ref, date, dirty) of its
    first page that has one; empty if none."""
    for page in sorted(html.rglob("*.html")) if html.is_dir() else []:
        match = re.search(r'<p class="pinned-build" ([^>]*)>', page.read_text(encoding="utf-8", errors="replace"))
        if match:
            return dict(re.findall(r'data-([a-z]+)="([^"]*)"', match[1]))
    return {}


def state(root: Path = ROOT, html: Path = HTML, pdf: Path = PDF) -> State:
    commit = _git(root, "rev-parse", "--verify", "HEAD^{commit}")
    v = version(root)
    tags = (_git(root, "tag", "--points-at", commit) or "").split() if commit else []
    changed = (_git(root, "status", "--porcelain") or "").splitlines() if commit else []
    epoch = int(_git(root, "show", "-s", "--format=%ct", commit) or 0) if commit else 0
    pinned = built_pages(html)
    return State(version=v, commit=commit, tag=f"v{v}" if f"v{v}" in tags else None, changed=changed,
                 built_commit=pinned.get("commit") or None, built_dirty=pinned.get("dirty") == "true",
                 pdf=pdf.is_file(), epoch=epoch or int(dt.datetime.now(dt.timezone.utc).timestamp()))


def refusals(s: State, *, html: bool, pdf: bool) -> list[str]:
    """Why ``s`` is not a release (empty: it is one). Each reason is allowed by ``--draft`` only."""
    found = []
    if s.commit is None:
        found.append("not a git checkout: a release names its commit")
    if s.changed:
        found.append(f"the checkout is not clean ({len(s.changed)} changed or untracked files, first: "
                     f"{s.changed[0].strip()}); commit or remove them")
    if html:
        if s.built_commit is None:
            found.append("no built book in _build/html with a pinned footer: build it (or run without --reuse-build)")
        elif s.built_commit != s.commit:
            found.append(f"the built book names commit {s.built_commit[:12]}, not {str(s.commit)[:12]}: rebuild it")
        elif s.built_dirty:
            found.append("the built book was built from a working tree with uncommitted changes: rebuild it")
    else:
        found.append("no HTML (--no-html)")
    if not pdf:
        found.append("no PDF (--no-pdf)")
    elif not s.pdf:
        found.append(f"no PDF at {PDF.relative_to(ROOT)}: run tools/build_pdf.py (or run without --reuse-build)")
    return found


# ----------------------------------------------------------------------------- reproducible files
def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def reproducible_tar(source: Path, out: Path, prefix: str, epoch: int) -> None:
    """``source`` as a gzipped tar under ``prefix/``: sorted names, the same time, owner and mode bits for
    every member, no gzip time stamp, so the same files give the same bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(source.rglob("*")):
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                continue
            info = tarfile.TarInfo(f"{prefix}/{path.relative_to(source).as_posix()}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = epoch, 0, 0, "", ""
            if path.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = path.stat().st_size, 0o644
                with path.open("rb") as fh:
                    tar.addfile(info, fh)
    with out.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        gz.write(buffer.getvalue())


def write_manifest(folder: Path, name: str = MANIFEST) -> Path:
    """``<sha256>  <path>`` for every file of ``folder`` but the manifest itself, sorted (``sha256sum -c``'s format)."""
    lines = [f"{sha256(p)}  {p.relative_to(folder).as_posix()}"
             for p in sorted(folder.rglob("*")) if p.is_file() and p.name != name]
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def verify(folder: Path, name: str = MANIFEST) -> list[str]:
    """What is wrong with ``folder`` against its manifest: a file missing, changed or not listed (empty: it verifies)."""
    manifest = folder / name
    if not manifest.is_file():
        return [f"no {name} in {folder}"]
    listed: dict[str, str] = {}
    for line in manifest.read_text(encoding="utf-8").splitlines():
        digest, _, rel = line.partition("  ")
        if not re.fullmatch(r"[0-9a-f]{64}", digest) or not rel:
            return [f"{name}: not a sha256sum line: {line!r}"]
        listed[rel] = digest
    problems = []
    for rel, digest in listed.items():
        path = folder / rel
        if not path.is_file():
            problems.append(f"missing: {rel}")
        elif sha256(path) != digest:
            problems.append(f"changed: {rel}")
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != name}
    problems += [f"not in the manifest: {rel}" for rel in sorted(present - set(listed))]
    return problems


# ----------------------------------------------------------------------------- metadata
def release_citation(root: Path, s: State) -> str:
    """The repository's CITATION.cff with the release's version, date and commit (its comments kept)."""
    text = (root / "CITATION.cff").read_text(encoding="utf-8")
    values = {"version": s.version, "date-released": f'"{s.date}"', "commit": f'"{s.commit}"' if s.commit else None}
    for key, value in values.items():
        pattern = re.compile(rf"^{re.escape(key)}:.*$", re.M)
        if value is None:
            text = pattern.sub("", text)
        elif pattern.search(text):
            text = pattern.sub(f"{key}: {value}", text)
        else:
            text = text.rstrip("\n") + f"\n{key}: {value}\n"
    import yaml

    parsed = yaml.safe_load(text)
    assert str(parsed["version"]) == s.version and str(parsed["date-released"]) == s.date
    return text


def _bib_entries(text: str) -> dict[str, dict[str, str]]:
    entries: dict[str, dict[str, str]] = {}
    for match in re.finditer(r"@\w+\s*\{\s*([^,\s]+)\s*,", text):
        depth, i = 0, text.index("{", match.start())
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                body = text[i + 1:j]
                entries[match[1]] = {k.lower(): v for k, v in re.findall(r"(\w+)\s*=\s*\{([^{}]*)\}", body)}
                break
    return entries


def zenodo_metadata(root: Path = ROOT) -> dict[str, Any]:
    """The Zenodo record of a release (``.zenodo.json``, which Zenodo's GitHub integration reads instead of
    CITATION.cff when both are there): CITATION.cff's fields, and the identifiers of the papers the book
    reproduces (``book/references.bib``: an arXiv eprint or a DOI), which it references."""
    import yaml  # the book's environment; --check-tag runs without it

    cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    creators = []
    for a in cff["authors"]:
        person = {"name": a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ")}
        if a.get("affiliation"):
            person["affiliation"] = a["affiliation"]
        if a.get("orcid"):
            person["orcid"] = str(a["orcid"]).rsplit("/", 1)[-1]
        creators.append(person)
    bib = _bib_entries((root / "book" / "references.bib").read_text(encoding="utf-8"))
    related = []  # Zenodo adds the repository at the tag itself (isSupplementTo)
    for key in PAPERS:
        entry = bib.get(key, {})
        if entry.get("doi"):
            related.append({"identifier": entry["doi"], "relation": "references", "scheme": "doi"})
        elif entry.get("eprint") and entry.get("archiveprefix", "arxiv").lower() == "arxiv":
            related.append({"identifier": f"arXiv:{entry['eprint']}", "relation": "references", "scheme": "arxiv"})
    return {
        "title": cff["title"],
        "upload_type": "software",
        "description": " ".join(str(cff["abstract"]).split()),
        "creators": creators,
        "access_right": "open",
        "license": cff["license"],
        "version": str(cff["version"]),
        "keywords": list(cff.get("keywords", [])),
        "related_identifiers": related,
    }


def zenodo_text(root: Path = ROOT) -> str:
    return json.dumps(zenodo_metadata(root), indent=2, ensure_ascii=False) + "\n"


# ----------------------------------------------------------------------------- building
def _run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    print("$ " + " ".join(cmd), flush=True)
    done = subprocess.run(cmd, cwd=ROOT, env=env)
    if done.returncode != 0:
        sys.exit(f"release: `{' '.join(cmd)}` failed (exit {done.returncode})")


def build(s: State) -> None:
    """A clean build of the web book and the PDF, dated by the commit."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(s.epoch)}
    book = str(Path(sys.executable).parent / "jupyter-book")
    _run([book, "clean", "."], env)
    _run([book, "build", ".", "-W", "-n", "--keep-going"], env)
    _run([sys.executable, "tools/build_pdf.py"], env)


#: what the package is built from (setup.py copies the last two into it)
PACKAGE_SOURCES = ("lib", "compendium", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "CITATION.cff",
                   "data/MANIFEST.yaml", "data/derived")


def wheel(out: Path, root: Path = ROOT) -> Path:
    """The package ``lib`` as a wheel (``pip wheel``), built from a copy of its sources in a temporary
    folder: the checkout gets no ``build/`` folder, and two builds at once do not share one."""
    import tempfile

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="shapley-book-wheel-") as tmp:
        src = Path(tmp) / "src"
        for rel in PACKAGE_SOURCES:
            if (root / rel).is_dir():
                shutil.copytree(root / rel, src / rel, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.pyc", "*.nbi", "*.nbc", ".*", "*.egg-info"))
            else:
                (src / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / rel, src / rel)
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out),
                               str(src)], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"release: pip wheel failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    found = sorted(out.glob("shapley_book_lib-*.whl"))
    if len(found) != 1:
        sys.exit(f"release: expected one wheel in {out}, found {found}")
    return found[0]


def bundle(s: State, out: Path, *, html: bool, pdf: bool, draft: bool, reasons: list[str]) -> Path:
    """Write the bundle and the release's assets under ``out``; return the bundle's folder."""
    name = f"{NAME}-{s.version}" + ("-draft" if draft else "")
    folder = out / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if html:
        reproducible_tar(HTML, folder / "html.tar.gz", name, s.epoch)
    if pdf:
        shutil.copyfile(PDF, folder / PDF.name)
    for suffix in ("png", "svg"):
        for path in sorted((ROOT / "book" / "figures").glob(f"*.{suffix}")):
            (folder / "figures").mkdir(exist_ok=True)
            shutil.copyfile(path, folder / "figures" / path.name)
    for path in sorted((ROOT / "notebooks").glob("*/*.ipynb")):
        target = folder / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    shutil.copytree(ROOT / "data" / "derived", folder / "data" / "derived",
                    ignore=shutil.ignore_patterns("__pycache__", ".*"))
    built = wheel(out / "wheel")
    shutil.copyfile(built, folder / built.name)
    (folder / "CITATION.cff").write_text(release_citation(ROOT, s), encoding="utf-8")
    (folder / "release.json").write_text(json.dumps({
        "name": NAME, "version": s.version, "commit": s.commit, "tag": s.tag, "date": s.date,
        "draft": draft, "draft_reasons": reasons if draft else [],
        "contents": {"html": html, "pdf": pdf},
    }, indent=1) + "\n", encoding="utf-8")
    write_manifest(folder)
    problems = verify(folder)
    if problems:
        sys.exit(f"release: the bundle does not verify against its manifest: {problems[:5]}")
    assets = out / ASSETS
    if assets.exists():
        shutil.rmtree(assets)
    assets.mkdir()
    reproducible_tar(folder, assets / f"{name}.tar.gz", name, s.epoch)
    shutil.copyfile(folder / built.name, assets / built.name)
    shutil.copyfile(folder / "CITATION.cff", assets / "CITATION.cff")
    if pdf:
        shutil.copyfile(folder / PDF.name, assets / f"{name}.pdf")
    write_manifest(assets, SUMS)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT, help="where the bundle and the assets go (default _build/release)")
    parser.add_argument("--reuse-build", action="store_true",
                        help="bundle the book and PDF already built (they must name this commit) instead of building them")
    parser.add_argument("--draft", action="store_true",
                        help="allow a dirty tree, a build of another commit, --no-pdf, --no-html (a preview; said in the bundle)")
    parser.add_argument("--no-pdf", action="store_true", help="leave the PDF out (with --draft)")
    parser.add_argument("--no-html", action="store_true", help="leave the web book out (with --draft)")
    parser.add_argument("--verify", type=Path, metavar="DIR", help="check a bundle against its manifest, and stop")
    parser.add_argument("--check-tag", metavar="TAG", help="check that TAG is v<pyproject's version>, and stop")
    parser.add_argument("--write-zenodo", action="store_true", help="write .zenodo.json from CITATION.cff, and stop")
    args = parser.parse_args(argv)
    if args.verify:
        problems = verify(args.verify)
        for p in problems:
            print(p)
        print(f"{args.verify}: {'verifies' if not problems else f'{len(problems)} problem(s)'} against {MANIFEST}")
        return 1 if problems else 0
    if args.check_tag:
        expected = f"v{version()}"
        if args.check_tag != expected:
            print(f"the tag {args.check_tag} does not name pyproject.toml's version ({expected}): bump the version "
                  "(pyproject.toml, lib.__version__, CITATION.cff, .zenodo.json) in the commit you tag", file=sys.stderr)
            return 1
        print(f"the tag {args.check_tag} names the version {version()}")
        return 0
    if args.write_zenodo:
        ZENODO.write_text(zenodo_text(), encoding="utf-8")
        print(f"wrote {ZENODO.name}")
        return 0
    html, pdf = not args.no_html, not args.no_pdf

    def problems(s: State, *, built: bool) -> list[str]:
        found = refusals(s, html=html, pdf=pdf) if built else \
            [r for r in refusals(s, html=False, pdf=False) if "--no-" not in r]
        if not ZENODO.is_file() or ZENODO.read_text(encoding="utf-8") != zenodo_text():
            found.append(".zenodo.json is not what CITATION.cff gives: run python tools/release.py --write-zenodo")
        return found

    s = state()
    before = problems(s, built=args.reuse_build)
    if before and not args.draft:
        print("release: not a release (pass --draft for a preview):\n  " + "\n  ".join(before), file=sys.stderr)
        return 2
    if not args.reuse_build:
        build(s)
        s = state()
    reasons = problems(s, built=True)
    if reasons and not args.draft:
        print("release: not a release:\n  " + "\n  ".join(reasons), file=sys.stderr)
        return 2
    folder = bundle(s, args.out, html=html and HTML.is_dir(), pdf=pdf and s.pdf, draft=bool(reasons), reasons=reasons)
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    print(f"bundle: {folder} ({files} files, {MANIFEST} verifies)")
    print(f"assets: {args.out / ASSETS} ({', '.join(sorted(p.name for p in (args.out / ASSETS).iterdir()))})")
    if reasons:
        print("a draft, not a release:\n  " + "\n  ".join(reasons))
    return 0


if __name__ == "__main__":
    sys.exit(main())
