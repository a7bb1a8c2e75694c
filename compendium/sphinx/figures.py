"""``{figures-list}``: every figure of the book (``book/figures``) under a heading taken from its caption: the
image, the caption, the notebook and cell that make it, the one command that regenerates it and compares it
byte for byte (``compendium.regenerate.figures``), its files with their sha256 and their links in the repository at
the commit the book is built from, and its citation entry (BibTeX and plain text) naming the book's version,
the commit, the figure's label and its files' sha256; how to cite a figure, once at the top.

``{figure-bibtex} <name>`` (registered by the ``citation`` extension, ``compendium/sphinx/citation.py``): the BibTeX
entry of one figure, with its label, the book's version and commit, and its files' sha256."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.sphinx.pages import cell_text, root_of, toc_files, toc_index


_SAVE = re.compile(r"save_figure\(\s*[^,()]+,\s*(?P<q>[\"'])(?P<name>[^\"']+)(?P=q)\s*[,)]")


def figure_sources(root: Path) -> dict[str, tuple[str, int, dict[str, Any]]]:
    """figure file stem -> (notebook without suffix, code cell number from 1, mystnb figure metadata)."""
    found: dict[str, tuple[str, int, dict[str, Any]]] = {}
    for _, name in toc_files(root):
        path = root / f"{name}.ipynb"
        if not path.is_file():
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        for number, cell in enumerate(code, start=1):
            for match in _SAVE.finditer("".join(cell["source"])):
                found[match["name"]] = (name, number, cell.get("metadata", {}).get("mystnb", {}).get("figure", {}))
    return found


def heading_of(caption: str) -> str:
    """The heading of a figure on the Figures page: its caption's first clause (MyST source).

    The caption up to its first ": ", "; " or ". " outside roles, code, math and parentheses,
    or up to its first parenthesis once the clause has three words; the whole caption if it
    has none of them. A prefix of the caption, so it is never cut with an ellipsis."""
    depth, quote, words = 0, "", 0
    for i, char in enumerate(caption):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "`$":
            quote = char
        elif char == "(":
            if depth == 0 and words >= 3 and i > 0 and caption[i - 1] == " ":
                return caption[:i].rstrip()
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and char in ":;." and caption[i + 1 : i + 2] in (" ", ""):
            if char != "." or not caption[max(i - 3, 0) : i].lower().endswith(("eq", "fig", "e.g", "i.e", "vs", "al")):
                return caption[:i].rstrip()
        elif char == " ":
            words += 1
    return caption.rstrip(". ")


class FiguresList(Directive):
    """Every figure file of ``book/figures``: a heading from its caption, the image (full width,
    a link to its SVG at full size: ``compendium/sphinx/figure_links.py``), its caption, the cell that
    makes it and its files' sha256; how to cite a figure is said once, above them."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import hashlib

        from compendium.regenerate.figures import command as regenerate_command

        root = root_of(self)
        env = self.state.document.settings.env
        folder = root / "book" / "figures"
        # a notebook added to the toc (and the figures it writes) rebuilds this page
        env.note_dependency(str(root / "_toc.yml"))
        sources = figure_sources(root)
        stems = sorted({p.stem for p in folder.iterdir() if p.suffix in (".png", ".svg")})
        orphans = [s for s in stems if s not in sources]
        if orphans:
            raise self.error(f"figures-list: no notebook of the toc writes {orphans}")
        citation = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
        env.note_dependency(str(root / "CITATION.cff"))
        build = _build(env)
        book = f"{citation['title']} ({build['date'][:4]}), version {build['version']}"
        cite = [
            f"**How to cite a figure.** Cite the book, *{cell_text(book)}*, and the figure's label, given "
            "under each figure; to say exactly which image you mean, add its file and that file's sha256, "
            "which identifies the figure of this version of the book. "
            "Under each figure, *Cite this figure, check it* unfolds its entry, in BibTeX and as plain text, "
            "with the version, the commit, the label and the digests, then its two files with their sha256. "
            "**To check a figure**, run the command given there in a clone of the repository: it reruns the "
            "notebook that makes the figure and compares both files with the stored ones, byte for byte.",
            "",
        ]
        intro = nodes.container(classes=["figures-citation"])
        self.state.nested_parse(StringList(cite, source=env.docname), 0, intro)
        out: list[nodes.Node] = [intro]
        for stem in sorted(stems, key=lambda s: (toc_index(root, sources[s][0]), sources[s][1], s)):
            notebook, number, meta = sources[stem]
            env.note_dependency(str(root / f"{notebook}.ipynb"))  # the caption lives in the notebook
            rows, digests = [], {}
            for suffix in (".png", ".svg"):
                path = folder / f"{stem}{suffix}"
                env.note_dependency(str(path))
                digest = digests[suffix] = hashlib.sha256(path.read_bytes()).hexdigest()
                rows.append(f"| [`book/figures/{stem}{suffix}`](/book/figures/{stem}{suffix}) | `{digest}` |")
            pinned = ""
            if build["repository"]:
                at = f"{build['repository']}/blob/{build['ref']}/book/figures/{stem}"
                pinned = f" In the repository at {build['what']}: [PNG]({at}.png), [SVG]({at}.svg)."
            label = meta.get("name", f"fig-{stem}")
            caption = " ".join(str(meta.get("caption", "")).split())
            # the image and its caption, in a box whose caption becomes the image's alternative
            # text once its references are resolved (compendium/sphinx/accessibility.py); not a figure,
            # which would be numbered a second time
            entry = [
                f"```{{image}} /book/figures/{stem}.png",
                "```",
                "",
                f"{{numref}}`{label}` — {caption}",
            ]
            bibtex, plain = figure_citation(stem, label=label, title=bibtex_title(caption, stem), citation=citation,
                                            version=build["version"], commit=build["commit"], date=build["date"],
                                            repository=build["repository"], ref=build["ref"], digests=digests)
            fence = "`" * 3
            # what a reader scrolling the gallery needs is the figure, its caption and where it is made;
            # the files, their digests, the command that checks them and the entry that cites them unfold
            # under it (on a phone they were two thirds of each figure's screens)
            lines = [
                f"Made by code cell {number} of {{doc}}`/{notebook}`; label `{label}`.",
                "",
                ":::{admonition} Cite this figure, check it",
                ":class: dropdown figure-citation",
                plain,
                "",
                f"{fence}bibtex",
                *bibtex.splitlines(),
                fence,
                "",
                f"Regenerate and compare: `{regenerate_command(stem)}`.{pinned}",
                "",
                "| file | sha256 |",
                "|---|---|",
                *rows,
                ":::",
                "",
            ]
            section = nodes.section(ids=[f"figure-{stem}"])
            heading = nodes.container()
            self.state.nested_parse(StringList([heading_of(caption) or stem], source=env.docname), 0, heading)
            paragraph = heading.next_node(nodes.paragraph)
            section += nodes.title("", "", *(paragraph.children if paragraph is not None else [nodes.Text(stem)]))
            box = nodes.container(classes=["captioned-image"])
            self.state.nested_parse(StringList(entry, source=env.docname), 0, box)
            section += box
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out


def _build(env: Any) -> dict[str, str]:
    """The build the page names (the ``citation`` extension's): the repository, the ref of its links and
    what that ref is, in words; the page is read again when they change."""
    from compendium.sphinx import citation

    citation.uses_build(env)
    info = citation.info(env.app)
    what = f"release {info.tag}" if info.tag else (f"commit {info.short}" if info.commit else f"tag {info.ref}")
    return {"repository": citation.repository(env.app).rstrip("/"), "ref": info.ref, "what": what,
            "version": info.version, "commit": info.commit or "", "date": info.date}


def bibtex_title(caption: str, stem: str) -> str:
    """A figure's title in its citation: its caption's first clause, a role keeping its text ({setup}`1` reads 1),
    math and code marks gone."""
    return re.sub(r"[{}`$\\]", "", re.sub(r"\{[\w:.-]+\}`([^`]*)`", r"\1", heading_of(caption) or stem))


def _authors(citation: dict[str, Any], braced: bool) -> list[str]:
    return [("{" + a["name"] + "}" if braced else a["name"]) if a.get("name")
            else f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ") for a in citation["authors"]]


def figure_citation(stem: str, *, label: str, title: str, citation: dict[str, Any], version: str, commit: str,
                    date: str, repository: str, ref: str, digests: dict[str, str]) -> tuple[str, str]:
    """The citation entry of one figure, as BibTeX (a ``@misc``) and as plain text: its label, the book's
    version and commit (and the commit's date), its files' sha256, its SVG at that commit."""
    return (figure_bibtex(stem, label=label, title=title, citation=citation, version=version, commit=commit,
                          date=date, repository=repository, ref=ref, digests=digests),
            figure_plain(stem, label=label, title=title, citation=citation, version=version, commit=commit,
                         date=date, repository=repository, ref=ref, digests=digests))


def figure_bibtex(stem: str, *, label: str, title: str, citation: dict[str, Any], version: str, commit: str,
                  date: str, repository: str, ref: str, digests: dict[str, str]) -> str:
    """A BibTeX ``@misc`` entry for one figure: its label, the book's version and commit, its files' sha256."""
    key = "shapley_compendium_" + re.sub(r"[^a-z0-9]+", "_", stem.lower())
    files = "; ".join(f"book/figures/{stem}{suffix} sha256 {digest}" for suffix, digest in digests.items())
    fields = [
        ("author", " and ".join(_authors(citation, braced=True))),
        ("title", f"{title} (figure {label})"),
        ("howpublished", f"In: {citation['title']}, version {version}"),
        ("year", date[:4]),
        ("version", version),
        ("note", f"Commit {commit} of {date}; {files}" if commit else files),
        ("url", f"{repository}/blob/{ref}/book/figures/{stem}.svg" if repository else ""),
    ]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
    return f"@misc{{{key},\n{body}\n}}"


def figure_plain(stem: str, *, label: str, title: str, citation: dict[str, Any], version: str, commit: str,
                 date: str, repository: str, ref: str, digests: dict[str, str]) -> str:
    """The same entry as one sentence of plain text (author, year, title and label, the book, version, commit,
    the files' sha256, the URL)."""
    files = "; ".join(f"book/figures/{stem}{suffix}, sha256 {digest}" for suffix, digest in digests.items())
    where = f" Commit {commit} of {date}." if commit else ""
    url = f" {repository}/blob/{ref}/book/figures/{stem}.svg" if repository else ""
    return (f"{', '.join(_authors(citation, braced=False))} ({date[:4]}). {title} (figure {label}). In: "
            f"{citation['title']}, version {version}.{where} {files}.{url}")


class FigureBibtex(Directive):
    """``{figure-bibtex} <name>``: the BibTeX entry of the figure ``book/figures/<name>``."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import hashlib

        from compendium.sphinx import citation

        root = root_of(self)
        env = self.state.document.settings.env
        stem = self.arguments[0]
        sources = figure_sources(root)
        if stem not in sources:
            raise self.error(f"figure-bibtex: no notebook of the toc saves the figure {stem!r}")
        notebook, _, meta = sources[stem]
        env.note_dependency(str(root / f"{notebook}.ipynb"))
        env.note_dependency(str(root / "CITATION.cff"))
        digests = {}
        for suffix in (".png", ".svg"):
            path = root / "book" / "figures" / f"{stem}{suffix}"
            env.note_dependency(str(path))
            digests[suffix] = hashlib.sha256(path.read_bytes()).hexdigest()
        citation.uses_build(env)
        info = citation.info(env.app)
        cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
        caption = " ".join(str(meta.get("caption", "")).split())
        text = figure_bibtex(stem, label=meta.get("name", f"fig-{stem}"), title=bibtex_title(caption, stem), citation=cff,
                             version=info.version, commit=info.commit or "", date=info.date,
                             repository=citation.repository(env.app).rstrip("/"), ref=info.ref, digests=digests)
        block = nodes.literal_block(text, text)
        block["language"] = "bibtex"
        return [block]
