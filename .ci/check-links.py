#!/usr/bin/env python3
"""Every relative link in the documentation resolves: the file or directory exists, and an
anchor (`page.md#section`, `#section`) names a heading of that page by GitHub's slug rules.

Checks README.md, CONTRIBUTING.md and docs/**/*.md (links out of them may point anywhere in
the repository). External links (http:, https:, mailto:) are not fetched. Exit status 1 on any
broken link, each reported as FILE:LINE: LINK: why.

Usage: python3 .ci/check-links.py [ROOT]   (default: the repository root)
"""

import pathlib
import re
import sys
import unicodedata

# Pages allowed to be missing (a warning, not a failure) while another branch writes them;
# README may link them before they land. Empty when nothing is pending.
PENDING_PAGES: frozenset[str] = frozenset()

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
# [text](target) and ![alt](target); target optionally in <...>, optionally with a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield number, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            fence = None


def heading_text(raw):
    """The text GitHub renders for a heading's Markdown source."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*|~~)", "", text)  # emphasis markers (single _ stays: a word char)
    return text


def slug(text):
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    out = []
    for ch in heading_text(text).strip().lower():
        cat = unicodedata.category(ch)
        if ch in "-_" or cat[0] in "LNM":
            out.append(ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


def anchors(path, cache={}):
    """The anchors a Markdown file defines (headings, numbered like GitHub; HTML ids)."""
    if path not in cache:
        seen = {}
        found = set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
            for a in HTML_ANCHOR.findall(line):
                found.add(a)
        cache[path] = found
    return cache[path]


def links(path):
    """(line number, target) of every link in a Markdown file's prose."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        bare = CODE_SPAN.sub("", line)
        for m in INLINE_LINK.finditer(bare):
            yield number, m.group(1).strip("<>")
        m = REFERENCE_DEF.match(bare)
        if m:
            yield number, m.group(1).strip("<>")


def check(root):
    root = root.resolve()
    pages = [root / "README.md", root / "CONTRIBUTING.md"]
    pages += sorted((root / "docs").glob("**/*.md"))
    errors = []
    warnings = []
    checked = 0
    for page in pages:
        if not page.exists():
            continue
        rel_page = page.relative_to(root)
        for number, target in links(page):
            if EXTERNAL.match(target) or target.startswith("//"):
                continue
            checked += 1
            where = f"{rel_page}:{number}: {target}"
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            try:
                rel_dest = dest.relative_to(root).as_posix()
            except ValueError:
                errors.append(f"{where}: leaves the repository")
                continue
            if not dest.exists():
                if rel_dest in PENDING_PAGES:
                    warnings.append(f"{where}: {rel_dest} not written yet (PENDING_PAGES)")
                else:
                    errors.append(f"{where}: {rel_dest} does not exist")
                continue
            if not anchor:
                continue
            if dest.is_dir() or dest.suffix.lower() != ".md":
                errors.append(f"{where}: an anchor into {rel_dest}, which is not a Markdown page")
            elif anchor not in anchors(dest):
                errors.append(f"{where}: {rel_dest} has no heading with the anchor #{anchor}")
    for w in warnings:
        print(f"check-links: warning: {w}", file=sys.stderr)
    for e in errors:
        print(f"check-links: {e}", file=sys.stderr)
    print(f"check-links: {checked} relative links in {len(pages)} pages, {len(errors)} broken")
    return not errors


def self_test():
    """The slug rules on headings this repository uses, against GitHub's rendering."""
    cases = {
        "Sharding: several replicas over one target list": "sharding-several-replicas-over-one-target-list",
        "Players, rules and player-time": "players-rules-and-player-time",
        "100,000 targets per replica": "100000-targets-per-replica",
        "Probe-only replicas, routed by Prometheus": "probe-only-replicas-routed-by-prometheus",
        "The exchange and the registry entry": "the-exchange-and-the-registry-entry",
        "`/health` for uptime tools": "health-for-uptime-tools",
        "Install as a service (systemd)": "install-as-a-service-systemd",
        "snake_case **bold** [link](x.md)": "snake_case-bold-link",
    }
    for text, want in cases.items():
        got = slug(text)
        assert got == want, f"slug({text!r}) = {got!r}, want {want!r}"


if __name__ == "__main__":
    self_test()
    here = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent
    sys.exit(0 if check(here) else 1)
