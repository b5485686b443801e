"""Mega-shingles (seed 000, Fig. 2, formula (3)): hand-computed super/mega-shingles,
formula (3) against measured match rates, real Russian and English text, the job."""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.base import Prepared, Signature
from neardup.methods.megashingles import Megashingles, recall_curve
from neardup.methods.minhash import EMPTY, MinHasher
from neardup.methods.registry import make_method
from neardup.methods.sets import ShingleSets
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document
from shared_data import data_path

# N. V. Gogol, "Нос" (1836), chapter I, public domain (RusLit, ../shared/data/ruslit).
GOGOL = """\
Марта 25 числа случилось в Петербурге необыкновенно-странное происшествие. Цырюльник Иван
Яковлевич, живущий на Вознесенском проспекте (фамилия его утрачена, и даже на вывеске его — где
изображен господин с намыленною щекою и надписью: «и кровь отворяют» — не выставлено ничего
более), цырюльник Иван Яковлевич проснулся довольно рано и услышал запах горячего хлеба.
Приподнявшись немного на кровати, он увидел, что супруга его, довольно почтенная дама, очень
любившая пить кофий, вынимала из печи только что испеченные хлебы.

«Сегодня я, Прасковья Осиповна, не буду пить кофий», — сказал Иван Яковлевич: — «а вместо того
хочется мне съесть горячего хлебца с луком.» (То есть Иван Яковлевич хотел бы и того и другого,
но знал, что было совершенно невозможно требовать двух вещей разом: ибо Прасковья Осиповна очень
не любила таких прихотей.) Пусть дурак ест хлеб; мне же лучше» — подумала про себя супруга:
«останется кофию лишняя порция.» И бросила один хлеб на стол.

Иван Яковлевич для приличия надел сверх рубашки фрак и, усевшись перед столом, насыпал соль,
приготовил две головки луку, взял в руки нож и, сделавши значительную мину, принялся резать
хлеб. — Разрезавши хлеб на две половины, он поглядел в середину и к удивлению своему увидел
что-то белевшееся. Иван Яковлевич ковырнул осторожно ножом и пощупал пальцем: «Плотное?» —
сказал он сам про себя: «что бы это такое было?»

Он засунул пальцы и вытащил — нос!.. Иван Яковлевич и руки опустил; стал протирать глаза и
щупать: нос, точно нос! и еще, казалось, как будто чей-то знакомый. Ужас изобразился в лице
Ивана Яковлевича. Но этот ужас был ничто против негодования, которое овладело его супругою.

«Где это ты, зверь, отрезал нос?» закричала она с гневом. — «Мошенник! пьяница! Я сама на тебя
донесу полиции. Разбойник какой! Вот уж я от трех человек слышала, что ты во время бритья так
теребишь за носы, что еле держатся.»

Но Иван Яковлевич был ни жив, ни мертв. Он узнал, что этот нос был ни чей другой, как
коллежского асессора Ковалева, которого он брил каждую середу и воскресенье.

«Стой, Прасковья Осиповна! Я положу его, завернувши в тряпку, в уголок: пусть там маленечко
полежит; а после его вынесу.»

«И слушать не хочу! Чтобы я позволила у себя в комнате лежать отрезанному носу?.. Сухарь
поджаристый! Знай умеет только бритвой возить по ремню, а долга своего скоро совсем не в
состоянии будет исполнять, потаскушка, негодяй! Чтобы я стала за тебя отвечать полиции?.. Ах ты
пачкун, бревно глупое! Вон его! вон! неси куда хочешь! чтобы я духу его не слыхала!»

Иван Яковлевич стоял совершенно как убитый. Он думал, думал — и не знал, что подумать. «Чорт его
знает, как это сделалось», сказал он наконец, почесав рукою за ухом. «Пьян ли я вчера
возвратился, или нет, уж наверное сказать не могу. А по всем приметам должно быть происшествие
несбыточное: ибо хлеб — дело печеное, а нос совсем не то. Ничего не разберу!..» Иван Яковлевич
замолчал. Мысль о том, что полицейские отыщут у него нос и обвинят его, привела его в
совершенное беспамятство. Уже ему мерещился алый воротник, красиво вышитый серебром, шпага… и он
дрожал всем телом. Наконец, достал он свое исподнее платье и сапоги, натащил на себя всю эту
дрянь и, сопровождаемый нелегкими увещаниями Прасковьи Осиповны, завернул нос в тряпку и вышел
на улицу.

Он хотел его куда-нибудь подсунуть: или в тумбу под воротами, или так как-нибудь нечаянно
выронить, да и повернуть в переулок. Но на беду ему попадался какой-нибудь знакомый человек,
который начинал тотчас запросом: «куда идешь?» или «кого так рано собрался брить?» так что Иван
Яковлевич никак не мог улучить минуты. В другой раз он уже совсем уронил его, но будошник еще
издали указал ему алебардою, примолвив: «подыми! вон ты что-то уронил!» И Иван Яковлевич должен
был поднять нос и спрятать его в карман. Отчаяние овладело им, тем более что народ беспрестанно
умножался на улице, по мере того как начали отпираться магазины и лавочки.

Он решился итти к Исакиевскому мосту: не удастся ли как-нибудь швырнуть его в Неву?.. Но я
несколько виноват, что до сих пор не сказал ничего об Иване Яковлевиче, человеке почтенном во
многих отношениях.

Иван Яковлевич, как всякий порядочный русский мастеровой, был пьяница страшный. И хотя каждый
день брил чужие подбородки, но его собственный был у него вечно не брит. Фрак у Ивана Яковлевича
(Иван Яковлевич никогда не ходил в сюртуке) был пегий, то есть он был черный, но весь в
коричнево-желтых и серых яблоках; воротник лоснился; а вместо трех пуговиц висели одни только
ниточки. Иван Яковлевич был большой циник, и когда коллежский асессор Ковалев обыкновенно
говорил ему во время бритья: «у тебя, Иван Яковлевич, вечно воняют руки!», то Иван Яковлевич
отвечал на это вопросом: «отчего ж бы им вонять?» — «Не знаю, братец, только воняют», говорил
коллежский асессор, — и Иван Яковлевич, понюхавши табаку, мылил ему за это и на щеке, и под
носом, и за ухом, и под бородою, одним словом, где только ему была охота.

Этот почтенный гражданин находился уже на Исакиевском мосту. Он прежде всего осмотрелся; потом
нагнулся на перила будто бы посмотреть под мост: много ли рыбы бегает, и швырнул потихоньку
тряпку с носом. Он почувствовал, как будто бы с него разом свалилось десять пуд: Иван Яковлевич
даже усмехнулся. Вместо того, чтобы итти брить чиновничьи подбородки, он отправился в заведение
с надписью: «Кушанье и чай» спросить стакан пуншу, как вдруг заметил в конце моста квартального
надзирателя благородной наружности, с широкими бакенбардами, в треугольной шляпе, со шпагою. Он
обмер; а между тем квартальный кивал ему пальцем и говорил: «А подойди сюда, любезный!»
"""

M64 = 2**64 - 1
PINNED_MEGA0 = 4524877287961143284  # Megashingles() of GOGOL, mega-shingle (0, 1)


def prepared(text: str, doc_id: str = "d") -> Prepared:
    return Prepared(doc_id, text, CanonicalForm().tokens(text))


def sign_one(method: Megashingles, text: str) -> Signature:
    return method.signature(method.sign([prepared(text)]), 0)


# -- independent pure-Python arithmetic ---------------------------------------------------
def fmix(x: int) -> int:
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M64
    return x ^ (x >> 33)


def chain(values: list[int], tag: int) -> int:
    h = tag
    for v in values:
        rot = ((h << 31) | (h >> 33)) & M64
        h = fmix(((rot * 0x9E3779B97F4A7C15) & M64) ^ v)
    return h


def test_formula_3_values() -> None:
    # seed 000: "при совпадении документов на 95 % вероятность ... около 90 %"
    q = 0.95**14
    assert recall_curve(0.95) == pytest.approx(1 - (1 - q) ** 6 - 6 * q * (1 - q) ** 5)
    assert 0.87 < recall_curve(0.95) < 0.89
    assert recall_curve(1.0) == 1.0
    assert recall_curve(0.0) == 0.0
    assert recall_curve(0.75) < 0.01  # "значение полноты снижается практически до нуля"
    ps = np.linspace(0, 1, 11)
    assert np.all(np.diff(recall_curve(ps)) >= 0)


def test_super_and_mega_shingles_by_hand() -> None:
    method = Megashingles()
    tokens = CanonicalForm().tokens(GOGOL)
    sketch = MinHasher(num_perm=84, seed=1, scheme="perm").sketch(
        method.shingling.fingerprints(tokens)
    )
    values = [int(v) for v in sketch]
    supers = [chain(values[14 * i : 14 * i + 14], 0x5355504552) for i in range(6)]
    megas = [chain([supers[i], supers[j]], 0x4D454741) for i, j in combinations(range(6), 2)]
    sig = sign_one(method, GOGOL)
    assert sig.payload.dtype == np.uint64
    assert sig.payload.shape == (21,)
    assert [int(v) for v in sig.payload] == supers + megas


def test_pinned_first_megashingle() -> None:
    # value fixed once (format stability); its derivation is checked by hand above
    assert int(sign_one(Megashingles(), GOGOL).payload[6]) == PINNED_MEGA0


def test_small_edit_matches_and_other_text_does_not() -> None:
    method = Megashingles()
    edited = GOGOL.replace("кофий", "чай", 1)
    assert edited != GOGOL
    a, b = sign_one(method, GOGOL), sign_one(method, edited)
    assert method.compare(a, b) == 1.0
    half = GOGOL[len(GOGOL) // 2 :]
    other = sign_one(method, half + " " + GOGOL[: len(GOGOL) // 4])
    assert method.compare(a, other) == 0.0


def test_empty_document_matches_nothing() -> None:
    method = Megashingles()
    sigs = method.sign([Prepared("a", "", []), Prepared("b", "", [])])
    assert np.all(sigs.data == EMPTY)
    assert method.candidates(sigs).shape == (0, 2)
    assert method.compare(method.signature(sigs, 0), method.signature(sigs, 1)) == 0.0


WORDS = sorted(set(CanonicalForm().tokens(GOGOL)))


@settings(derandomize=True, max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60))
def test_identical_texts_match_and_signing_is_deterministic(words: list[str]) -> None:
    text = " ".join(words)
    a = sign_one(Megashingles(), text)
    b = sign_one(Megashingles(), text)
    assert a.to_bytes() == b.to_bytes()
    assert Megashingles().compare(a, b) == 1.0


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"num_maps": 85}, "supershingles"),
    ],
)
def test_rules_across_parameters_name_the_parameter(params: dict[str, Any], name: str) -> None:
    with pytest.raises(ParameterError) as err:
        Megashingles(**params)
    assert err.value.name == name


def test_registry_and_unknown_parameter() -> None:
    assert isinstance(make_method("megashingles"), Megashingles)
    with pytest.raises(ParameterError) as err:
        make_method("megashingles", bands=3)
    assert err.value.name == "bands"


def test_candidates_group_by_megashingle_and_similarity() -> None:
    method = Megashingles()
    texts = [GOGOL, GOGOL.replace("супруга", "жена", 1), GOGOL[: len(GOGOL) // 3], GOGOL]
    sigs = method.sign([prepared(t, str(i)) for i, t in enumerate(texts)])
    cand = method.candidates(sigs)
    assert cand.tolist() == [[0, 1], [0, 3], [1, 3]]
    assert method.similarity(sigs, cand).tolist() == [1.0, 1.0, 1.0]
    assert method.similarity(sigs, np.array([[0, 2]])).tolist() == [0.0]


def _synthetic(j: float, pairs: int, shared: int, seed: int) -> ShingleSets:
    rng = np.random.default_rng(seed)
    only = round(shared * (1 - j) / (2 * j))
    arrays = []
    for _ in range(pairs):
        v = rng.choice(2**62, size=shared + 2 * only, replace=False).astype(np.uint64)
        common, a, b = v[:shared], v[shared : shared + only], v[shared + only :]
        arrays += [np.sort(np.concatenate([common, a])), np.sort(np.concatenate([common, b]))]
    return ShingleSets.from_arrays(arrays)


@pytest.mark.parametrize("j", [0.85, 0.9, 0.95, 0.98])
def test_measured_match_rate_follows_formula_3(j: float) -> None:
    pairs = 200
    method = Megashingles(seed=3)
    mega = method.from_sets(_synthetic(j, pairs, 600, seed=int(j * 100))).data[:, 6:]
    a, b = mega[0::2], mega[1::2]
    measured = ((a == b) & (a != EMPTY)).any(axis=1).mean()
    expected = recall_curve(j)
    se = max((expected * (1 - expected) / pairs) ** 0.5, 0.01)
    assert abs(measured - expected) <= 4 * se


@pytest.mark.data
def test_english_real_text_and_job() -> None:
    lines = data_path("linux-doc-revisions", "docs.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(x) for x in lines.splitlines()]
    texts = [r["text"] for r in rows[:40]]
    method = Megashingles()
    base = texts[0]
    edited = base.replace("the", "teh", 1)
    a, b = sign_one(method, base), sign_one(method, edited)
    if len(CanonicalForm().tokens(base)) > 400:
        assert method.compare(a, b) == 1.0
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)] + [Document("copy", base)]
    res = dedup(docs, method="megashingles", options=DedupOptions(threshold=0.5, decision="own"))
    found = {(p.a, p.b) for p in res.pairs}
    assert ("d0", "copy") in found
