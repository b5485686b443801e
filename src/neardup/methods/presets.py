"""Named presets: a paper's canonical form and shingling, by name.

``rodnenko-2009`` reproduces ``canonize`` and ``genshingle`` of Rodnenko (2009, "Алгоритм
Шинглов — поиск нечетких дубликатов текста"):

* canonical form: the text lower-cased, split at whitespace, the stop symbols
  ``.,!?:;-`` newline, carriage return, ``(`` and ``)`` stripped from each word's ends, empty
  words and the paper's 29 stop words dropped (:data:`RODNENKO_STOP_WORDS`); no stemming;
* shingles of 10 words, overlapping (step 1), each fingerprinted with CRC-32 of its words
  joined by one space (UTF-8). Python 2's ``binascii.crc32`` printed signed numbers; neardup
  stores the same 32 bits unsigned (``-1077944445`` is ``3217022851``).

The paper's similarity, ``compaire``, is Dice over the *lists* of checksums (repeats kept):
:func:`neardup.methods.measures.compaire`; :func:`~neardup.methods.measures.dice_multiset`
is the symmetric multiset form. As a decision it is the method ``shingles-dice``
(:mod:`neardup.methods.dice`, the preset's :attr:`Preset.method`): Dice of the shingle sets
``>= threshold``: ``dedup``, ``compare`` and ``collection create`` run it under
``--preset rodnenko-2009`` when no ``--method`` is given (``evaluate`` with ``--method
shingles-dice``). The script's list form is the option ``counting=lists`` of that method
(``--param counting=lists``): the two differ when a text repeats a shingle. One difference
stays: a text of fewer than 10 words has no shingle in the paper and one (all its words)
in neardup.

``zagorulko-2013`` is the setting of Zagorulko et al. (2013, Table 2): shingles of w = 4
words with 32-bit Rabin fingerprints (``rabin32``), the mod-m sample with m = 25, the
n smallest fingerprints with n = 160 compared by the paper's formula (1) on the two samples
(``estimator=zagorulko``), and mega-shingles on 5-word 64-bit Rabin fingerprints
(``rabin64``, 84 maps, 6 super-shingles); the canonical form is the default one (stop
symbols and stop words out, lower case: "очистка текста от стоп-символов и стоп-слов ...
приведение всех символов текста к нижнему регистру"). Its method is the mod-m sample, the
paper's choice ("в качестве рабочего метода ... был выбран метод шинглов с кратной
сигнатурой").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from neardup.errors import ParameterError
from neardup.text.canonical import CanonicalForm

#: Rodnenko's (2009) stop words, in the paper's order (29 words).
RODNENKO_STOP_WORDS: tuple[str, ...] = (
    "это", "как", "так", "и", "в", "над", "к", "до", "не", "на", "но", "за", "то", "с", "ли",
    "а", "во", "от", "со", "для", "о", "же", "ну", "вы", "бы", "что", "кто", "он", "она",
)  # fmt: skip
#: Rodnenko's (2009) stop symbols (``stop_symbols`` in ``canonize``).
RODNENKO_STOP_SYMBOLS = ".,!?:;-\n\r()"


@dataclass(frozen=True, slots=True)
class Preset:
    """A named set of canonical-form and shingling parameters.

    Attributes:
        name: the preset's name (``--preset NAME``).
        source: the paper it reproduces.
        canonical: the canonical form.
        shingling: shingling parameters (``shingle_size``, ``fingerprint``, ``step``, and a
            sample's ``m``, ``n``, ``estimator``), given to each method that has them.
        method: the method that decides as the paper does (``shingles-dice`` for Rodnenko
            2009's percent similarity), ``None`` when the paper has no decision of its own;
            the method ``dedup``, ``compare`` and ``collection create`` run under the preset
            when ``--method`` is not given.
        per_method: ``(method, parameters)`` that replace ``shingling``'s for that method
            (Zagorulko et al. 2013 build mega-shingles on other fingerprints).
    """

    name: str
    source: str
    canonical: CanonicalForm
    shingling: tuple[tuple[str, Any], ...]
    method: str | None = None
    per_method: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()

    def params_for(self, method: str) -> dict[str, Any]:
        """The preset's parameters that ``method`` has (its canonical form included).

        Raises:
            ParameterError: unknown method.
        """
        from neardup.methods.registry import method_class

        fields = {f.name for f in dataclasses.fields(method_class(method)) if f.init}
        own = dict(self.per_method).get(method, ())
        out = {k: v for k, v in (*self.shingling, *own) if k in fields}
        if "canonical" in fields:
            out["canonical"] = self.canonical
        return out


PRESETS: dict[str, Preset] = {
    "rodnenko-2009": Preset(
        "rodnenko-2009",
        "Rodnenko 2009: canonize (29 stop words, stop symbols), genshingle (10 words, CRC-32), "
        "compaire (Dice over lists)",
        CanonicalForm(
            stop_words=True,
            stop_word_list=RODNENKO_STOP_WORDS,
            stop_symbols=RODNENKO_STOP_SYMBOLS,
        ),
        (("shingle_size", 10), ("step", 1), ("fingerprint", "crc32")),
        "shingles-dice",
    ),
    "zagorulko-2013": Preset(
        "zagorulko-2013",
        "Zagorulko et al. 2013, Table 2: w = 4, 32-bit Rabin fingerprints, m = 25, n = 160 "
        "(formula (1) on the two samples), mega-shingles on 64-bit Rabin fingerprints",
        CanonicalForm(),
        (
            ("shingle_size", 4),
            ("fingerprint", "rabin32"),
            ("m", 25),
            ("n", 160),
            ("estimator", "zagorulko"),
        ),
        "shingles-mod",
        (("megashingles", (("shingle_size", 5), ("fingerprint", "rabin64"))),),
    ),
}


def preset(name: str) -> Preset:
    """The preset called ``name``.

    Raises:
        ParameterError: no such preset (the message lists them).
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError("preset", name, "one of " + ", ".join(sorted(PRESETS))) from None
