"""The job and collection options, declared once.

One table (:data:`OPTIONS`) gives each option of the corpus job (:class:`neardup.DedupOptions`)
and of collections (:class:`neardup.Index`, :meth:`neardup.Store.create_collection`, the
API's ``POST /collections``) its name, default, constraint (the types of
:mod:`neardup.methods.params`) and help text. Everything else is derived from it:

* the validation of :class:`~neardup.dedup.DedupOptions`, :class:`~neardup.index.memory.Index`
  and :func:`neardup.store.catalog.create` (:func:`check_options`), so the same bad
  value gets the same :class:`~neardup.errors.ParameterError` (naming the parameter, the
  value and what is allowed) from each;
* the API's request fields (:func:`neardup.service.api.option_field`: ranges, choices,
  defaults and descriptions in the OpenAPI schema; a bad value is a 422 naming the field);
* the command line's help texts and choices (:mod:`neardup.cli.options`).

Only :mod:`neardup.errors` and :mod:`neardup.methods.params` are imported (no numpy): the
command line reads this table at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from neardup.errors import ParameterError
from neardup.methods.params import Constraint, Interval, Options, Text

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

#: The method of a collection created without one (``Store.create_collection``,
#: ``neardup collection create``, ``POST /collections``, a library's collection in the crawl
#: queue): the TF-RIDF signature of Romanov 2019, the service paper (§3.2, §4.4).
DEFAULT_COLLECTION_METHOD = "tf-ridf"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: its name, default, constraint and help text.

    Attributes:
        name: the Python keyword (``min_tokens``; the CLI flag is ``--min-tokens``).
        default: the value when none is given.
        constraint: what is allowed (:class:`~neardup.methods.params.Interval`,
            :class:`~neardup.methods.params.Options` or :class:`~neardup.methods.params.Text`).
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

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"default", "allowed", "help"}``."""
        return {"default": self.default, "allowed": self.constraint.as_dict(), "help": self.help}


#: Every job and collection option, by name.
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
