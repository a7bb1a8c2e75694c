"""Every built page names what built it, and no link names a branch (issue 39, ``compendium/sphinx/citation.py``).

The built book (``_build/html``, made by the README's first command): every page's footer names
the version (``pyproject.toml``'s), a commit of this repository and the build date; every link
into a repository (a file or folder at a ref on GitHub, a Binder or Colab launch) names that
page's commit or the release tag, never a branch. The checks are functions of a page's text,
tested first on pages made to fail (a link to ``main``, a page without its commit). How the
build reads the commit is tested on scratch repositories: a clean one, a dirty one, a tagged one,
and a folder outside git, which the page says and which does not crash the build.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"

from compendium.sphinx import citation  # noqa: E402 - the book's extension

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
PINNED = re.compile(r'<p class="pinned-build" ([^>]*)>(.*?)</p>', re.S)
HREF = re.compile(r'\b(?:href|src)="([^"]+)"')
#: where a URL names a ref: a file or folder of a GitHub repository, a Binder launch, a Colab launch
REF_IN_URL = [
    re.compile(r"^https://github\.com/[^/]+/[^/]+/(?:blob|tree|raw|commits?)/(?P<ref>[^/?#]+)"),
    re.compile(r"^https://raw\.githubusercontent\.com/[^/]+/[^/]+/(?P<ref>[^/?#]+)/"),
    re.compile(r"^https://mybinder\.org/v2/gh/[^/]+/[^/]+/(?P<ref>[^/?#]+)"),
    re.compile(r"^https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/(?P<ref>[^/?#]+)/"),
]
COMMIT = re.compile(r"[0-9a-f]{40}")
TAG = re.compile(r"v\d+(?:\.\d+)*(?:[-.\w]*)")


def pinned(page: str) -> dict[str, str] | None:
    """The footer's data of a built page (version, commit, ref, date, dirty), or None."""
    match = PINNED.search(page)
    return dict(re.findall(r'data-([a-z]+)="([^"]*)"', match[1])) if match else None


def problems(page: str, *, version: str = VERSION) -> list[str]:
    """What is wrong with a built page: no pinned footer, a footer without a commit, version or date, or
    a link that names a branch (any ref but the page's commit or release tag; a link to another
    repository must name a commit or a version tag too)."""
    data = pinned(page)
    if data is None:
        return ["no footer naming the version, the commit and the build date"]
    found = []
    if not COMMIT.fullmatch(data.get("commit", "")):
        found.append(f"the footer names no commit ({data.get('commit')!r})")
    if data.get("version") != version:
        found.append(f"the footer names version {data.get('version')!r}, not {version}")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", data.get("date", "")):
        found.append(f"the footer names no build date ({data.get('date')!r})")
    if data.get("ref") not in (data.get("commit"), f"v{version}"):
        found.append(f"the footer's ref {data.get('ref')!r} is neither its commit nor the release tag")
    if data.get("commit", "")[:12] not in PINNED.search(page)[2]:
        found.append("the footer's text does not show the commit")
    for url in HREF.findall(page):
        for pattern in REF_IN_URL:
            match = pattern.match(url)
            if match is None:
                continue
            ref = match["ref"]
            book = "/shapley-book/shapley-compendium/" in url
            if book and ref != data.get("ref"):
                found.append(f"a link names {ref!r}, not the page's {data.get('ref')!r}: {url}")
            elif not book and not (COMMIT.fullmatch(ref) or TAG.fullmatch(ref)):
                found.append(f"a link names the branch {ref!r}: {url}")
    return found


GOOD = ('<p class="pinned-build" data-version="{v}" data-commit="{c}" data-ref="{c}" data-date="2026-11-28" '
        'data-dirty="false">Version {v}, built on 2026-11-28 from commit <code>{s}</code></p>')


def _page(body: str, commit: str = "a" * 40) -> str:
    return f"<html><body>{body}<footer>{GOOD.format(v=VERSION, c=commit, s=commit[:12])}</footer></body></html>"


def test_the_checks_fail_on_a_branch_and_on_a_page_without_its_commit() -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = "https://github.com/shapley-book/shapley-compendium"
    fine = _page(f'<a href="{repo}/blob/{commit}/lib/sdp.py#L3-L4">x</a>'
                 f'<a href="https://mybinder.org/v2/gh/shapley-book/shapley-compendium/{commit}?urlpath=lab">b</a>'
                 f'<a href="{repo}">repository</a><a href="https://github.com/salimamoukou/acv00">acv</a>', commit)
    assert problems(fine) == []
    for branch_link in (f"{repo}/blob/main/lib/sdp.py#L334-L343",
                        "https://mybinder.org/v2/gh/shapley-book/shapley-compendium/main?urlpath=lab/tree/x.ipynb",
                        f"https://colab.research.google.com/github/shapley-book/shapley-compendium/blob/main/x.ipynb",
                        f"{repo}/tree/{'b' * 40}",
                        "https://github.com/slundberg/shap/blob/master/shap/plots/_waterfall.py"):
        found = problems(_page(f'<a href="{branch_link}">x</a>', commit))
        assert len(found) == 1 and "a link names" in found[0], (branch_link, found)
    assert problems("<html><body>no footer</body></html>") == [
        "no footer naming the version, the commit and the build date"]
    no_commit = fine.replace(f'data-commit="{commit}"', 'data-commit=""')
    assert any("names no commit" in p for p in problems(no_commit))
    assert any("version" in p for p in problems(fine.replace(f'data-version="{VERSION}"', 'data-version="9.9"')))


# ----------------------------------------------------------------------------- the build's reading of git
def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture()
def scratch_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1.2.3"\n', encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "one")
    return repo


def test_a_build_reads_its_commit_its_tag_and_a_dirty_tree(scratch_repo: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764288000")    # 2025-11-28 00:00 UTC
    head = _git(scratch_repo, "rev-parse", "HEAD")
    info = citation.build_info(scratch_repo)
    assert (info.version, info.commit, info.tag, info.dirty, info.date) == ("1.2.3", head, None, False, "2025-11-28")
    assert info.ref == head and "every link into the repository points at this commit" in info.sentence("https://x")
    _git(scratch_repo, "tag", "v1.2.3")
    assert citation.build_info(scratch_repo).ref == "v1.2.3"          # built from the release: its tag
    (scratch_repo / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1.2.3"\n# edited\n')
    dirty = citation.build_info(scratch_repo)
    assert dirty.dirty and dirty.commit == head and "uncommitted changes" in dirty.sentence()
    (scratch_repo / "untracked.txt").write_text("not a change of a tracked file")
    _git(scratch_repo, "checkout", "-q", "pyproject.toml")
    assert not citation.build_info(scratch_repo).dirty


def test_a_build_outside_git_says_so_and_does_not_crash(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1.2.3"\n', encoding="utf-8")
    info = citation.build_info(tmp_path)
    assert info.commit is None and not info.dirty and info.ref == "v1.2.3"
    assert "outside a git checkout: the commit is unknown" in info.sentence("https://github.com/o/r")
    page = (f'<footer><p class="pinned-build" data-version="{VERSION}" data-commit="" data-ref="v{VERSION}" '
            f'data-date="2026-11-28">{info.sentence()}</p></footer>')
    assert any("names no commit" in p for p in problems(page))          # such a build is not a citable one


# ----------------------------------------------------------------------------- the built book
built = pytest.mark.skipif(not (HTML / "index.html").is_file(),
                           reason="the book is not built (run the README's first command); CI always builds it first")


def _pages() -> list[Path]:
    # every page the theme renders (index.html only redirects to the first page; _static holds the
    # theme's template fragments, not pages)
    return sorted(p for p in HTML.rglob("*.html")
                  if (p.name != "index.html" or p.parent != HTML) and p.relative_to(HTML).parts[0] != "_static")


@built
def test_every_built_page_names_its_commit_and_no_link_names_a_branch() -> None:
    pages = _pages()
    assert len(pages) > 40
    wrong = {p.relative_to(HTML).as_posix(): found for p in pages
             if (found := problems(p.read_text(encoding="utf-8", errors="replace")))}
    assert wrong == {}, f"pages not pinned to their build: {dict(list(wrong.items())[:5])}"
    builds = {tuple(sorted(pinned(p.read_text(encoding="utf-8", errors="replace")).items())) for p in pages}
    assert len(builds) == 1, f"the pages name {len(builds)} different builds (a stale incremental build?)"
    commit = dict(next(iter(builds)))["commit"]
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
    assert known.returncode == 0, f"the book names commit {commit}, which this repository does not have"


@built
def test_launch_buttons_and_equation_links_point_at_the_commit() -> None:
    page = (HTML / "notebooks" / "02-shapley-compositions" / "01-aitchison-geometry.html").read_text(encoding="utf-8")
    ref = pinned(page)["ref"]
    path = "notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb"
    assert f'href="https://mybinder.org/v2/gh/shapley-book/shapley-compendium/{ref}?urlpath=lab/tree/{path}"' in page
    assert f'href="https://colab.research.google.com/github/shapley-book/shapley-compendium/blob/{ref}/{path}"' in page
    assert f'href="https://github.com/shapley-book/shapley-compendium/blob/{ref}/lib/simplex.py#L' in page
