#!/usr/bin/env python3
"""Labelled documentation-site corpora for bench/boilerplate.sh, their truth, and the scoring.

Subcommands (all called by bench/boilerplate.sh; see bench/boilerplate/README.md):

  site   NAME GEN SRC OUT --pages N --seed S [--plant F]   sample a site, plant near-duplicates
  warc   OUT --sites "A B.." --from DIR --per-site N --seed S   mixed WARC corpus from site corpora
  crawl  OUT WARC...                                         the real crawl samples (read in place)
  truth  CORPUS                                              every pair with content J >= 0.5
  score  CORPUS RUNDIR                                       scores of one lookalike run
  report OUT RUNS.tsv HEADER.md                              the markdown report

Truth is taken from the site generator's own structure (what the page documents), never from
lookalike: see RULES below. Two pages are true near-duplicates when the Jaccard similarity of their
content's word 5-shingles is >= 0.5.
"""
import argparse
import copy
import gzip
import hashlib
import json
import os
import random
import re
import sys
import uuid
from collections import defaultdict

import lxml.html
from lxml import etree

K = 5
sys.setrecursionlimit(20000)
TRUE_J = 0.5

# ---------------------------------------------------------------- tokens and shingles

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Runs of letters/digits, lower-cased; a CJK ideograph or kana is a word by itself (those scripts
# do not separate words with spaces, and a run would be a whole clause).
WORD = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


def words(text):
    return WORD.findall(text.lower())


def shingles(text):
    w = words(text)
    if not w:
        return frozenset()
    if len(w) < K:
        return frozenset([hash(" ".join(w))])
    return frozenset(hash(" ".join(w[i:i + K])) for i in range(len(w) - K + 1))


def jaccard(a, b):
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


# ---------------------------------------------------------------- generator rules

SKIP_TAGS = {"script", "style", "noscript", "template", "head", "title", "meta", "link"}
BLOCK = {"p", "div", "section", "article", "main", "li", "ul", "ol", "dl", "dt", "dd", "tr", "td",
         "th", "table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "br", "hr", "blockquote",
         "details", "summary", "nav", "header", "footer", "aside", "figure", "figcaption", "form"}

RUSTDOC_TEMPLATE_SECTIONS = {
    "trait-implementations", "synthetic-implementations", "blanket-implementations",
    "implementors", "synthetic-implementors", "foreign-impls",
}


def _cls(e):
    return (e.get("class") or "").split()


def _first(doc, *xpaths):
    """The first element matched by the first of xpaths that matches (lxml elements without
    children are false, so no `or` between them)."""
    for xpath in xpaths:
        r = doc.xpath(xpath)
        if r:
            return r[0]
    return None


def rule_rustdoc(doc):
    """section#main-content, minus the generated impl lists: each h2 of RUSTDOC_TEMPLATE_SECTIONS
    and every sibling after it up to the next h2 (its -list div and the implementors-toggle
    details in it). The sidebar (nav.sidebar) is outside main-content."""
    root = _first(doc, "//section[@id='main-content']")
    excl = []
    if root is not None:
        for h2 in root.xpath(".//h2[@id]"):
            if h2.get("id") in RUSTDOC_TEMPLATE_SECTIONS:
                excl.append(h2)
                sib = h2.getnext()
                while sib is not None and sib.tag != "h2":
                    excl.append(sib)
                    sib = sib.getnext()
    return root, excl


def rule_mdbook(doc):
    """mdBook: the <main> element (the chapter list sidebar and the prev/next nav are outside). The
    rust-doc package also has pages rendered by rustdoc from Markdown (body.rustdoc, the old book's
    "this is an old link" stubs): their body minus the version box."""
    main = _first(doc, "//main")
    if main is not None:
        return main, []
    body = _first(doc, "//body")
    return body, (body.xpath("./div[@id='versioninfo']") if body is not None else [])


def rule_sphinx(doc):
    """Sphinx classic/basic themes: div.body[role=main] (or div[role=main]), minus headerlinks."""
    root = _first(doc, "//div[@role='main' and contains(concat(' ', @class, ' '), ' body ')]",
                  "//div[contains(concat(' ', @class, ' '), ' body ')]", "//*[@role='main']")
    excl = root.xpath(".//a[contains(concat(' ', @class, ' '), ' headerlink ')]") if root is not None else []
    return root, excl


def rule_kernel(doc):
    """Sphinx read-the-docs theme (kernel): div[itemprop=articleBody], minus headerlinks, minus the
    translation disclaimer: the admonitions that are children of articleBody before its first
    section (they come from the included disclaimer-*.rst on every translated page; on a page with
    no section after them, such as disclaimer-ita.html itself, they are the page's content)."""
    root = _first(doc, "//div[@itemprop='articleBody']", "//div[@role='main']")
    excl = []
    if root is not None:
        excl = root.xpath(".//a[contains(concat(' ', @class, ' '), ' headerlink ')]")
        lead = []
        for child in root:
            if child.tag == "section":
                excl.extend(lead)
                break
            if "admonition" in _cls(child):
                lead.append(child)
    return root, excl


def rule_pydata(doc):
    """pydata-sphinx-theme (pandas): main[role=main], minus the prev/next area and headerlinks (the
    section navigation sidebar and the on-page toc are outside main)."""
    root = _first(doc, "//main[@role='main']", "//main")
    excl = []
    if root is not None:
        excl = root.xpath(".//div[contains(concat(' ', @class, ' '), ' prev-next-area ')]"
                          " | .//a[contains(concat(' ', @class, ' '), ' headerlink ')]")
    return root, excl


def rule_docbook(doc):
    """DocBook XSL chunked HTML (GIMP manual): body minus div.navheader and div.navfooter."""
    root = _first(doc, "//body")
    excl = root.xpath("./div[contains(concat(' ', @class, ' '), ' navheader ') or "
                      "contains(concat(' ', @class, ' '), ' navfooter ')]") if root is not None else []
    return root, excl


RULES = {"rustdoc": rule_rustdoc, "mdbook": rule_mdbook, "sphinx": rule_sphinx,
         "kernel": rule_kernel, "pydata": rule_pydata, "docbook": rule_docbook}

# The sites: generator, source folder, sub-folders sampled (None: all), sub-paths left out, host.
SITES = {
    "rustdoc": ("rustdoc", "/usr/share/doc/rust-doc/html", ["std", "core", "alloc", "proc_macro", "test"],
                ["core/arch/", "std/arch/"], "doc.rust-lang.org", "rust-doc"),
    "mdbook": ("mdbook", "/usr/share/doc/rust-doc/html",
               ["book", "reference", "nomicon", "edition-guide", "embedded-book", "rust-by-example",
                "rustc", "rustdoc", "unstable-book", "cargo"], [], "mdbook.rust-lang.org", "rust-doc"),
    "sphinx-python": ("sphinx", "/usr/share/doc/python3.11/html", None, ["_static/", "_sources/", "_downloads/"],
                      "docs.python.org", "python3.11-doc"),
    "kernel": ("kernel", "/usr/share/doc/linux-doc-6.1/html", None, ["_static/", "_sources/", "_downloads/"],
               "docs.kernel.org", "linux-doc-6.1"),
    "pandas": ("pydata", "/usr/share/doc/python-pandas-doc/html", None, ["_static/", "_sources/", "_panels_static/"],
               "pandas.pydata.org", "python-pandas-doc"),
    "docbook-gimp": ("docbook", "/usr/share/doc/gimp-help-en/html/en", None, [], "docs.gimp.org",
                     "gimp-help-en"),
}


def parse(data):
    try:
        return lxml.html.document_fromstring(data)
    except (etree.ParserError, ValueError):
        return None


def _excluded_set(excl):
    s = set()
    for e in excl:
        for d in e.iter():
            s.add(d)
    return s


def element_text(root, skip=frozenset()):
    """The text of root without the subtrees in skip, with a space between text nodes and a newline
    at block elements."""
    out = []

    def walk(e):
        if e in skip or not isinstance(e.tag, str):
            return
        tag = e.tag.lower()
        if tag in SKIP_TAGS:
            return
        if tag in BLOCK:
            out.append("\n")
        if e.text:
            out.append(e.text)
        for c in e:
            walk(c)
            if c.tail:
                out.append(c.tail)
            else:
                out.append(" ")
        if tag in BLOCK:
            out.append("\n")
        else:
            out.append(" ")

    walk(root)
    return re.sub(r"[ \t\r\f\v]+", " ", "".join(out))


def content_of(doc, gen):
    """(content text, how): the page's content by its generator's rule; a page where the rule finds
    no content element is all content (its whole visible body). A content element with no words
    (a title-less stub) gives an empty content: such a page is a near-duplicate of nothing."""
    root, excl = RULES[gen](doc)
    if root is not None:
        return element_text(root, _excluded_set(excl)), "rule"
    body = _first(doc, "//body")
    return (element_text(body) if body is not None else ""), "body"


def is_redirect(data):
    head = data[:4096].lower()
    return b'http-equiv="refresh"' in head or b"http-equiv=refresh" in head


# ---------------------------------------------------------------- site corpora

def list_site(src, subdirs, skips):
    out = []
    roots = [os.path.join(src, s) for s in subdirs] if subdirs else [src]
    for r in roots:
        for dirpath, dirnames, filenames in os.walk(r, followlinks=True):
            dirnames.sort()
            for f in sorted(filenames):
                if not f.endswith(".html"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), src)
                if any(rel.startswith(s) for s in skips) or rel.startswith("src/"):
                    continue
                out.append(rel)
    return out


def tostring(doc):
    return lxml.html.tostring(doc, doctype="<!DOCTYPE html>", encoding="utf-8", method="html")


def _editable_nodes(root, excl):
    """(element, 'text'|'tail') of the text nodes inside root's content (not in excl)."""
    skip = _excluded_set(excl)
    nodes = []
    for e in root.iter():
        if e in skip or not isinstance(e.tag, str) or e.tag.lower() in SKIP_TAGS:
            continue
        if any(a in skip for a in e.iterancestors()):
            continue
        if e.text and e.text.strip():
            nodes.append((e, "text"))
        for c in e:
            if c.tail and c.tail.strip():
                nodes.append((c, "tail"))
    return nodes


def plant_edit(doc, gen, rng, rate):
    root, excl = RULES[gen](doc)
    if root is None:
        return False
    nodes = _editable_nodes(root, excl)
    vocab = words(element_text(root, _excluded_set(excl))) or ["lorem"]
    wre = re.compile(r"[^\W_]+")
    changed = 0
    for e, which in nodes:
        s = getattr(e, which)

        def repl(m):
            nonlocal changed
            if rng.random() >= rate:
                return m.group(0)
            changed += 1
            op = rng.randrange(3)
            if op == 0:
                return rng.choice(vocab)
            if op == 1:
                return ""
            return m.group(0) + " " + rng.choice(vocab)

        setattr(e, which, wre.sub(repl, s))
    return changed > 0


def plant_template(doc_src, doc_tmpl, gen):
    """doc_tmpl with its content element's inside replaced by doc_src's."""
    rs, _ = RULES[gen](doc_src)
    rt, _ = RULES[gen](doc_tmpl)
    if rs is None or rt is None:
        return False
    for c in list(rt):
        rt.remove(c)
    rt.text = rs.text
    for c in rs:
        rt.append(copy.deepcopy(c))
    return True


def plant_date(doc, host, rel, rng, gen=None):
    """A "Printed from URL on DATE" line at the start of the body, outside the content: where the
    content element is the body itself, at the start of its first template element."""
    body = _first(doc, "//body")
    if body is None:
        return False
    if gen is not None:
        root, excl = RULES[gen](doc)
        if root is body:
            if not excl:
                return False
            body = excl[0]
    p = etree.Element("p")
    p.set("class", "printed")
    p.text = "Printed from https://%s/%s on 2024-%02d-%02d %02d:%02d" % (
        host, rel, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59))
    p.tail = body.text
    body.text = None
    body.insert(0, p)
    return True


def cmd_site(a):
    gen, src, subdirs, skips, host, _pkg = SITES[a.name]
    rng = random.Random(f"{a.seed}:{a.name}")
    files = list_site(src, subdirs, skips)
    rng.shuffle(files)
    chosen = []
    for rel in files:  # seeded order; redirect stubs are not documents
        if len(chosen) >= a.pages:
            break
        with open(os.path.join(src, rel), "rb") as f:
            data = f.read()
        if is_redirect(data):
            continue
        chosen.append((rel, data))
    chosen.sort()
    site_dir = os.path.join(a.out, a.name)
    os.makedirs(site_dir, exist_ok=True)
    contents = {}
    docs = {}
    nonrule = empty = 0
    for rel, data in chosen:
        dst = os.path.join(site_dir, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        doc = parse(data)
        text, how = content_of(doc, gen) if doc is not None else ("", "body")
        nonrule += how != "rule"
        empty += not words(text)
        contents[f"{a.name}/{rel}"] = text
        docs[rel] = data
    # planted near-duplicates
    kinds = ["edit", "tmpl", "date"]
    eligible = [rel for rel, _ in chosen if len(words(contents[f"{a.name}/{rel}"])) >= 50]
    n_plant = max(3, round(a.plant * len(chosen)))
    sources = rng.sample(eligible, min(n_plant, len(eligible)))
    planted = []
    dropped = defaultdict(int)
    for i, rel in enumerate(sources):
        kind = kinds[i % 3]
        doc = parse(docs[rel])
        ok = False
        if kind == "edit":
            # a rate drawn per page, so the edited copies span content J from about 0.5 to 0.95
            ok = plant_edit(doc, gen, rng, rng.uniform(0.01, a.edit_rate))
        elif kind == "tmpl":
            other = rng.choice([r for r, _ in chosen if r != rel])
            tdoc = parse(docs[other])
            ok = tdoc is not None and plant_template(doc, tdoc, gen)
            doc = tdoc
        else:
            ok = plant_date(doc, host, rel, rng, gen)
        if not ok:
            dropped[kind + " (no content element)"] += 1
            continue
        stem, ext = os.path.splitext(rel)
        prel = f"{stem}.{kind}-copy{ext}"
        data = tostring(doc)
        pid, sid = f"{a.name}/{prel}", f"{a.name}/{rel}"
        ptext, _ = content_of(parse(data), gen)
        j = jaccard(shingles(ptext), shingles(contents[sid]))
        if j < TRUE_J:
            dropped[kind + " (content J < 0.5)"] += 1
            continue
        with open(os.path.join(site_dir, prel), "wb") as f:
            f.write(data)
        contents[pid] = ptext
        planted.append((pid, sid, kind, j))
    write_contents(os.path.join(a.out, a.name + ".content.jsonl"), contents)
    with open(os.path.join(a.out, a.name + ".planted.tsv"), "w") as f:
        for p in planted:
            f.write("%s\t%s\t%s\t%.6f\n" % p)
    meta = {"name": a.name, "generator": gen, "source": src, "package": _pkg, "host": host,
            "pool": len(files), "pages": len(chosen), "planted": len(planted),
            "planted_dropped": dict(dropped), "pages_without_content_element": nonrule, "pages_with_empty_content": empty,
            "seed": a.seed, "edit_rate": a.edit_rate, "plant": a.plant}
    with open(os.path.join(a.out, a.name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps(meta), file=sys.stderr)


def write_contents(path, contents):
    with open(path, "w") as f:
        for k, v in contents.items():
            f.write(json.dumps({"id": k, "content": v}, ensure_ascii=False) + "\n")


def read_contents(path):
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            out[r["id"]] = r["content"]
    return out


# ---------------------------------------------------------------- WARC corpora

def warc_record(uri, html, rng, date="2024-03-01T12:00:00Z"):
    rid = "urn:uuid:" + str(uuid.UUID(int=rng.getrandbits(128), version=4))
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n"
            % len(html)) + html
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nWARC-Record-ID: <{rid}>\r\n"
            f"WARC-Date: {date}\r\nContent-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return rid, head + http + b"\r\n\r\n"


def cmd_warc(a):
    rng = random.Random(f"{a.seed}:warc")
    out_dir = a.out
    os.makedirs(out_dir, exist_ok=True)
    records = []  # (id, uri, html, content)
    contents = {}
    planted = []
    seen_uri = set()
    for name in a.sites.split():
        gen, _src, _s, _k, host, _p = SITES[name]
        site_contents = read_contents(os.path.join(a.src, name + ".content.jsonl"))
        plants = [l.rstrip("\n").split("\t") for l in open(os.path.join(a.src, name + ".planted.tsv"))]
        planted_ids = {p[0] for p in plants}
        pages = sorted(k for k in site_contents if k not in planted_ids)
        pick = set(rng.sample(pages, min(a.per_site, len(pages))))
        # planted pages whose source is picked come too
        for pid, sid, kind, j in plants:
            if sid in pick:
                pick.add(pid)
                planted.append((f"https://{host}/{pid.split('/', 1)[1]}", f"https://{host}/{sid.split('/', 1)[1]}", kind, float(j)))
        for k in sorted(pick):
            rel = k.split("/", 1)[1]
            uri = f"https://{host}/{rel}"
            with open(os.path.join(a.src, k), "rb") as f:
                html = f.read()
            records.append([uri, uri, html, site_contents[k], gen, rel, host])
            seen_uri.add(uri)
    rng.shuffle(records)
    # revisits: the same URI again, identical or with a changed "printed" date line
    revisit_src = rng.sample(records, min(a.revisits, len(records)))
    revisits = []
    for i, r in enumerate(revisit_src):
        uri, _id, html, content, gen, rel, host = r
        if i % 2:
            doc = parse(html)
            plant_date(doc, host, rel, rng, gen)
            html2 = tostring(doc)
            kind = "revisit-date"
        else:
            html2 = html
            kind = "revisit-same"
        revisits.append([uri, None, html2, content, gen, rel, host, kind])
    path = os.path.join(out_dir, "mixed.warc.gz")
    with open(path, "wb") as f:
        for r in records:
            _rid, rec = warc_record(r[0], r[2], rng)
            f.write(gzip.compress(rec, compresslevel=6, mtime=0))
            contents[r[0]] = r[3]
        for r in revisits:
            rid, rec = warc_record(r[0], r[2], rng, date="2024-04-01T12:00:00Z")
            f.write(gzip.compress(rec, compresslevel=6, mtime=0))
            rid_id = f"{r[0]}#{rid}"
            ptext, _ = content_of(parse(r[2]), r[4])
            contents[rid_id] = ptext
            planted.append((rid_id, r[0], r[7], jaccard(shingles(ptext), shingles(r[3]))))
    write_contents(os.path.join(out_dir, "mixed.content.jsonl"), contents)
    with open(os.path.join(out_dir, "mixed.planted.tsv"), "w") as f:
        for p in planted:
            f.write("%s\t%s\t%s\t%.6f\n" % p)
    meta = {"name": "mixed-warc", "sites": a.sites, "records": len(records) + len(revisits),
            "revisits": len(revisits), "planted": len(planted), "seed": a.seed}
    with open(os.path.join(out_dir, "mixed.meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps(meta), file=sys.stderr)


def read_warc(path):
    """(headers, payload) of each record of a WARC file (gzip members or plain)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        while True:
            line = f.readline()
            if not line:
                return
            if not line.strip():
                continue
            if not line.startswith(b"WARC/"):
                continue
            headers = {}
            while True:
                h = f.readline()
                if not h or not h.strip():
                    break
                k, _, v = h.decode("utf-8", "replace").partition(":")
                headers[k.strip().lower()] = v.strip()
            n = int(headers.get("content-length", "0"))
            yield headers, f.read(n)


def cmd_crawl(a):
    """The real crawl samples: every response's visible text; its 'content' is that text minus the
    lines found on two or more pages of the same host."""
    os.makedirs(a.out, exist_ok=True)
    pages = []
    seen = set()
    for w in a.warcs:
        for h, payload in read_warc(w):
            if h.get("warc-type") != "response":
                continue
            uri = h.get("warc-target-uri", "")
            _, _, body = payload.partition(b"\r\n\r\n")
            if not body:
                _, _, body = payload.partition(b"\n\n")
            doc = parse(body) if body.strip() else None
            text = ""
            if doc is not None:
                b = _first(doc, "//body")
                text = element_text(b if b is not None else doc)
            rid = h.get("warc-record-id", "").strip("<>")
            pid = uri if uri not in seen else f"{uri}#{rid}"
            seen.add(uri)
            lines = [re.sub(r"\s+", " ", l).strip() for l in text.split("\n")]
            pages.append((pid, uri, [l for l in lines if l]))
    host_lines = defaultdict(lambda: defaultdict(int))
    host = lambda u: re.sub(r"^[a-z]+://([^/]+).*$", r"\1", u.lower())
    for pid, uri, lines in pages:
        for l in set(lines):
            host_lines[host(uri)][l] += 1
    contents, firsts = {}, {}
    for pid, uri, lines in pages:
        hl = host_lines[host(uri)]
        contents[pid] = "\n".join(l for l in lines if hl[l] < 2)
        firsts[pid] = " | ".join(lines[:6])[:300]
    write_contents(os.path.join(a.out, "crawl.content.jsonl"), contents)
    with open(os.path.join(a.out, "crawl.firstlines.json"), "w") as f:
        json.dump(firsts, f, ensure_ascii=False, indent=0)
    open(os.path.join(a.out, "crawl.planted.tsv"), "w").close()
    with open(os.path.join(a.out, "crawl.meta.json"), "w") as f:
        json.dump({"name": "crawl", "records": len(pages), "warcs": a.warcs}, f, indent=1)
    print(json.dumps({"crawl_pages": len(pages)}), file=sys.stderr)


# ---------------------------------------------------------------- truth

def all_pairs(sets, t):
    """Every pair (i, j, J) with Jaccard >= t, exactly: prefix filtering over tokens ordered by
    rising document frequency, then the exact Jaccard of each candidate."""
    df = defaultdict(int)
    for s in sets:
        for x in s:
            df[x] += 1
    order = {}
    index = defaultdict(list)
    out = []
    ids = sorted(range(len(sets)), key=lambda i: len(sets[i]))
    for i in ids:
        s = sets[i]
        if not s:
            continue
        toks = sorted(s, key=lambda x: (df[x], x))
        plen = len(toks) - int(t * len(toks) + 1e-9) + 1
        cands = set()
        for x in toks[:plen]:
            for j in index[x]:
                cands.add(j)
            index[x].append(i)
        for j in cands:
            o = sets[j]
            if len(o) < t * len(s) - 1e-9:
                continue
            jj = jaccard(s, o)
            if jj >= t:
                out.append((j, i, jj))
    return out


def corpus_files(corpus):
    """content.jsonl, planted.tsv of a corpus prefix (.../NAME)."""
    return corpus + ".content.jsonl", corpus + ".planted.tsv"


def cmd_truth(a):
    cpath, _ = corpus_files(a.corpus)
    contents = read_contents(cpath)
    ids = list(contents)
    sets = [shingles(contents[i]) for i in ids]
    pairs = all_pairs(sets, TRUE_J)
    with open(a.corpus + ".truth.tsv", "w") as f:
        for i, j, jj in sorted(pairs, key=lambda p: (ids[p[0]], ids[p[1]])):
            x, y = sorted((ids[i], ids[j]))
            f.write(f"{x}\t{y}\t{jj:.6f}\n")
    print(json.dumps({"truth_pairs": len(pairs), "ge_0.8": sum(p[2] >= 0.8 for p in pairs)}), file=sys.stderr)


# ---------------------------------------------------------------- scoring

def unescape_tsv(s):
    return s.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r").replace("\\\\", "\\")


def cmd_score(a):
    cpath, ppath = corpus_files(a.corpus)
    contents = read_contents(cpath)
    cache = {}

    def sh(i):
        if i not in cache:
            cache[i] = shingles(contents.get(i, ""))
        return cache[i]

    def resolve(i):
        if i in contents:
            return i
        if a.strip and i.startswith(a.strip):
            j = i[len(a.strip):]
            if j in contents:
                return j
        return i

    unknown = set()

    def J(x, y):
        for z in (x, y):
            if z not in contents:
                unknown.add(z)
        return jaccard(sh(x), sh(y))

    pairs = []
    with open(os.path.join(a.run, "pairs.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            x, y = resolve(unescape_tsv(p[0])), resolve(unescape_tsv(p[1]))
            pairs.append((x, y, float(p[2]), J(x, y)))
    reported = {frozenset((x, y)) for x, y, _, _ in pairs}
    cluster_of = {}
    clusters = []
    with open(os.path.join(a.run, "clusters.jsonl")) as f:
        for line in f:
            c = json.loads(line)
            mem = [resolve(c["representative"])] + [resolve(m["id"]) for m in c["members"]]
            for m in mem:
                cluster_of[m] = len(clusters)
            clusters.append(mem)
    planted = [l.rstrip("\n").split("\t") for l in open(ppath)] if os.path.exists(ppath) else []
    kinds = defaultdict(lambda: [0, 0, 0])
    hi = [0, 0]
    for pid, sid, kind, pj in planted:
        k = kinds[kind]
        found = frozenset((pid, sid)) in reported
        k[0] += 1
        k[1] += found
        k[2] += pid in cluster_of and cluster_of.get(pid) == cluster_of.get(sid)
        if float(pj) >= 0.8:
            hi[0] += 1
            hi[1] += found
    truth = []
    tpath = a.corpus + ".truth.tsv"
    for line in open(tpath):
        x, y, j = line.rstrip("\n").split("\t")
        if float(j) >= 0.8:
            truth.append((x, y))
    t_found = sum(frozenset(p) in reported for p in truth)
    t_clu = sum(x in cluster_of and cluster_of.get(x) == cluster_of.get(y) for x, y in truth)
    false = [p for p in pairs if p[3] < TRUE_J]
    # clusters: every member pair (sampled above 200 members)
    rng = random.Random(1)
    worst_cluster = None
    false_clusters = 0
    for ci, mem in enumerate(clusters):
        n = len(mem)
        if n <= 200:
            mp = [(mem[i], mem[j]) for i in range(n) for j in range(i + 1, n)]
            sampled = False
        else:
            mp = []
            for _ in range(20000):
                i, j = rng.sample(range(n), 2)
                mp.append((mem[i], mem[j]))
            sampled = True
        nf = 0
        ex = None
        for x, y in mp:
            if J(x, y) < TRUE_J:
                nf += 1
                ex = ex or (x, y)
        if nf:
            false_clusters += 1
            if worst_cluster is None or n > worst_cluster["size"]:
                worst_cluster = {"size": n, "false_pair_frac": nf / len(mp), "sampled": sampled,
                                 "members": mem[:4], "example_false": ex,
                                 "example_J": J(*ex)}
    false.sort(key=lambda p: (p[3], -p[2]))
    res = {
        "pairs": len(pairs),
        "false_pairs": len(false),
        "precision": (1 - len(false) / len(pairs)) if pairs else None,
        "exact_pairs": sum(p[2] >= 1.0 for p in pairs),
        "false_exact_pairs": sum(p[2] >= 1.0 and p[3] < TRUE_J for p in false),
        "planted": {k: {"n": v[0], "pair": v[1], "cluster": v[2]} for k, v in sorted(kinds.items())},
        "planted_total": sum(v[0] for v in kinds.values()),
        "planted_pair_recall": (sum(v[1] for v in kinds.values()) / sum(v[0] for v in kinds.values())) if planted else None,
        "planted_cluster_recall": (sum(v[2] for v in kinds.values()) / sum(v[0] for v in kinds.values())) if planted else None,
        "planted_ge08": hi[0],
        "planted_ge08_pair_recall": hi[1] / hi[0] if hi[0] else None,
        "truth_ge08": len(truth),
        "truth_ge08_pair_recall": t_found / len(truth) if truth else None,
        "truth_ge08_cluster_recall": t_clu / len(truth) if truth else None,
        "clusters": len(clusters),
        "false_clusters": false_clusters,
        "largest_false_cluster": worst_cluster,
        "worst_false": [{"a": x, "b": y, "reported": s, "J": j} for x, y, s, j in false[:5]],
        "all_pairs": [{"a": x, "b": y, "reported": s, "J": j} for x, y, s, j in pairs] if a.all_pairs else None,
        "unknown_ids": sorted(unknown)[:5],
        "unknown_count": len(unknown),
    }
    with open(os.path.join(a.run, "score.json"), "w") as f:
        json.dump(res, f, indent=1, ensure_ascii=False)


# ---------------------------------------------------------------- report

def pct(x):
    return "–" if x is None else f"{100 * x:.1f}%"


def cmd_report(a):
    rows = [l.rstrip("\n").split("\t") for l in open(a.runs)]
    # corpus, run, flags, status, user+sys, wall, rss_kb, rundir, corpusprefix
    out = [open(a.header).read()]
    by_corpus = defaultdict(list)
    for r in rows:
        by_corpus[r[0]].append(r)
    details = []
    for corpus, rs in by_corpus.items():
        meta_path = rs[0][8] + ".meta.json"
        meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
        truth_path = rs[0][8] + ".truth.tsv"
        ntruth = sum(1 for _ in open(truth_path)) if os.path.exists(truth_path) else 0
        out.append(f"\n## {corpus}\n")
        desc = ", ".join(f"{k} {v}" for k, v in meta.items() if k in (
            "generator", "package", "pages", "records", "planted", "revisits", "pool", "pages_without_content_element",
            "pages_with_empty_content"))
        out.append(f"{desc}; truth pairs with content J >= 0.5: {ntruth}.\n")
        if meta.get("planted_dropped"):
            out.append(f"Planted pairs dropped (content J < 0.5 or no content element): {meta['planted_dropped']}.\n")
        out.append("\n| run | flags | pairs | false pairs | precision | planted recall (pair / cluster) | planted J>=0.8 pair recall "
                   "| truth J>=0.8 recall (pair / cluster) | largest false cluster (size, false member pairs) "
                   "| CPU s | wall s | peak RSS MB | CPU vs off |\n"
                   "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        off_cpu = None
        for r in rs:
            if r[1] == "off" and r[3] == "ok":
                off_cpu = float(r[4])
        if off_cpu is None:
            for r in rs:
                if r[1] == "textoff" and r[3] == "ok":
                    off_cpu = None
        for r in rs:
            name, flags, status = r[1], r[2], r[3]
            if status != "ok":
                out.append(f"| {name} | `{flags}` | {status} | | | | | | | | | | |\n")
                continue
            s = json.load(open(os.path.join(r[7], "score.json")))
            lfc = s["largest_false_cluster"]
            lfc_s = f"{lfc['size']} ({pct(lfc['false_pair_frac'])}{', sampled' if lfc['sampled'] else ''})" if lfc else "none"
            ratio = f"{float(r[4]) / off_cpu:.2f}" if off_cpu else "–"
            out.append(
                f"| {name} | `{flags}` | {s['pairs']} | {s['false_pairs']} | {pct(s['precision'])} | "
                f"{pct(s['planted_pair_recall'])} / {pct(s['planted_cluster_recall'])} (of {s['planted_total']}) | "
                f"{pct(s['planted_ge08_pair_recall'])} (of {s['planted_ge08']}) | "
                f"{pct(s['truth_ge08_pair_recall'])} / {pct(s['truth_ge08_cluster_recall'])} (of {s['truth_ge08']}) | "
                f"{lfc_s} | {float(r[4]):.2f} | {float(r[5]):.2f} | {int(r[6]) / 1024:.0f} | {ratio} |\n")
            d = [f"\n**{corpus} / {name}** (`{flags}`): planted by kind (found as pair / in a cluster of n): "
                 + ", ".join(f"{k} {v['pair']}/{v['cluster']} of {v['n']}" for k, v in s["planted"].items())
                 + f"; exact-copy pairs {s['exact_pairs']} ({s['false_exact_pairs']} false); "
                 f"clusters {s['clusters']} ({s['false_clusters']} with a false member pair).\n"]
            if s["unknown_count"]:
                d.append(f"\n  ids without truth: {s['unknown_count']}, e.g. {s['unknown_ids']}\n")
            if lfc:
                d.append(f"\n  largest false cluster: {lfc['size']} members, e.g. "
                         + ", ".join(f"`{m}`" for m in lfc["members"])
                         + f"; a false member pair: `{lfc['example_false'][0]}` ~ `{lfc['example_false'][1]}` "
                         f"(content J {lfc['example_J']:.3f})\n")
            if s["worst_false"]:
                d.append("\n  worst false pairs (reported similarity, content J):\n")
                for w in s["worst_false"]:
                    d.append(f"  - `{w['a']}` ~ `{w['b']}`: {w['reported']:.3f}, J {w['J']:.3f}\n")
            if s.get("all_pairs") is not None:
                firsts = {}
                fl = rs[0][8] + ".firstlines.json"
                if os.path.exists(fl):
                    firsts = json.load(open(fl))
                d.append(f"\n  every reported pair ({len(s['all_pairs'])}), with the content J "
                         "(visible text minus lines repeated on the host) and the pages' first lines:\n")
                for w in s["all_pairs"]:
                    d.append(f"  - `{w['a']}` ~ `{w['b']}`: {w['reported']:.3f}, J {w['J']:.3f}"
                             f"{'  **FALSE**' if w['J'] < TRUE_J else ''}\n"
                             f"    - A: {firsts.get(w['a'], '?')[:160]}\n    - B: {firsts.get(w['b'], '?')[:160]}\n")
            details.append("".join(d))
    out.append("\n## Details\n")
    out.extend(details)
    with open(a.out, "w") as f:
        f.write("".join(out))


def main():
    ap = argparse.ArgumentParser()
    sp = ap.add_subparsers(dest="cmd", required=True)
    p = sp.add_parser("site")
    p.add_argument("name", choices=sorted(SITES))
    p.add_argument("out")
    p.add_argument("--pages", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--plant", type=float, default=0.03)
    p.add_argument("--edit-rate", type=float, default=0.08)
    p = sp.add_parser("warc")
    p.add_argument("out")
    p.add_argument("--src", required=True)
    p.add_argument("--sites", required=True)
    p.add_argument("--per-site", type=int, default=250)
    p.add_argument("--revisits", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p = sp.add_parser("crawl")
    p.add_argument("out")
    p.add_argument("warcs", nargs="+")
    p = sp.add_parser("truth")
    p.add_argument("corpus")
    p = sp.add_parser("score")
    p.add_argument("corpus")
    p.add_argument("run")
    p.add_argument("--strip", default="")
    p.add_argument("--all-pairs", action="store_true")
    p = sp.add_parser("report")
    p.add_argument("out")
    p.add_argument("runs")
    p.add_argument("header")
    a = ap.parse_args()
    {"site": cmd_site, "warc": cmd_warc, "crawl": cmd_crawl, "truth": cmd_truth,
     "score": cmd_score, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
