"""A Russian paraphrase set for text alignment: RusLit passages rewritten, planted in RusLit.

The set of :mod:`neardup.evaluate.planted` (a passage of a *source* document planted at a
paragraph break of an unrelated *suspicious* one, offsets in both as gold), with the
passage rewritten the way a person paraphrases, sentence by sentence, rather than by
random word edits:

* **synonyms** -- a word whose lemma (pymorphy3's normal form) is in :data:`SYNONYMS` is
  replaced, with probability ``synonym``, by a synonym inflected to the word's grammemes
  (case, number, gender, tense...; the synonym's lemma when pymorphy3 cannot inflect it);
* **inflection** -- another content word is replaced by its lemma with probability
  ``lemma`` (the grammatical agreement a rewrite breaks or changes);
* **word order** -- a sentence with a comma has its two halves exchanged with probability
  ``swap``, and any sentence its words shuffled inside windows of 3 with probability
  ``shuffle``;
* **deletions** -- a word is dropped with probability ``delete``;
* **splits and merges** -- a sentence is cut in two at a comma (probability ``split``) or
  joined to the next with ", и" (probability ``merge``).

Every draw comes from one ``random.Random(seed)``; the set is generated from
``../shared/data/ruslit`` when asked for, never stored. pymorphy3 is the ``lemma`` extra.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from neardup.errors import ParameterError, check_int
from neardup.evaluate.planted import PlantedPair, _unrelated, plant_pair

#: Lemma -> synonyms (lemmas), common words of Russian prose; used both ways.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "сказать": ("произнести", "молвить"),
    "говорить": ("произносить", "молвить"),
    "спросить": ("поинтересоваться",),
    "ответить": ("отозваться",),
    "смотреть": ("глядеть",),
    "посмотреть": ("взглянуть", "поглядеть"),
    "видеть": ("замечать",),
    "увидеть": ("заметить",),
    "идти": ("шагать", "брести"),
    "пойти": ("отправиться", "направиться"),
    "прийти": ("явиться", "прибыть"),
    "думать": ("размышлять",),
    "знать": ("ведать",),
    "хотеть": ("желать",),
    "начать": ("приняться",),
    "сидеть": ("восседать",),
    "стоять": ("находиться",),
    "большой": ("огромный", "крупный"),
    "маленький": ("небольшой", "крошечный"),
    "хороший": ("славный", "добрый"),
    "плохой": ("дурной", "скверный"),
    "красивый": ("прекрасный", "чудесный"),
    "старый": ("давний", "ветхий"),
    "молодой": ("юный",),
    "новый": ("свежий",),
    "быстро": ("скоро", "живо"),
    "медленно": ("неспешно",),
    "тихо": ("негромко",),
    "очень": ("весьма", "крайне"),
    "теперь": ("сейчас",),
    "всегда": ("постоянно",),
    "вдруг": ("внезапно", "неожиданно"),
    "опять": ("снова", "вновь"),
    "лицо": ("облик",),
    "глаз": ("око",),
    "дом": ("жилище",),
    "дорога": ("путь",),
    "человек": ("личность",),
    "жена": ("супруга",),
    "муж": ("супруг",),
    "друг": ("приятель", "товарищ"),
    "девушка": ("барышня",),
    "ребёнок": ("дитя",),
    "деньги": ("средства",),
    "работа": ("труд", "дело"),
    "время": ("пора",),
    "мысль": ("дума",),
    "слово": ("речь",),
    "город": ("поселение",),
    "страх": ("ужас",),
    "радость": ("веселье",),
    "комната": ("горница",),
    "ночь": ("темнота",),
}

_WORD = re.compile(r"\w+", re.UNICODE)
#: Grammemes of the lemma itself (aspect, transitivity, animacy), never inflected to.
_LEXICAL = frozenset({"perf", "impf", "tran", "intr", "anim", "inan"})
_GENDER = frozenset({"masc", "femn", "neut", "ms-f"})


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Probabilities of the rewriting steps (see the module docstring), each in [0, 1]."""

    synonym: float = 1.0
    lemma: float = 0.35
    swap: float = 0.5
    shuffle: float = 0.7
    delete: float = 0.1
    split: float = 0.2
    merge: float = 0.2

    def __post_init__(self) -> None:
        for name in self.__slots__:
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ParameterError(name, value, "a probability in [0, 1]")


@lru_cache(maxsize=1)
def _morph() -> Any:
    try:
        import pymorphy3
    except ImportError:  # pragma: no cover - the lemma extra is missing
        raise ParameterError(
            "paraphrase", "pymorphy3", "installed pymorphy3 (pip install 'neardup[lemma]')"
        ) from None
    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=1)
def _synonym_table() -> dict[str, tuple[str, ...]]:
    """:data:`SYNONYMS` both ways: each lemma of a group -> the others."""
    table: dict[str, list[str]] = {}
    for head, others in SYNONYMS.items():
        group = (head, *others)
        for word in group:
            table.setdefault(word, []).extend(w for w in group if w != word)
    return {k: tuple(dict.fromkeys(v)) for k, v in table.items()}


def _inflected(lemma: str, like: Any) -> str:
    """``lemma`` inflected to the grammemes of the parse ``like`` (its lemma if it cannot)."""
    parse = _morph().parse(lemma)[0]
    grammemes = {g for g in like.tag.grammemes if g not in _LEXICAL}
    form = parse.inflect(grammemes)
    if form is None:  # a noun of another gender: case and number are what agree
        form = parse.inflect(grammemes - _GENDER)
    return str(form.word) if form is not None else lemma


def _same_case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def rewrite_word(word: str, rng: random.Random, rates: Rewrite) -> str:
    """A synonym of ``word`` in its form, its lemma, or ``word`` (see :class:`Rewrite`)."""
    parse = _morph().parse(word)[0]
    synonyms = _synonym_table().get(str(parse.normal_form))
    if synonyms and rng.random() < rates.synonym:
        return _same_case(_inflected(rng.choice(synonyms), parse), word)
    if len(word) > 3 and rng.random() < rates.lemma:
        return _same_case(str(parse.normal_form), word)
    return word


def rewrite_sentence(sentence: str, rng: random.Random, rates: Rewrite) -> str:
    """One sentence rewritten: words, deletions and word order (no terminal punctuation
    change)."""
    body = sentence.rstrip()
    end = ""
    while body and body[-1] in ".!?…":
        end, body = body[-1] + end, body[:-1]
    if rates.swap and "," in body and rng.random() < rates.swap:
        left, _, right = body.partition(",")
        if left.strip() and right.strip():
            body = right.strip() + ", " + left.strip()[:1].lower() + left.strip()[1:]
            body = body[:1].upper() + body[1:]
    words = body.split()
    if rates.shuffle and rng.random() < rates.shuffle:
        for lo in range(0, len(words) - 2, 3):
            window = words[lo : lo + 3]
            rng.shuffle(window)
            words[lo : lo + 3] = window
    kept = [w for w in words if rng.random() >= rates.delete] or words[:1]
    out = [_WORD.sub(lambda m: rewrite_word(m.group(0), rng, rates), w) for w in kept]
    text = " ".join(out)
    return (text[:1].upper() + text[1:]) + (end or ".")


def paraphrase(text: str, rng: random.Random, *, rates: Rewrite | None = None) -> str:
    """``text`` rewritten sentence by sentence, with sentence splits and merges.

    Args:
        text: a Russian passage.
        rng: the random source.
        rates: the probabilities; default :class:`Rewrite()`.

    Returns:
        The rewritten passage, sentences separated by one space.

    Raises:
        ParameterError: pymorphy3 is not installed.
    """
    from neardup.text.sentences import split_sentences

    r = rates or Rewrite()
    sentences = [text[s:e] for s, e in split_sentences(text)]
    pieces: list[str] = []
    for sentence in sentences:
        if r.split and sentence.count(",") and rng.random() < r.split:
            head, _, tail = sentence.partition(",")
            if len(head.split()) >= 3 and len(tail.split()) >= 3:
                pieces += [head.strip() + ".", tail.strip()[:1].upper() + tail.strip()[1:]]
                continue
        if pieces and r.merge and rng.random() < r.merge:
            last = pieces.pop().rstrip().rstrip(".!?…")
            pieces.append(last + ", и " + sentence.strip()[:1].lower() + sentence.strip()[1:])
            continue
        pieces.append(sentence.strip())
    return " ".join(rewrite_sentence(p, rng, r) for p in pieces if p)


def build_paraphrase_set(
    docs: Sequence[tuple[str, str]],
    *,
    pairs: int,
    seed: int = 32,
    rates: Rewrite | None = None,
) -> list[PlantedPair]:
    """Russian paraphrase pairs: 1-3 passages of 40-300 words of a source document,
    paraphrased (:func:`paraphrase`) and planted in an unrelated document; every fifth pair
    is negative.

    Args:
        docs: ``(id, text)`` Russian documents (e.g. ``shared_texts(DATA)["ru"]``), 2+.
        pairs: pairs to build, 1-10,000.
        seed: the random seed.
        rates: the rewriting probabilities.

    Returns:
        Pairs with ids ``ru-paraphrase-{k}-a`` / ``-b`` and level ``paraphrase``.

    Raises:
        ParameterError: a bad count, fewer than 2 documents, or pymorphy3 missing.
    """
    check_int("pairs", pairs, low=1, high=10_000)
    if len(docs) < 2:
        raise ParameterError("docs", len(docs), "2 or more documents")
    rng = random.Random(seed)
    r = rates or Rewrite()
    rewrite: Callable[[str, random.Random], str] = lambda t, g: paraphrase(t, g, rates=r)  # noqa: E731
    out = []
    for k in range(pairs):
        host, source = _unrelated(list(docs), rng)
        out.append(
            plant_pair(
                f"ru-paraphrase-{k}-a",
                host,
                f"ru-paraphrase-{k}-b",
                source,
                level="paraphrase",
                cases=0 if k % 5 == 4 else rng.randint(1, 3),
                rng=rng,
                language="ru",
                rewrite=rewrite,
            )
        )
    return out
