"""A release is one command and one tag (issue 39): ``tools/release.py``, ``.zenodo.json``, ``CITATION.cff``.

- The bundle builds here and its manifest verifies. To keep the run short the test reuses the book
  already built in ``_build/html`` and the PDF in ``_build/pdf`` (the README's first command and
  ``tools/build_pdf.py`` make them; CI has both): ``--reuse-build``, with ``--draft`` when this
  checkout is not a release as it stands (uncommitted changes, a book built from another commit, no
  PDF: the tool must then refuse without ``--draft``, which the test checks first), and ``--no-pdf``
  when there is no PDF. Without a built book it builds a reduced bundle (``--no-html --no-pdf``).
  Either way the bundle must hold every figure (PNG and SVG), every notebook, every file of
  ``data/derived/``, the two wheels the notebooks' first cell installs, ``CITATION.cff`` with the
  release's version, date and commit, and a manifest that ``--verify`` (and ``sha256sum -c``)
  accept; a file changed afterwards must be caught.
- ``.zenodo.json`` is what ``CITATION.cff`` and the papers' identifiers give, and valid against
  Zenodo's deposit metadata: the rules of its legacy deposit schema and of its deposit API, encoded
  below as a JSON schema (checked offline), itself tested on records it must refuse.
- ``CITATION.cff`` explains version -> DOI and gives the BibTeX of a figure.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import install_cell  # noqa: E402
import release  # noqa: E402

VERSION = release.version()   # setuptools-scm's, from git's tags: the version of this checkout

# ----------------------------------------------------------------------------- Zenodo's rules
# Zenodo's legacy deposit metadata (the schema its GitHub integration reads .zenodo.json with,
# zenodo/modules/deposit/jsonschemas/deposits/records/legacyrecord.json, and the deposit API's
# documented requirements): the keys it knows, the values of its enumerations, and what a record
# must have (upload_type, title, creators with a name, description, access_right; a licence when
# open; publication_type for a publication, image_type for an image).
_PERSON = {"type": "object", "additionalProperties": False, "required": ["name"],
           "properties": {"name": {"type": "string", "minLength": 1}, "affiliation": {"type": "string"},
                          "orcid": {"type": "string", "pattern": r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$"},
                          "gnd": {"type": "string"}}}
ZENODO_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["upload_type", "title", "creators", "description", "access_right"],
    "properties": {
        "upload_type": {"enum": ["publication", "poster", "presentation", "dataset", "image", "video", "software",
                                 "lesson", "physicalobject", "other"]},
        "publication_type": {"enum": ["annotationcollection", "book", "section", "conferencepaper",
                                      "datamanagementplan", "article", "patent", "preprint", "deliverable",
                                      "milestone", "proposal", "report", "softwaredocumentation",
                                      "taxonomictreatment", "technicalnote", "thesis", "workingpaper", "other"]},
        "image_type": {"enum": ["figure", "plot", "drawing", "diagram", "photo", "other"]},
        "title": {"type": "string", "minLength": 3},
        "description": {"type": "string", "minLength": 1},
        "creators": {"type": "array", "minItems": 1, "items": _PERSON},
        "contributors": {"type": "array", "items": {**_PERSON, "required": ["name", "type"], "properties": {
            **_PERSON["properties"], "type": {"type": "string"}}}},
        "access_right": {"enum": ["open", "embargoed", "restricted", "closed"]},
        "license": {"type": "string", "minLength": 1},
        "embargo_date": {"type": "string", "format": "date"},
        "access_conditions": {"type": "string"},
        "publication_date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "doi": {"type": "string", "pattern": r"^10\.\d{4,9}(\.\d+)?/\S+$"},
        "version": {"type": "string", "minLength": 1},
        "language": {"type": "string", "pattern": "^[a-z]{2,3}$"},
        "keywords": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True},
        "notes": {"type": "string"},
        "references": {"type": "array", "items": {"type": "string"}},
        "communities": {"type": "array", "items": {"type": "object", "additionalProperties": False,
                                                    "properties": {"identifier": {"type": "string"}}}},
        "grants": {"type": "array", "items": {"type": "object", "additionalProperties": False, "required": ["id"],
                                              "properties": {"id": {"type": "string"}}}},
        "subjects": {"type": "array", "items": {"type": "object", "additionalProperties": False,
                                                "required": ["term", "identifier"], "properties": {
                                                    "term": {"type": "string"}, "identifier": {"type": "string"},
                                                    "scheme": {"type": "string"}}}},
        "related_identifiers": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["identifier", "relation"],
            "properties": {
                "identifier": {"type": "string", "minLength": 1},
                "relation": {"enum": ["isCitedBy", "cites", "isSupplementTo", "isSupplementedBy", "isContinuedBy",
                                      "continues", "isDescribedBy", "describes", "hasMetadata", "isMetadataFor",
                                      "isNewVersionOf", "isPreviousVersionOf", "isPartOf", "hasPart",
                                      "isReferencedBy", "references", "isDocumentedBy", "documents",
                                      "isCompiledBy", "compiles", "isVariantFormOf", "isOriginalFormOf",
                                      "isIdenticalTo", "isAlternateIdentifier", "isReviewedBy", "reviews",
                                      "isDerivedFrom", "isSourceOf", "requires", "isRequiredBy", "isObsoletedBy",
                                      "obsoletes"]},
                "scheme": {"enum": ["ads", "ark", "arxiv", "bibcode", "doi", "ean13", "ean8", "eissn", "gnd",
                                    "handle", "isbn", "issn", "istc", "lissn", "lsid", "orcid", "pmcid", "pmid",
                                    "purl", "upc", "url", "urn", "swh"]},
                "resource_type": {"type": "string"}}}},
    },
    "allOf": [
        {"if": {"properties": {"access_right": {"enum": ["open", "embargoed"]}}}, "then": {"required": ["license"]}},
        {"if": {"properties": {"access_right": {"const": "embargoed"}}}, "then": {"required": ["embargo_date"]}},
        {"if": {"properties": {"access_right": {"const": "restricted"}}}, "then": {"required": ["access_conditions"]}},
        {"if": {"properties": {"upload_type": {"const": "publication"}}}, "then": {"required": ["publication_type"]}},
        {"if": {"properties": {"upload_type": {"const": "image"}}}, "then": {"required": ["image_type"]}},
    ],
}


def _zenodo_errors(record: dict) -> list[str]:
    validator = jsonschema.Draft202012Validator(ZENODO_SCHEMA, format_checker=jsonschema.FormatChecker())
    return sorted(e.message for e in validator.iter_errors(record))


def test_zenodo_json_is_valid_and_follows_citation_cff() -> None:
    text = (ROOT / ".zenodo.json").read_text(encoding="utf-8")
    assert text == release.zenodo_text(), ".zenodo.json is stale: python tools/release.py --write-zenodo"
    record = json.loads(text)
    assert _zenodo_errors(record) == []
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # no version typed: a release's record takes its tag, and the committed files cannot know it
    assert record["title"] == cff["title"] and "version" not in record and "version" not in cff
    # Zenodo's licence vocabulary is lowercase ("mit"), CITATION.cff's SPDX id is "MIT"
    assert record["license"] == cff["license"].lower() == "mit" and record["keywords"] == cff["keywords"]
    # the authors as they are known: no invented names
    assert record["creators"] == [{"name": "The Shapley compendium authors"}]
    assert [a.get("name") for a in cff["authors"]] == ["The Shapley compendium authors"]
    assert {r["identifier"] for r in record["related_identifiers"]} >= {"arXiv:2307.16718", "arXiv:2408.01382"}


@pytest.mark.parametrize("change, expected", [
    (lambda r: r.pop("creators"), "'creators' is a required property"),
    (lambda r: r.update(creators=[{"affiliation": "x"}]), "'name' is a required property"),
    (lambda r: r.pop("license"), "'license' is a required property"),
    (lambda r: r.update(upload_type="publication"), "'publication_type' is a required property"),
    (lambda r: r.update(upload_type="book"), "'book' is not one of"),
    (lambda r: r.update(access_right="public"), "'public' is not one of"),
    (lambda r: r.update(authors=["x"]), "Additional properties are not allowed ('authors' was unexpected)"),
    (lambda r: r["related_identifiers"].append({"identifier": "x", "relation": "mentions"}), "'mentions' is not one of"),
    (lambda r: r.update(doi="zenodo.123"), "does not match"),
])
def test_the_zenodo_rules_refuse_a_bad_record(change, expected: str) -> None:
    record = json.loads(release.zenodo_text())
    change(record)
    assert any(expected in e for e in _zenodo_errors(record)), _zenodo_errors(record)


def test_citation_cff_explains_version_to_doi_and_the_bibtex_of_a_figure() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    message = cff["message"]
    for words in ("v<version>", "concept DOI", "tools/release.py", "No DOI has been minted yet", "@misc{",
                  "figure <label>", "version <version>", "Commit <commit>", "sha256 <digest>"):
        assert words in message, f"CITATION.cff's message does not say {words!r}"
    assert "doi" not in cff, "no DOI is minted yet: none may be typed"
    how = (ROOT / "book" / "how-to-cite.md").read_text(encoding="utf-8")
    assert "```{figure-bibtex}" in how and "concept DOI" in how and "tools/release.py" in how


# ----------------------------------------------------------------------------- the tool's parts
def _state(**kw) -> release.State:
    base = dict(version="0.2.0", commit="a" * 40, tag="v0.2.0", changed=[], built_commit="a" * 40, built_dirty=False,
                pdf=True, epoch=1764288000)
    return release.State(**{**base, **kw})


def test_a_release_is_refused_from_a_dirty_tree_or_a_stale_build() -> None:
    assert release.refusals(_state(), html=True, pdf=True) == []
    untagged = release.refusals(_state(version="0.2.0.dev3+g0123456789", tag=None), html=True, pdf=True)
    assert len(untagged) == 1 and "no tag" in untagged[0] and "0.2.0.dev3+g0123456789" in untagged[0]
    assert "not clean" in release.refusals(_state(changed=[" M lib/sdp.py"]), html=True, pdf=True)[0]
    assert "names commit bbbbbbbbbbbb" in release.refusals(_state(built_commit="b" * 40), html=True, pdf=True)[0]
    assert "uncommitted" in release.refusals(_state(built_dirty=True), html=True, pdf=True)[0]
    assert "no built book" in release.refusals(_state(built_commit=None), html=True, pdf=True)[0]
    assert "no PDF" in release.refusals(_state(pdf=False), html=True, pdf=True)[0]
    assert release.refusals(_state(commit=None, built_commit=None), html=False, pdf=False)[0].startswith("not a git")
    assert _state().date == "2025-11-28"


def test_tars_are_reproducible_and_the_manifest_catches_changes(tmp_path: Path) -> None:
    folder = tmp_path / "b"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("one")
    (folder / "sub" / "b.bin").write_bytes(b"\x00\x01")
    release.reproducible_tar(folder, tmp_path / "1.tar.gz", "x", 1764288000)
    (folder / "a.txt").touch()
    release.reproducible_tar(folder, tmp_path / "2.tar.gz", "x", 1764288000)
    assert (tmp_path / "1.tar.gz").read_bytes() == (tmp_path / "2.tar.gz").read_bytes()
    release.write_manifest(folder)
    assert release.verify(folder) == []
    (folder / "a.txt").write_text("two")
    (folder / "extra.txt").write_text("three")
    (folder / "sub" / "b.bin").unlink()
    assert release.verify(folder) == ["missing: sub/b.bin", "changed: a.txt", "not in the manifest: extra.txt"] or \
        sorted(release.verify(folder)) == sorted(["missing: sub/b.bin", "changed: a.txt",
                                                  "not in the manifest: extra.txt"])


def test_a_tag_must_name_the_version() -> None:
    run = subprocess.run([sys.executable, "tools/release.py", "--check-tag", f"v{VERSION}"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    wrong = subprocess.run([sys.executable, "tools/release.py", "--check-tag", "v999.0.0"], cwd=ROOT,
                           capture_output=True, text=True)
    assert wrong.returncode == 1 and "does not name" in wrong.stderr


# ----------------------------------------------------------------------------- the bundle, built here
def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_wheels_build_to_the_same_bytes_twice(tmp_path: Path) -> None:
    """Two builds of one commit, each in a fresh folder with its own build environment, give the same two wheels:
    the methods (lib, no tests, no stored results, no machinery) and the machinery (compendium with the stored
    results and the data manifest, no tests), which needs the methods at exactly its version."""
    import datetime as dt
    import zipfile

    # the checkout's version read once, at collection (VERSION): read again per build, it could catch another
    # test's notebook rewriting a figure byte for byte mid-write and name one build "dirty" (.dYYYYMMDD)
    first = release.wheels(tmp_path / "1", version=VERSION)
    second = release.wheels(tmp_path / "2", version=VERSION)
    assert [w.name for w in first] == [w.name for w in second] == [
        f"shapley_book_lib-{VERSION}-py3-none-any.whl", f"shapley_book_compendium-{VERSION}-py3-none-any.whl"]
    assert [w.read_bytes() for w in first] == [w.read_bytes() for w in second]
    day = dt.datetime.fromtimestamp(release.citation.commit_epoch(ROOT), tz=dt.timezone.utc).timetuple()[:3]
    names = {}
    for built in first:
        with zipfile.ZipFile(built) as wheel:
            names[built.name.split("-")[0]] = wheel.namelist()
            assert {info.date_time[:3] for info in wheel.infolist()} == {day}     # dated by the commit
            meta = wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))).decode()
        assert f"Version: {VERSION}\n" in meta
    lib, machinery = names["shapley_book_lib"], names["shapley_book_compendium"]
    assert {n.split("/")[0] for n in lib} == {"lib", f"shapley_book_lib-{VERSION}.dist-info"}
    assert not [n for n in lib + machinery if "/tests/" in n], "a wheel carries tests"
    assert not [n for n in lib if n.startswith("compendium") or "_repository" in n]
    derived = {p.relative_to(ROOT).as_posix() for p in (ROOT / "data" / "derived").rglob("*") if p.is_file()}
    assert {f"compendium/_repository/{d}" for d in derived} | {"compendium/_repository/data/MANIFEST.yaml"} <= set(
        machinery)
    with zipfile.ZipFile(first[1]) as wheel:
        meta = wheel.read(f"shapley_book_compendium-{VERSION}.dist-info/METADATA").decode()
    assert f"Requires-Dist: shapley-book-lib=={VERSION}\n" in meta


def test_the_bundle_builds_here_and_its_manifest_verifies(tmp_path: Path) -> None:
    s = release.state()
    html = (ROOT / "_build" / "html" / "index.html").is_file() and s.built_commit is not None
    pdf = html and s.pdf
    args = [sys.executable, "tools/release.py", "--out", str(tmp_path)]
    args += ["--reuse-build"] + ([] if pdf else ["--no-pdf"]) if html else ["--no-html", "--no-pdf"]
    reasons = release.refusals(s, html=html, pdf=pdf)
    if reasons:
        # not a release as it stands: the tool refuses it unless it is a draft
        refused = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert refused.returncode == 2 and "not a release" in refused.stderr, refused.stdout + refused.stderr
        assert not any(tmp_path.iterdir())
        args.append("--draft")
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # built again, elsewhere: the same bytes, every file of the bundle, the wheel, the assets and SHA256SUMS
    again = tmp_path / "again"
    rerun = subprocess.run([*args[:3], str(again), *args[4:]], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    first = {k: v for k, v in _files(tmp_path).items() if not k.startswith("again/")}
    assert first.keys() == _files(again).keys() and first == _files(again)
    name = f"shapley-compendium-{s.version}" + ("-draft" if reasons else "")
    bundle = tmp_path / name
    assert release.verify(bundle) == []
    check = subprocess.run([sys.executable, "tools/release.py", "--verify", str(bundle)], cwd=ROOT,
                           capture_output=True, text=True)
    assert check.returncode == 0 and "verifies" in check.stdout
    if shutil.which("sha256sum"):
        assert subprocess.run(["sha256sum", "--quiet", "-c", release.MANIFEST], cwd=bundle).returncode == 0

    files = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    figures = {f"figures/{p.name}" for p in (ROOT / "book" / "figures").iterdir() if p.suffix in (".png", ".svg")}
    assert figures <= files and len(figures) > 80
    notebooks = {p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("*/*.ipynb")}
    assert notebooks <= files
    derived = {p.relative_to(ROOT).as_posix() for p in (ROOT / "data" / "derived").rglob("*") if p.is_file()}
    assert derived <= files
    # the wheels a notebook's first cell installs from the release
    wheels = [r.rsplit("/", 1)[1] for r in install_cell.release_requirements(s.version, ROOT)]
    assert len(wheels) == 2 and set(wheels) <= files
    for rel in notebooks:      # as stored, the install cell naming this version and commit
        text = (bundle / rel).read_text(encoding="utf-8")
        assert text == install_cell.fill((ROOT / rel).read_text(encoding="utf-8"), s.version, s.commit)
        assert install_cell.named(text) == {"version": s.version, "commit": s.commit}
    # the exact pins, and the environment that built the bundle
    for pins in ("requirements.txt", "environment.yml"):
        assert (bundle / pins).read_bytes() == (ROOT / pins).read_bytes()
    lock = (bundle / "environment.lock.txt").read_text(encoding="utf-8")
    assert f"# python {sys.version.split()[0]}" in lock and "numpy==" in lock and str(ROOT) not in lock
    cff = yaml.safe_load((bundle / "CITATION.cff").read_text(encoding="utf-8"))
    meta = json.loads((bundle / "release.json").read_text(encoding="utf-8"))
    assert str(cff["version"]) == s.version == meta["version"]
    assert str(cff["date-released"]) == meta["date"] == s.date and cff["commit"] == meta["commit"] == s.commit
    assert meta["draft"] == bool(reasons) and meta["draft_reasons"] == reasons
    if html:
        with tarfile.open(bundle / "html.tar.gz") as tar:
            names = tar.getnames()
            assert f"{name}/index.html" in names
            page = tar.extractfile(f"{name}/book/how-to-cite.html").read().decode()
            assert f'data-commit="{s.built_commit}"' in page
        assert gzip.open(bundle / "html.tar.gz").read(1)       # a gzip stream
    assert ("shapley-compendium.pdf" in files) == pdf
    # what the GitHub release publishes: the bundle in one file, the wheel, CITATION.cff, the PDF, SHA256SUMS
    assets = tmp_path / release.ASSETS
    assert release.verify(assets, release.SUMS) == []
    assert {f"{name}.tar.gz", *wheels, "CITATION.cff", release.SUMS} <= {p.name for p in assets.iterdir()}
    # a file changed afterwards is caught
    (bundle / "figures" / sorted(figures)[0].split("/")[1]).write_bytes(b"changed")
    bad = subprocess.run([sys.executable, "tools/release.py", "--verify", str(bundle)], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "changed: figures/" in bad.stdout
