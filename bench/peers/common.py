"""Shared by the peer runners: reading the corpus, tokenizing like lookalike, writing pairs.

Every runner tokenizes with the same function, so the peers differ only in their MinHash, their
LSH and what they do with its candidates. The tokenizer follows lookalike's normalization as far as
a few regular expressions can (see crates/lookalike/src/normalize.rs): NFKC, case folding,
word-internal punctuation dropped (don't -> dont, 3.14 -> 314, foo_bar -> foobar), tokens are runs
of letters and digits, and each character of a script written without spaces (Han, kana, Thai, ...)
is a token of its own. Word 5-shingles are the 5 consecutive tokens joined by a space; a document
with fewer than 5 tokens is one shingle of all its tokens.
"""

import json
import os
import re
import sys
import time
import unicodedata

# lookalike's is_spaceless_script ranges.
_SPACELESS = (
    "\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\u2e80-\u2fdf"
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua9e0-\ua9ff\uaa60-\uaa7f\uf900-\ufaff\uff66-\uff9f"
    "\U0001b000-\U0001b16f\U00020000-\U0003134f"
)
# Word-internal punctuation (UAX #29 MidLetter / MidNumLet / MidNum, connector punctuation),
# dropped so that its two sides make one token.
_INTERNAL = re.compile(
    r"(?<=[^\W\d_])[:\u00b7](?=[^\W\d_])"  # between letters
    r"|(?<=[^\W\d_])['\u2019.](?=[^\W\d_])"  # between letters
    r"|(?<=\d)['\u2019.,;](?=\d)"  # between digits
    r"|_"
)
_TOKEN = re.compile("[" + _SPACELESS + "]|[^\\W" + _SPACELESS + "]+")

SHINGLE_WORDS = 5


def tokens(text):
    text = unicodedata.normalize("NFKC", text).casefold()
    return _TOKEN.findall(_INTERNAL.sub("", text))


def shingles(text, n=SHINGLE_WORDS):
    """The set of word n-shingles of `text`, as strings."""
    t = tokens(text)
    if len(t) <= n:
        return {" ".join(t)} if t else set()
    return {" ".join(t[i : i + n]) for i in range(len(t) - n + 1)}


def iter_corpus(path, ids, id_field="id", text_field="text"):
    """Yields the texts of a JSONL corpus in file order, appending each id to `ids` (streamed, so
    that no runner holds the whole corpus in memory)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            ids.append(str(rec[id_field]))
            yield rec.get(text_field) or ""


def chunks(it, n):
    """Lists of up to n items of `it`."""
    buf = []
    for x in it:
        buf.append(x)
        if len(buf) == n:
            yield buf
            buf = []
    if buf:
        yield buf


class PairWriter:
    """Writes `id1<TAB>id2<TAB>similarity` lines, the first id earlier in corpus order; with a
    threshold, a second file gets only the pairs whose similarity is at least the threshold."""

    def __init__(self, ids, path, filtered_path=None, threshold=None):
        self.ids = ids
        self.f = open(path, "w", encoding="utf-8")
        self.g = open(filtered_path, "w", encoding="utf-8") if filtered_path else None
        self.threshold = threshold
        self.n = 0
        self.n_filtered = 0

    def add(self, i, j, sim):
        if i == j:
            return
        if j < i:
            i, j = j, i
        line = "%s\t%s\t%.6f\n" % (self.ids[i], self.ids[j], sim)
        self.f.write(line)
        self.n += 1
        if self.g is not None and sim >= self.threshold:
            self.g.write(line)
            self.n_filtered += 1

    def close(self):
        self.f.close()
        if self.g is not None:
            self.g.close()


class Clock:
    """Stage timings, printed to stderr at the end as one JSON line."""

    def __init__(self, tool):
        self.tool = tool
        self.t0 = self.last = time.perf_counter()
        self.stages = {}
        self.info = {}

    def lap(self, name):
        now = time.perf_counter()
        self.stages[name] = round(now - self.last, 3)
        self.last = now

    def done(self):
        self.stages["total"] = round(time.perf_counter() - self.t0, 3)
        out = {"tool": self.tool, "stages_s": self.stages}
        out.update(self.info)
        print(json.dumps(out), file=sys.stderr)


def threads_from_env():
    return int(os.environ.get("PEER_THREADS", "1"))
