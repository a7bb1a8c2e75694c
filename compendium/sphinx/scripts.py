"""One copy of each inline script on a page."""

from __future__ import annotations

from typing import Any


def unique_scripts(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Drop repeated inline scripts: sphinx-thebe adds its configuration (``const THEBE_JS_URL``)
    once per read phase, and a repeated ``const`` is a JavaScript error on every page."""
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        # the same inline script is added once with filename None and once with "": same key
        name = getattr(script, "filename", script) or None
        key = (str(name), tuple(sorted(getattr(script, "attributes", {}).items())))
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique
