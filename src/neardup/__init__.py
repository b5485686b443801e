"""neardup: find near-duplicate documents.

The public API; everything else may change between versions.
"""

from neardup._version import __version__
from neardup.cluster import Cluster
from neardup.compare import Comparison, compare
from neardup.dedup import DedupOptions, DedupResult, Dropped, Pair, dedup
from neardup.errors import (
    DecodeError,
    FormatError,
    IncompatibleSignatureError,
    InputError,
    NeardupError,
    ParameterError,
    UsageError,
)
from neardup.index.lsh import LSHParams, optimal_params
from neardup.methods.base import Method, Prepared, Signature, SignatureKey, Signatures
from neardup.methods.measures import Overlap, overlap
from neardup.methods.minhash import MinHasher
from neardup.methods.registry import make_method, method_names
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.output import write_result
from neardup.pairs import PairTable
from neardup.passages import AlignedPassage, Passage, align_passages, highlight, matched_passages
from neardup.text import CanonicalForm, Document, Skipped, read_corpus

__all__ = [
    "AlignedPassage",
    "CanonicalForm",
    "Cluster",
    "Comparison",
    "DecodeError",
    "DedupOptions",
    "DedupResult",
    "Document",
    "Dropped",
    "FormatError",
    "IncompatibleSignatureError",
    "InputError",
    "LSHParams",
    "Method",
    "MinHasher",
    "NeardupError",
    "Overlap",
    "Pair",
    "PairTable",
    "ParameterError",
    "Passage",
    "Prepared",
    "ShingleSets",
    "Shingling",
    "Signature",
    "SignatureKey",
    "Signatures",
    "Skipped",
    "UsageError",
    "__version__",
    "align_passages",
    "compare",
    "dedup",
    "highlight",
    "make_method",
    "matched_passages",
    "method_names",
    "optimal_params",
    "overlap",
    "read_corpus",
    "write_result",
]
