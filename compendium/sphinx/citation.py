"""Every page pinned to what built it: the version, the commit and the build date, and every link
into the repository at that commit (``CONTRIBUTING.md``: citing the book).

:func:`build_info` reads, once per build,

- the **version**: ``pyproject.toml``'s ``[project] version`` (the one ``CITATION.cff`` and
  ``lib.__version__`` repeat; ``compendium/tests/test_book.py`` checks that they agree);
- the **commit**: ``git rev-parse HEAD``, and the release tag ``v<version>`` when it points at that
  commit; whether tracked files differ from it (a *dirty* tree: the page says so, since its links
  show the committed files); outside a git checkout (a copy of the sources without ``.git``) no
  commit, which the page says too;
- the **build date**: ``SOURCE_DATE_EPOCH`` when set (``tools/release.py`` sets it to the commit's
  time, so that a release rebuilt from its tag names the same date), else the day of the build
  (UTC).

The *ref* every link names is the release tag when the build is made from it, else the commit
(outside git: the version's tag, and the page says that the commit is unknown); never a branch.
It replaces the theme's ``repository_branch``, which the launch buttons (Binder, Colab) and the
"Computed by" links under equations (:mod:`compendium.equation_links`) read.

What a page shows (``html_theme_options['extra_footer']``, on every page's footer):
``<p class="pinned-build" data-version data-commit data-ref data-date data-dirty>``, a sentence
with the version, the build date and the commit linked to the repository's tree at it.
``tools/build_pdf.py`` copies that sentence to the PDF's first page. ``tests/test_pinned_pages.py``
fails on a page without it and on a link to a branch.

Pages whose content names the commit (the Figures page's links to each file, the BibTeX of a
figure on "How to cite", ``{figure-bibtex}``) are read again when the commit, the version or the
date changes (``env-get-outdated``), so an incremental build never shows an older commit.
"""

from __future__ import annotations

import datetime as dt
import html
import os
import re
import subprocess
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: a full git commit name
COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class BuildInfo:
    """What a build is made from."""

    version: str
    commit: str | None      # 40 hex digits; None outside a git checkout
    tag: str | None         # "v<version>" when that tag points at the commit
    dirty: bool             # tracked files differ from the commit
    date: str               # YYYY-MM-DD (UTC)

    @property
    def ref(self) -> str:
        """What links into the repository name: the release tag, else the commit; never a branch."""
        return self.tag or self.commit or f"v{self.version}"

    @property
    def short(self) -> str:
        return (self.commit or "")[:12]

    def sentence(self, repository: str = "", *, full: bool = False) -> str:
        """The page's line, as HTML: version, build date, commit (linked), and what differs."""
        version = f"Version {html.escape(self.version)}"
        if self.tag:
            version += f" (release {html.escape(self.tag)})"
        shown = self.commit if full else self.short
        if self.commit and repository:
            commit = (f'<a href="{html.escape(repository.rstrip("/"))}/tree/{self.commit}">'
                      f"<code>{shown}</code></a>")
        elif self.commit:
            commit = f"<code>{shown}</code>"
        else:
            commit = ""
        if commit:
            text = f"{version}, built on {self.date} from commit {commit}"
            text += ("; the working tree had uncommitted changes, which the links into the repository do not show."
                     if self.dirty else "; every link into the repository points at this commit.")
        else:
            text = (f"{version}, built on {self.date} outside a git checkout: the commit is unknown, and "
                    f"links into the repository point at the tag {html.escape(self.ref)}.")
        return text


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def version_of(root: Path) -> str:
    return str(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def build_date(now: dt.datetime | None = None) -> str:
    """``SOURCE_DATE_EPOCH`` (the reproducible-builds convention) as a UTC date, else today's."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date().isoformat()
    return (now or dt.datetime.now(dt.timezone.utc)).date().isoformat()


def build_info(root: Path) -> BuildInfo:
    """What the sources under ``root`` are: version, commit, release tag, dirty or not, and the date."""
    version = version_of(root)
    commit = _git(root, "rev-parse", "--verify", "HEAD^{commit}")
    if commit is None or not COMMIT.fullmatch(commit):
        return BuildInfo(version, None, None, False, build_date())
    tags = (_git(root, "tag", "--points-at", commit) or "").split()
    tag = f"v{version}" if f"v{version}" in tags else None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return BuildInfo(version, commit, tag, bool(status), build_date())


# ----------------------------------------------------------------------------- Sphinx
def info(app: Any) -> BuildInfo:
    found = getattr(app, "_pinned_build", None)
    if found is None:
        found = app._pinned_build = build_info(Path(app.confdir))
    return found


def repository(app: Any) -> str:
    return str((app.config.html_theme_options or {}).get("repository_url", "") or "")


def pin(app: Any, config: Any) -> None:
    """``config-inited``: the ref for every link, and the footer line."""
    build = info(app)
    options = dict(config.html_theme_options or {})
    options["repository_branch"] = build.ref
    line = build.sentence(str(options.get("repository_url", "") or ""))
    attrs = " ".join(f'data-{k}="{html.escape(str(v if v is not None else ""))}"'
                     for k, v in (("version", build.version), ("commit", build.commit), ("ref", build.ref),
                                  ("date", build.date), ("dirty", str(build.dirty).lower())))
    options["extra_footer"] = f'<p class="pinned-build" {attrs}>{line}</p>'
    config.html_theme_options = options


def outdated(app: Any, env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """``env-get-outdated``: the pages that name the commit, when the build is another one."""
    now = asdict(info(app))
    before = getattr(env, "pinned_build", None)
    env.pinned_build = now
    if before == now:
        return []
    return sorted(d for d in getattr(env, "pinned_docs", set()) if d in env.all_docs and d not in removed)


def uses_build(env: Any) -> None:
    """Record that the page being read names the commit (read again when it changes)."""
    if not hasattr(env, "pinned_docs"):
        env.pinned_docs = set()
    env.pinned_docs.add(env.docname)


def _purge(app: Any, env: Any, docname: str) -> None:
    getattr(env, "pinned_docs", set()).discard(docname)


def _merge(app: Any, env: Any, docnames: set[str], other: Any) -> None:
    if not hasattr(env, "pinned_docs"):
        env.pinned_docs = set()
    env.pinned_docs |= getattr(other, "pinned_docs", set()) & set(docnames)


def setup(app: Any) -> dict[str, Any]:
    from compendium.sphinx.figures import FigureBibtex

    app.connect("config-inited", pin, priority=100)
    app.connect("env-get-outdated", outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.add_directive("figure-bibtex", FigureBibtex)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
