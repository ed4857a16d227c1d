"""Every citation in the code and the docs resolves inside the repository.

The code and the docs cite the project's own rules pages — ``docs/rules/french_tarot.md``,
``docs/rules/tarocchino.md``, ``docs/interface.md`` — by section (``§6.2``), by decision
(``U9``) and by test vector (``TV4``), and name other docs by path (``docs/cli.md``, markdown
links). This test reads tarot_env/, agents/, experiments/, README.md, docs/**/*.md and the
notebooks, and checks that

- every doc path and relative markdown link names a file of the repository (and a markdown
  anchor names a heading of it);
- no citation points outside the repository (the specification files the rules were first
  written from are not distributed: ``rules/french_tarot.md`` without ``docs/``,
  ``design/architecture.md``, ``../shared`` ...);
- every ``§N`` / ``§N.M`` is a section of the page it refers to: a heading numbered ``N.M``,
  or step M of the numbered list under heading ``N``;
- every ``U<n>`` is a decision defined (``**U<n>**``) in ``docs/rules/tarocchino.md``, and every
  ``TV<n>`` a test vector defined there.

Which page a bare ``§`` belongs to, in order:

1. the page named right before it (``docs/interface.md §4``, ``tarocchino §4.2``), right after
   it (``§10 of docs/rules/tarocchino.md``) or as the target of the markdown link around it;
   a run of sections (``§4, §6``, ``§8–§14``, ``§§4.6, 7–14``) shares one page;
2. the family of the file it is in: a path naming French Tarot (``french``) means
   ``docs/rules/french_tarot.md``; one naming the Tarocchino (``bolognese``, ``tarocchino`` or
   a game: ``ottocento`` ...) ``docs/rules/tarocchino.md``; ``interface`` ``docs/interface.md``;
3. in a file of neither family, a family word shortly before it ("French", "Tarocchino",
   "Bolognese", "interface"), else the rules page named last before it in the same paragraph
   or list item;
4. otherwise the citation is ambiguous, and reported as such.

A step of a numbered list under a heading counts as a sub-section (``§8.4.1``, ``§10.6``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRENCH = "docs/rules/french_tarot.md"
TAROCCHINO = "docs/rules/tarocchino.md"
INTERFACE = "docs/interface.md"
RULES_PAGES = (FRENCH, TAROCCHINO, INTERFACE)
#: the page a bare name or a family word stands for
BY_NAME = {
    "french_tarot.md": FRENCH,
    "tarocchino.md": TAROCCHINO,
    "interface.md": INTERFACE,
    "french": FRENCH,
    "tarocchino": TAROCCHINO,
    "bolognese": TAROCCHINO,
    "interface": INTERFACE,
}
TAROCCHINO_WORDS = r"bolognese|tarocchino|ottocento|quattro_scartate|terziglio|millone|centocinquanta|quindici|mattazza"

#: citations of files that are not part of the repository (the specs the rules were written from)
OUTSIDE = re.compile(
    r"\.\./shared|/work/shared|\bshared/(?:rules|design|seeds)|\.\./(?:design|seeds|rules)/"
    r"|(?<![\w/.-])(?:design/)?(?:architecture|style)\.md"
    r"|(?<![\w.-])(?<!docs/)(?:shared/)?rules/(?:french_tarot|tarocchino)\.md"
    r"|(?<![\w.-])(?<!docs/)(?:design/)?interface\.md"
)
URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
MD_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]+)\)")
MD_PATH = re.compile(r"(?<![\w./-])((?:\.\./|/)?[\w][\w./-]*\.md)(?:#([\w-]+))?\b")
SECTION = re.compile(r"§(§?)\s?(\d+(?:\.\d+)*)")
#: what may continue a run of sections: a separator, then another section (``§`` optional)
CONTINUATION = re.compile(r"\s*(,|/|–|-|&|\band\b|\bor\b)\s*(§?)\s?(\d+(?:\.\d+)*)")
DECISION = re.compile(r"(?<![\w+-])U(\d{1,2})(?:\s?[–-]\s?U(\d{1,2}))?(?!\w)")
VECTOR = re.compile(r"(?<![\w-])TV(\d{1,2})(?!\w)")
DOC_BEFORE = re.compile(r"((?:[\w./-]*/)?[\w-]+\.md)[`*\]\s]*(?:,\s*)?$")
DOC_AFTER = re.compile(r"^\s*(?:of|in)\s+[`*]?((?:[\w./-]*/)?[\w-]+\.md)")
WORD_BEFORE = re.compile(r"\b(French|Tarocchino|tarocchino|Bolognese|bolognese|interface)\b[^§\n]{0,25}$")


@dataclass(frozen=True)
class Where:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


# ------------------------------------------------------------------------------ the scanned files


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in ("tarot_env", "agents", "experiments"):
        files += sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted((ROOT / "notebooks").rglob("*.md")) + sorted((ROOT / "notebooks").rglob("*.ipynb"))
    return [f for f in files if ".ipynb_checkpoints" not in f.parts]


def text_of(path: Path) -> str:
    """The text of a file; a notebook's cell sources and text outputs, one cell after another."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        parts.append("".join(cell.get("source", [])))
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", [])))
            parts.append("".join(out.get("data", {}).get("text/plain", [])))
    return "\n".join(parts)


def family(rel: str) -> str | None:
    """The rules page a bare ``§`` of file ``rel`` refers to, by the file's path."""
    low = rel.lower()
    if "french" in low:
        return FRENCH
    if re.search(TAROCCHINO_WORDS, low):
        return TAROCCHINO
    if "interface" in low:
        return INTERFACE
    return None


# ------------------------------------------------------------------------------ the cited pages


@dataclass(frozen=True)
class Page:
    sections: frozenset[str]  # heading numbers, and "N.k" for step k of a numbered list under heading N
    anchors: frozenset[str]  # GitHub's heading slugs
    decisions: frozenset[str]  # "U9", "TV4": the bold definitions


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def page(rel: str) -> Page:
    lines = (ROOT / rel).read_text(encoding="utf-8").splitlines()
    sections: set[str] = set()
    anchors: set[str] = set()
    current: str | None = None  # the number of the heading above, to number its list's steps
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = re.match(r"(#{1,6})\s+(.*)", line)
        if heading:
            anchors.add(slug(heading.group(2)))
            number = re.match(r"(\d+(?:\.\d+)*)\.?(?:\s|$)", heading.group(2))
            current = number.group(1) if number else None
            if current:
                sections.add(current)
            continue
        step = re.match(r"(\d+)\.\s", line)  # a step of a numbered list, not indented
        if step and current:
            sections.add(f"{current}.{step.group(1)}")
    text = "\n".join(lines)
    decisions = set(re.findall(r"\*\*((?:U|TV)\d+)\*\*", text))
    return Page(frozenset(sections), frozenset(anchors), frozenset(decisions))


def resolve_path(name: str, base: Path) -> Path | None:
    """The repository file ``name`` names (relative to ``base``), or None when outside."""
    target = (base / name).resolve()
    try:
        target.relative_to(ROOT)
    except ValueError:
        return None
    return target


# ------------------------------------------------------------------------------ the citations


@dataclass(frozen=True)
class Citation:
    where: Where
    text: str  # as written
    page: str | None  # the rules page it refers to (sections, decisions)
    key: str  # "§6.2", "U9", "TV4", a path, or "" for a plain file check
    problem: str | None  # why it fails before any look-up: outside the repository, a missing file, ambiguous


def expand(start: str, end: str) -> list[str]:
    """The sections of a range ``start–end`` (``11.4–5``, ``8–14``, ``7–9``)."""
    if "." in start and "." not in end:
        parent, first = start.rsplit(".", 1)
        return [f"{parent}.{k}" for k in range(int(first), int(end) + 1)]
    if "." not in start and "." not in end:
        return [str(k) for k in range(int(start), int(end) + 1)]
    return [start, end]


def section_runs(line: str) -> list[tuple[int, int, list[str], str]]:
    """``(start, end, sections, text)`` of each run of ``§`` citations in a line."""
    runs = []
    pos = 0
    while (m := SECTION.search(line, pos)) is not None:
        multi = bool(m.group(1))
        numbers = [m.group(2)]
        end = m.end()
        while (c := CONTINUATION.match(line, end)) is not None:
            sep, sign, number = c.group(1), c.group(2), c.group(3)
            if sep in "–-" and not sign:  # a range: 11.4–5, 7–14
                numbers[-1:] = expand(numbers[-1], number)
            elif sep in "–-":
                numbers[-1:] = expand(numbers[-1], number) if "." not in numbers[-1] else [numbers[-1], number]
            elif sign or multi or "." in number:  # §4, §6 / §§4.6, 7 / §15.6, 15.13
                numbers.append(number)
            else:
                break
            end = c.end()
        runs.append((m.start(), end, numbers, line[m.start() : end]))
        pos = end
    return runs


def page_named(name: str) -> str | None:
    """The rules page (or other doc) a name stands for."""
    name = name.strip("`*")
    if (ROOT / name).is_file():
        return name
    return BY_NAME.get(Path(name).name) or BY_NAME.get(name.lower())


def mask(line: str, spans: list[tuple[int, int]]) -> str:
    """``line`` with the given spans blanked out (positions kept)."""
    for start, end in spans:
        line = line[:start] + " " * (end - start) + line[end:]
    return line


def is_external(target: str) -> bool:
    return bool(re.match(r"[a-z][\w+.-]*:", target))


def link_page(target: str, base: Path) -> str | None:
    """The repository file a link target names (``None`` for an outside or missing one)."""
    if is_external(target):
        return None
    name = target.partition("#")[0]
    file = resolve_path(name, base) if name else None
    return file.relative_to(ROOT).as_posix() if file is not None and file.is_file() else None


def check_link(where: Where, target: str, base: Path, own: Path) -> Citation:
    name, _, anchor = target.partition("#")
    file = resolve_path(name, base) if name else own
    if file is None:
        return Citation(where, target, None, target, "links outside the repository")
    if not file.exists():
        return Citation(where, target, None, target, "links to a missing file")
    if anchor and file.suffix == ".md" and anchor not in page(file.relative_to(ROOT).as_posix()).anchors:
        return Citation(where, target, None, target, f"no heading with the anchor #{anchor}")
    return Citation(where, target, None, "", None)


def check_path(where: Where, m: re.Match) -> Citation:
    name, anchor = m.group(1), m.group(2)
    file = resolve_path(name, ROOT)
    if file is None or not file.is_file():
        return Citation(where, name, None, name, "names a file the repository does not have")
    if anchor and anchor not in page(name).anchors:
        return Citation(where, m.group(), None, name, f"no heading with the anchor #{anchor}")
    return Citation(where, name, None, "", None)


AMBIGUOUS = "ambiguous: name the page (docs/rules/french_tarot.md, docs/rules/tarocchino.md, docs/interface.md)"


def citations_in(path: Path, text: str | None = None) -> list[Citation]:
    """The citations of file ``path`` (of ``text`` as if it were that file's, when given)."""
    rel = path.relative_to(ROOT).as_posix()
    markdown = path.suffix in (".md", ".ipynb")
    own = family(rel)
    out: list[Citation] = []
    context: str | None = None  # the rules page named last in this paragraph (files of no family)
    tail = ""  # the end of the paragraph's previous line: a family word may sit just before a line break
    for number, raw in enumerate((text_of(path) if text is None else text).splitlines(), 1):
        where = Where(rel, number)
        if not raw.strip() or re.match(r"\s*(?:[-*]|\d+\.|#+)\s", raw):
            context, tail = None, ""  # a new paragraph, list item or heading
        line = mask(raw, [m.span() for m in URL.finditer(raw)])
        links = [(m.start(), m.end(), m.start(2) - 1, m.group(2)) for m in MD_LINK.finditer(line)] if markdown else []
        masked = mask(line, [(paren, end) for _, end, paren, _ in links])  # link targets out
        bare = mask(line, [(start, end) for start, end, _, _ in links])  # whole links out
        # the outside world: a spec file that users do not have
        out += [Citation(where, m.group(), None, m.group(), "points outside the repository") for m in OUTSIDE.finditer(masked)]
        # markdown links: the file exists, the anchor is a heading of it
        out += [check_link(where, target, path.parent, path) for _, _, _, target in links if not is_external(target)]
        # doc paths in the text: relative to the repository root
        out += [check_path(where, m) for m in MD_PATH.finditer(bare) if not OUTSIDE.search(m.group(1))]
        # the rules pages this line names, by position: link targets, and paths in the text
        named = sorted(
            [(start, p) for start, _, _, target in links if (p := link_page(target, path.parent)) in RULES_PAGES]
            + [(m.start(), p) for m in MD_PATH.finditer(bare) if (p := page_named(m.group(1))) in RULES_PAGES]
        )
        # sections
        for start, end, numbers, cited in section_runs(masked):
            target = None
            for lstart, lend, _, ltarget in links:  # a § in a link's text: the link's page
                if lstart <= start < lend:
                    target = link_page(ltarget, path.parent)
            if target is None and (m := DOC_BEFORE.search(masked[:start])):
                target = page_named(m.group(1))
            if target is None and (m := DOC_AFTER.match(masked[end:])):
                target = page_named(m.group(1))
            if target is None and (m := re.search(r"\b(tarocchino|french|interface)\s*$", masked[:start], re.I)):
                target = BY_NAME[m.group(1).lower()]
            if target is None:
                target = own
            if target is None and (m := WORD_BEFORE.search(tail + masked[:start].lstrip())):
                target = BY_NAME[m.group(1).lower()]
            if target is None:  # the page named last before it, on this line or earlier in the paragraph
                target = next((p for pos, p in reversed(named) if pos < start), context)
            out += [Citation(where, cited, target, f"§{n}", None if target else AMBIGUOUS) for n in numbers]
        if named:
            context = named[-1][1]
        tail = masked.rstrip()[-30:] + " "
        # decisions and test vectors: the Tarocchino page (or a French page that defines its own)
        for m in DECISION.finditer(masked):
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            for k in range(first, last + 1):
                target = own if own == FRENCH and f"U{k}" in page(FRENCH).decisions else TAROCCHINO
                out.append(Citation(where, m.group(), target, f"U{k}", None))
        out += [Citation(where, m.group(), TAROCCHINO, f"TV{m.group(1)}", None) for m in VECTOR.finditer(masked)]
    return out


@cache
def all_citations() -> tuple[Citation, ...]:
    return tuple(c for f in scanned_files() for c in citations_in(f))


def unresolved(citation: Citation) -> str | None:
    """Why a citation does not resolve, or None."""
    if citation.problem:
        return citation.problem
    if not citation.key or citation.page is None:
        return None
    if not (ROOT / citation.page).is_file():
        return f"{citation.page} does not exist"
    doc = page(citation.page)
    if citation.key.startswith("§"):
        if citation.key[1:] not in doc.sections:
            return f"{citation.page} has no section {citation.key}"
    elif citation.key not in doc.decisions:
        return f"{citation.page} defines no {citation.key}"
    return None


def report(problems: list[tuple[Citation, str]]) -> str:
    lines = [f"{c.where}: {c.text!r} ({c.key or 'file'}): {why}" for c, why in problems]
    return f"{len(lines)} citation(s) do not resolve:\n" + "\n".join(lines)


# ------------------------------------------------------------------------------ the tests


def test_every_citation_resolves():
    problems = [(c, why) for c in all_citations() if (why := unresolved(c)) is not None]
    assert not problems, report(problems)


def test_no_citation_points_outside_the_repository():
    problems = [(c, c.problem) for c in all_citations() if c.problem and "outside" in c.problem]
    assert not problems, report(problems)


def test_the_scan_finds_the_citations():
    """The scanner itself: it sees the code's and the docs' citations of every kind."""
    found = all_citations()
    sections = [c for c in found if c.key.startswith("§")]
    assert len(sections) > 400, len(sections)
    assert {c.page for c in sections} >= set(RULES_PAGES)
    assert len([c for c in found if c.key.startswith("U")]) > 200
    assert any(c.key.startswith("TV") for c in found)
    assert len([c for c in found if not c.key.startswith(("§", "U", "TV"))]) > 50  # paths and links


def test_the_scanner_catches_bad_citations():
    """A missing section, an undefined decision, a missing doc, an outside spec and an
    ambiguous § are each reported; good ones pass."""
    tarocchino_file = ROOT / "tarot_env" / "rules" / "bolognese" / "__init__.py"  # bare § go to the Tarocchino page
    text = "\n".join(
        [
            "see §99.1 and U99, and §8.4.1, §§4.6, 7–14",
            "the spec rules/tarocchino.md §5 and ../shared/design/interface.md",
            "docs/rules/french_tarot.md §6.2, §6.9 and docs/missing.md",
        ]
    )
    found = citations_in(tarocchino_file, text)
    verdicts = {(c.key, unresolved(c) is None) for c in found}
    assert {("§99.1", False), ("U99", False), ("§8.4.1", True), ("§4.6", True), ("§14", True)} <= verdicts
    assert {("§6.2", True), ("§6.9", False), ("docs/missing.md", False)} <= verdicts
    outside = [c.text for c in found if c.problem and "outside" in c.problem]
    assert "rules/tarocchino.md" in outside and any("../shared" in t for t in outside)

    shared_file = ROOT / "tarot_env" / "rules" / "tricks.py"  # neither family, and no family word: ambiguous
    assert [unresolved(c) is None for c in citations_in(shared_file, "a shared rule (§6.2)")] == [False]
    assert [unresolved(c) is None for c in citations_in(shared_file, "French: yes, §6.2")] == [True]


def test_rules_pages_cite_their_sources_and_keep_the_numbering():
    french = (ROOT / FRENCH).read_text(encoding="utf-8")
    tarocchino = (ROOT / TAROCCHINO).read_text(encoding="utf-8")
    assert "Règlement officiel" in french[:1000] and "2012" in french[:1000]
    assert "Barilli" in tarocchino[:1000] and "Il Tarocco" in tarocchino[:1000]
    for rel, last in ((FRENCH, 16), (TAROCCHINO, 16), (INTERFACE, 6)):
        numbers = page(rel).sections
        start = 1 if rel == INTERFACE else 0
        assert {str(k) for k in range(start, last + 1)} <= numbers, rel
    assert {f"U{k}" for k in range(1, 31)} <= page(TAROCCHINO).decisions
    assert {f"15.{k}" for k in range(1, 15)} <= page(FRENCH).sections
