"""The floor of every Python runner here: read the corpus and build each document's set of word
5-shingles with the shared tokenizer (common.shingles), nothing else. Single-threaded.

    run_tokenize_only.py CORPUS
"""

import sys

from common import Clock, iter_corpus, shingles


def main():
    clock = Clock("python tokenizer")
    ids = []
    n = 0
    for text in iter_corpus(sys.argv[1], ids):
        n += len(shingles(text))
    clock.lap("read+tokenize")
    clock.info.update(docs=len(ids), shingles=n, threads=1)
    clock.done()


if __name__ == "__main__":
    main()
