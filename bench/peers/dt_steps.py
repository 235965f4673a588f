"""datatrove's MinHash signature step with the shared tokenizer (see run_datatrove.py). In a
module of its own so that datatrove's worker processes can unpickle it."""

from datatrove.pipeline.dedup.minhash import MinhashDedupSignature

from common import tokens


class SharedWordTokenizer:
    """Stands in for datatrove's word tokenizer (spaCy by default): the benchmark's tokenizer."""

    def word_tokenize(self, text):
        return tokens(text)


class SignatureSharedTokens(MinhashDedupSignature):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.word_tokenizer = SharedWordTokenizer()
