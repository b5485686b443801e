"""The options, declared once.

One table (:data:`OPTIONS`) gives each option its name, default, constraint (the types of
:mod:`neardup.params`) and help text: the corpus job's (:class:`neardup.DedupOptions`), the
collections' (:class:`neardup.Index`, :meth:`neardup.Store.create_collection`, the API's
``POST /collections``), a check's (``limit``, ``k``), an add's (``batch_size``), the
reader's (``id_field``, ``text_field``, ``content_type``, ``max_bytes``, ``extractor``:
:func:`neardup.text.read.read_corpus`) and the default method of each surface
(``dedup_method``, ``collection_method``, ``index_method``). Everything else is derived
from it:

* the validation of :class:`~neardup.DedupOptions`, :class:`~neardup.index.memory.Index`,
  :func:`neardup.store.catalog.create`, the checks and adds of every collection and the
  reader (:func:`check_options`), so the same bad value gets the same
  :class:`~neardup.errors.ParameterError` (naming the parameter, the value and what is
  allowed) from each;
* the API's request fields (:func:`neardup.service.api.option_field`: ranges, choices,
  defaults and descriptions in the OpenAPI schema; a bad value is a 422 naming the field);
* the command line's defaults, help texts and choices (:mod:`neardup.cli.shared_options`).

A document id is at most :data:`MAX_ID_BYTES` UTF-8 bytes on every surface (the library's
collections, the API's bodies and paths).

Only :mod:`neardup.errors` and :mod:`neardup.params` are imported (no numpy): the command
line reads this table at start-up, and the text stage (below the methods) reads its
options here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from neardup.errors import ParameterError
from neardup.params import Constraint, Interval, Options, Text

#: What a pair is decided by (:mod:`neardup.methods.measures`).
MEASURES: tuple[str, ...] = ("resemblance", "containment")
#: Decision modes (:mod:`neardup.methods.decision`); ``None`` is the method's default.
DECISIONS: tuple[str, ...] = ("own", "verified")
#: Which document a cluster keeps (:mod:`neardup.job.cluster`).
KEEP_RULES: tuple[str, ...] = ("longest", "first")
#: Orders of a ``keep_by`` field (:mod:`neardup.job.keep`).
KEEP_ORDERS: tuple[str, ...] = ("max", "min")
#: Largest ``min_tokens`` (a million canonical tokens: longer than any book).
MAX_MIN_TOKENS = 1_000_000
#: Most matches a check returns (``limit`` and ``k``): a check verifies at most 1,000
#: candidates (:data:`neardup.index.verify.MAX_CANDIDATES`), so no check has more.
MAX_MATCHES = 1000
#: Most documents per add batch (``batch_size``).
MAX_BATCH_SIZE = 100_000
#: Longest document id, UTF-8 bytes, on every surface (library, API bodies and paths):
#: PostgreSQL's B-tree entries (the unique index on collection and id) hold at most 2704.
MAX_ID_BYTES = 2000
#: How a text is read (``content_type``): per document, or forced.
CONTENT_TYPES: tuple[str, ...] = ("auto", "text", "html", "wiki")
#: HTML main-text extractors (``extractor``); the first is the default.
EXTRACTORS: tuple[str, ...] = ("resiliparse", "trafilatura")
#: The method of an :class:`~neardup.Index` made without one, by its measure (``method``
#: ``None``, :data:`OPTIONS` ``index_method``): MinHash-LSH estimates resemblance
#: (Broder 1997); containment needs the exact shingle sets.
INDEX_METHOD_BY_MEASURE: dict[str, str] = {
    "resemblance": "minhash-lsh",
    "containment": "shingles-full",
}


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: its name, default, constraint and help text.

    Attributes:
        name: the Python keyword (``min_tokens``; the CLI flag is ``--min-tokens``).
        default: the value when none is given.
        constraint: what is allowed (:class:`~neardup.params.Interval`,
            :class:`~neardup.params.Options` or :class:`~neardup.params.Text`).
        help: one sentence for ``--help``, docstrings and the OpenAPI schema.
    """

    name: str
    default: Any
    constraint: Constraint
    help: str

    def check(self, value: object) -> None:
        """Raise :class:`ParameterError` naming this option unless ``value`` is allowed."""
        self.constraint.check(self.name, value, None)

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The allowed strings of a choice option, else None."""
        return self.constraint.choices if isinstance(self.constraint, Options) else None


#: Every option, by name.
OPTIONS: dict[str, OptionSpec] = {
    s.name: s
    for s in (
        OptionSpec(
            "measure",
            "resemblance",
            Options(MEASURES),
            "resemblance | containment (the larger of the two directions).",
        ),
        OptionSpec(
            "threshold",
            0.5,
            Interval("float", 0.0, 1.0, low_open=True),
            "Decision threshold in (0, 1].",
        ),
        OptionSpec(
            "decision",
            None,
            Options(DECISIONS, optional=True),
            "own (the method's rule from its paper) | verified (exact shingle sets); "
            "default: each method's own (see `neardup methods`).",
        ),
        OptionSpec(
            "min_tokens",
            3,
            Interval("int", 1, MAX_MIN_TOKENS),
            "Skip documents with fewer canonical tokens (1 to 1,000,000).",
        ),
        OptionSpec(
            "keep",
            "longest",
            Options(KEEP_RULES),
            "Which document a cluster keeps: longest | first.",
        ),
        OptionSpec(
            "keep_by",
            None,
            Text(optional=True),
            "Keep the member with the largest value of this record field instead.",
        ),
        OptionSpec(
            "keep_order",
            "max",
            Options(KEEP_ORDERS),
            "With keep_by: max (newest, largest) | min (oldest, smallest).",
        ),
        OptionSpec(
            "max_df",
            5000,
            Interval("int", 2),
            "Index keys shared by more documents than this give no candidates (>= 2).",
        ),
        # a check (Store.check, Collection.check, Index.check, POST .../check, `check`)
        OptionSpec(
            "limit",
            20,
            Interval("int", 1, MAX_MATCHES),
            "At most this many matches, best first (1 to 1,000).",
        ),
        OptionSpec(
            "k",
            None,
            Interval("int", 1, MAX_MATCHES, optional=True),
            "Top-k instead of limit: the k matches with the highest decided score "
            "(evidence.score), ties by id; only matches at or above the threshold (1 to 1,000).",
        ),
        # an add (Store.add, Collection.add, Index.add, `collection add`)
        OptionSpec(
            "batch_size",
            2000,
            Interval("int", 1, MAX_BATCH_SIZE),
            "Documents per batch (one transaction of a stored collection), 1 to 100,000.",
        ),
        # the reader (neardup.text.read.read_corpus and every command reading inputs)
        OptionSpec("id_field", "id", Text(), "JSONL/CSV/Parquet field holding the id."),
        OptionSpec("text_field", "text", Text(), "JSONL/CSV/Parquet field holding the text."),
        OptionSpec(
            "content_type",
            "auto",
            Options(CONTENT_TYPES),
            "auto (per document: file name and content) | text | html | wiki.",
        ),
        OptionSpec(
            "max_bytes",
            20_000_000,
            Interval("int", 1),
            "Skip documents (records) larger than this many bytes.",
        ),
        OptionSpec(
            "extractor",
            EXTRACTORS[0],
            Options(EXTRACTORS),
            "HTML main-text extractor: resiliparse | trafilatura.",
        ),
        # the method of each surface when none is given (a registry name)
        OptionSpec(
            "dedup_method",
            "shingles-full",
            Text(),
            "The method of the corpus job (dedup(), `neardup dedup`, `neardup compare`): "
            "all shingles, exact resemblance and containment (Broder 1997).",
        ),
        OptionSpec(
            "collection_method",
            "tf-ridf",
            Text(),
            "The method of a stored collection (Store.create_collection, `neardup "
            "collection create`, POST /collections, a library's collection in the crawl "
            "queue): the TF-RIDF signature of Romanov 2019, the service paper (3.2, 4.4).",
        ),
        OptionSpec(
            "index_method",
            None,
            Text(optional=True),
            "The method of an in-memory Index; None: by its measure, minhash-lsh under "
            "resemblance, shingles-full under containment.",
        ),
    )
}

#: The options of the corpus job (:class:`neardup.DedupOptions`).
JOB_OPTIONS: tuple[str, ...] = (
    "measure",
    "threshold",
    "keep",
    "keep_by",
    "keep_order",
    "decision",
    "min_tokens",
)
#: The options of a collection on every backend (:meth:`neardup.Store.create_collection`,
#: :class:`neardup.Index`, the API).
COLLECTION_OPTIONS: tuple[str, ...] = ("threshold", "measure", "min_tokens", "decision", "max_df")


def id_too_long(doc_id: str) -> str | None:
    """Why document id ``doc_id`` is refused for its length on every surface (the library's
    collections, the API's bodies and paths), or ``None``: over :data:`MAX_ID_BYTES` UTF-8
    bytes (lone surrogates counted as 3)."""
    if len(doc_id) * 4 <= MAX_ID_BYTES:  # no UTF-8 character is longer than 4 bytes
        return None
    if len(doc_id.encode("utf-8", "surrogatepass")) <= MAX_ID_BYTES:
        return None
    return f"document id over {MAX_ID_BYTES} UTF-8 bytes"


def check_options(**values: object) -> None:
    """Validate options given by keyword, in the order given.

    Raises:
        ParameterError: the first value its option does not allow (names the option, the
            value and what is allowed); an unknown option name.
    """
    for name, value in values.items():
        spec = OPTIONS.get(name)
        if spec is None:
            raise ParameterError(name, value, "an option: " + ", ".join(OPTIONS))
        spec.check(value)


def validate_options(owner: object, names: Iterable[str]) -> None:
    """Validate the attributes ``names`` of ``owner`` (a dataclass holding options).

    Raises:
        ParameterError: as :func:`check_options`.
    """
    check_options(**{name: getattr(owner, name) for name in names})
