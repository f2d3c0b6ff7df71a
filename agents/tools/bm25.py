"""Okapi BM25 ranking over tokenized passages (no dependencies)."""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

# Function words carry no topic; dropping them keeps "the"/"of" from ranking passages.
STOPWORDS = frozenset(
    """a an and are as at be been but by did do does for from had has have he her his how i if in
    into is it its me my of on or our she so than that the their them then there these they this
    to was we were what when where which who whom why will with you your""".split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)


def _stem(token: str) -> str:
    """Crude plural folding so 'films' meets 'film' and 'cities' meets 'city'."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords, plurals folded."""
    return [_stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class BM25:
    """Okapi BM25 (k1, b) with the non-negative idf log(1 + (N - n + 0.5) / (n + 0.5))."""

    def __init__(self, docs: Sequence[Sequence[str]], *, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n_docs = len(docs)
        self.lengths = [len(doc) for doc in docs]
        self.avg_len = (sum(self.lengths) / self.n_docs) if self.n_docs else 0.0
        # Inverted index term -> [(doc, tf)] so a query touches only documents sharing a term.
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                self.postings[term].append((i, tf))
        self.idf = {
            term: math.log(1 + (self.n_docs - len(p) + 0.5) / (len(p) + 0.5))
            for term, p in self.postings.items()
        }

    def scores(self, query: Sequence[str]) -> dict[int, float]:
        """Score of every document that shares at least one term with `query`."""
        out: dict[int, float] = defaultdict(float)
        avg = self.avg_len or 1.0
        for term in set(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for doc, tf in self.postings[term]:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / avg)
                out[doc] += idf * tf * (self.k1 + 1) / (tf + norm)
        return out

    def top(self, query: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The k best (doc, score) pairs with a positive score, best first, ties by doc order."""
        ranked = heapq.nsmallest(k, self.scores(query).items(), key=lambda kv: (-kv[1], kv[0]))
        return [(doc, score) for doc, score in ranked if score > 0]
