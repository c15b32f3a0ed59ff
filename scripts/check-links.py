#!/usr/bin/env python3
"""Checks every relative link of the user documentation: README.md, CONTRIBUTING.md,
CHANGELOG.md and docs/**/*.md. A link must name a file or folder that exists, and a `#anchor`
must name a heading (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1,
-2, … for repeats) or an HTML id of the page. Lists the broken ones and exits 1 if there are any.

  scripts/check-links.py [ROOT]
"""
import pathlib
import re
import sys
import urllib.parse

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
# [text](target) and ![alt](target), target up to a space (a title may follow) or ")"
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$", re.M)
HTML_ID = re.compile(r"""<[^>]+\b(?:id|name)\s*=\s*["']([^"']+)["']""")


def pages(root):
    files = [root / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    files += sorted((root / "docs").rglob("*.md"))
    return [f for f in files if f.is_file()]


def without_code(text):
    """The text with fenced blocks blanked (lines kept, for line numbers) and inline code removed."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return INLINE_CODE.sub("", text)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # punctuation goes, letters of any script stay
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        text = FENCE.sub("", path.read_text(encoding="utf-8"))
        found, seen = set(), {}
        for m in HEADING.finditer(text):
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
        found.update(m.group(1).lower() for m in HTML_ID.finditer(text))
        cache[path] = found
    return cache[path]


def links(text):
    """(line, target) of every link in the text, code left out."""
    text = without_code(text)
    for pattern in (INLINE_LINK, REFERENCE):
        for m in pattern.finditer(text):
            yield text.count("\n", 0, m.start()) + 1, m.group(1)


def is_external(target):
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith("//")


def check(root):
    """The broken links, as messages, and how many relative links were checked."""
    broken, checked = [], 0
    for page in pages(root):
        for line, target in links(page.read_text(encoding="utf-8")):
            if is_external(target):
                continue
            checked += 1
            path, _, fragment = target.partition("#")
            path = urllib.parse.unquote(path)
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(root)}:{line}"
            if not dest.exists():
                broken.append(f"{where}: {target}: no such file")
            elif fragment and dest.suffix == ".md" and dest.is_file():
                anchor = urllib.parse.unquote(fragment).lower()
                if anchor not in anchors(dest):
                    broken.append(f"{where}: {target}: no heading #{anchor} in {dest.relative_to(root)}")
    return broken, checked


def main(argv):
    root = pathlib.Path(argv[0] if argv else pathlib.Path(__file__).resolve().parent.parent).resolve()
    broken, checked = check(root)
    for b in broken:
        print(b)
    print(f"{checked} relative links checked in {len(pages(root))} files, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
