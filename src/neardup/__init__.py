"""neardup: find near-duplicate documents.

The public API; everything else may change between versions. Names are imported on first
use (PEP 562), so ``import neardup`` and the command line start without loading numpy.
"""

# The module namespace holds the public names only (tests/test_public_api.py): the helpers
# below are imported under private names, and there is no ``from __future__`` import.
from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from neardup._version import __version__

#: Public name -> module that defines it: the public surface, written here only. ``__all__``
#: and the imports for type checkers at the end are generated from it
#: (``python docs/hooks/public_api.py``; tests/test_public_api.py checks they agree).
_EXPORTS: dict[str, str] = {
    "Cluster": "neardup.job.cluster",
    "Comparison": "neardup.job.compare",
    "compare": "neardup.job.compare",
    "DedupOptions": "neardup.job.pipeline",
    "DedupResult": "neardup.job.pipeline",
    "Dropped": "neardup.job.pipeline",
    "Pair": "neardup.job.pairs",
    "dedup": "neardup.job.pipeline",
    "DecodeError": "neardup.errors",
    "FormatError": "neardup.errors",
    "IncompatibleSignatureError": "neardup.errors",
    "InputError": "neardup.errors",
    "NeardupError": "neardup.errors",
    "ParameterError": "neardup.errors",
    "UsageError": "neardup.errors",
    "Collection": "neardup.index.core",
    "Index": "neardup.index.memory",
    "Store": "neardup.store",
    "CollectionInfo": "neardup.store",
    "CheckResult": "neardup.store",
    "Match": "neardup.store",
    "AddReport": "neardup.store",
    "StoreCollection": "neardup.store",
    "LSHParams": "neardup.methods.lsh",
    "optimal_params": "neardup.methods.lsh",
    "recall_params": "neardup.methods.lsh",
    "Method": "neardup.methods.base",
    "Prepared": "neardup.methods.base",
    "Signature": "neardup.methods.base",
    "SignatureKey": "neardup.methods.base",
    "Signatures": "neardup.methods.base",
    "Overlap": "neardup.methods.measures",
    "overlap": "neardup.methods.measures",
    "MinHasher": "neardup.methods.minhash",
    "make_method": "neardup.methods.registry",
    "method_names": "neardup.methods.registry",
    "ShingleSets": "neardup.methods.sets",
    "Shingling": "neardup.methods.shingles",
    "write_result": "neardup.output",
    "PairTable": "neardup.job.pairs",
    "AlignedPassage": "neardup.passages",
    "Passage": "neardup.passages",
    "align_passages": "neardup.passages",
    "highlight": "neardup.passages",
    "matched_passages": "neardup.passages",
    "CanonicalForm": "neardup.text",
    "Document": "neardup.text",
    "Skipped": "neardup.text",
    "read_corpus": "neardup.text",
    "repeated_paragraphs": "neardup.corpus.paragraphs",
    "ParagraphResult": "neardup.corpus.paragraphs",
    "RepeatedUnit": "neardup.corpus.paragraphs",
    "repeated_substrings": "neardup.corpus.exact_substrings",
    "RepeatedSpan": "neardup.corpus.exact_substrings",
    "SubstringResult": "neardup.corpus.exact_substrings",
    "contamination": "neardup.corpus.decontamination",
    "against_collection": "neardup.corpus.against",
    "Contaminated": "neardup.corpus.decontamination",
    "ContaminationResult": "neardup.corpus.decontamination",
    "EvalMatch": "neardup.corpus.decontamination",
}

# -- __all__: generated from _EXPORTS by docs/hooks/public_api.py --
__all__ = [
    "AddReport",
    "AlignedPassage",
    "CanonicalForm",
    "CheckResult",
    "Cluster",
    "Collection",
    "CollectionInfo",
    "Comparison",
    "Contaminated",
    "ContaminationResult",
    "DecodeError",
    "DedupOptions",
    "DedupResult",
    "Document",
    "Dropped",
    "EvalMatch",
    "FormatError",
    "IncompatibleSignatureError",
    "Index",
    "InputError",
    "LSHParams",
    "Match",
    "Method",
    "MinHasher",
    "NeardupError",
    "Overlap",
    "Pair",
    "PairTable",
    "ParagraphResult",
    "ParameterError",
    "Passage",
    "Prepared",
    "RepeatedSpan",
    "RepeatedUnit",
    "ShingleSets",
    "Shingling",
    "Signature",
    "SignatureKey",
    "Signatures",
    "Skipped",
    "Store",
    "StoreCollection",
    "SubstringResult",
    "UsageError",
    "__version__",
    "against_collection",
    "align_passages",
    "compare",
    "contamination",
    "dedup",
    "highlight",
    "make_method",
    "matched_passages",
    "method_names",
    "optimal_params",
    "overlap",
    "read_corpus",
    "recall_params",
    "repeated_paragraphs",
    "repeated_substrings",
    "write_result",
]
# -- end of generated --


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'neardup' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if _TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    # -- imports: generated from _EXPORTS by docs/hooks/public_api.py --
    from neardup.corpus.against import against_collection
    from neardup.corpus.decontamination import (
        Contaminated,
        ContaminationResult,
        EvalMatch,
        contamination,
    )
    from neardup.corpus.exact_substrings import RepeatedSpan, SubstringResult, repeated_substrings
    from neardup.corpus.paragraphs import ParagraphResult, RepeatedUnit, repeated_paragraphs
    from neardup.errors import (
        DecodeError,
        FormatError,
        IncompatibleSignatureError,
        InputError,
        NeardupError,
        ParameterError,
        UsageError,
    )
    from neardup.index.core import Collection
    from neardup.index.memory import Index
    from neardup.job.cluster import Cluster
    from neardup.job.compare import Comparison, compare
    from neardup.job.pairs import Pair, PairTable
    from neardup.job.pipeline import DedupOptions, DedupResult, Dropped, dedup
    from neardup.methods.base import Method, Prepared, Signature, SignatureKey, Signatures
    from neardup.methods.lsh import LSHParams, optimal_params, recall_params
    from neardup.methods.measures import Overlap, overlap
    from neardup.methods.minhash import MinHasher
    from neardup.methods.registry import make_method, method_names
    from neardup.methods.sets import ShingleSets
    from neardup.methods.shingles import Shingling
    from neardup.output import write_result
    from neardup.passages import (
        AlignedPassage,
        Passage,
        align_passages,
        highlight,
        matched_passages,
    )
    from neardup.store import AddReport, CheckResult, CollectionInfo, Match, Store, StoreCollection
    from neardup.text import CanonicalForm, Document, Skipped, read_corpus
    # -- end of generated --
