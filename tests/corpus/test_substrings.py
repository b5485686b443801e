"""neardup.repeated_substrings: planted spans found at their exact offsets, none invented,
UTF-8 boundaries kept (Cyrillic, CJK), --kept round trip."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import neardup
from shared_data import require

require("pydivsufsort")

WORDS = ["alpha", "бета", "гамма", "δέλτα", "漢字", "テスト", "omega", "зета", "eta", "йота"]
PLANTED_RU = (
    "Это повторяющийся фрагмент текста, скопированный из одного документа в другие целиком."
)
PLANTED_CJK = (
    "重复的文本片段在几个文档中逐字出现，后缀数组必须找到它的确切位置。日本語のテキストも同じです。"
)


def _random_text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) + str(rng.randrange(10**9)) for _ in range(n))


def _corpus(tmp_path: Path) -> tuple[Path, list[dict[str, str]], dict[str, list[tuple[int, str]]]]:
    """Eight random documents; PLANTED_RU in three, PLANTED_CJK in two, each copy between
    characters that differ from copy to copy (so a span cannot grow past the plant)."""
    rng = random.Random(5)
    rows, planted = [], {}
    plan = {1: [PLANTED_RU], 3: [PLANTED_RU, PLANTED_CJK], 6: [PLANTED_RU], 7: [PLANTED_CJK]}
    for i in range(8):
        text = _random_text(rng, 25)
        where = []
        for j, plant in enumerate(plan.get(i, [])):
            head = text + " " + chr(0x41 + 2 * i + j)  # a letter no other copy has
            where.append((len(head), plant))
            text = head + plant + chr(0x61 + 2 * i + j) + " " + _random_text(rng, 10)
        rows.append({"id": f"d{i}", "text": text, "lang": "mixed"})
        if where:
            planted[f"d{i}"] = where
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path, rows, planted


@pytest.mark.parametrize("chunk", [7, 1 << 24])
def test_planted_spans_found_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    from neardup.corpus import exact_substrings

    monkeypatch.setattr(exact_substrings, "_CHUNK", chunk)
    path, rows, planted = _corpus(tmp_path)
    result = neardup.repeated_substrings(path, min_bytes=60)
    got = [(s.id, s.start, s.end, s.text, s.copies) for s in result.spans]
    expected = []
    for doc_id, where in planted.items():
        for start, plant in where:
            copies = 3 if plant == PLANTED_RU else 2
            expected.append((doc_id, start, start + len(plant), plant, copies))
    assert got == expected  # every plant, nothing else
    texts = {r["id"]: r["text"] for r in rows}
    for s in result.spans:
        encoded = texts[s.id].encode("utf-8")
        assert encoded[s.byte_start : s.byte_end].decode("utf-8") == s.text
        assert len(texts[s.id][: s.start].encode("utf-8")) == s.byte_start
        assert s.byte_end - s.byte_start >= 60


def test_spans_end_at_character_boundaries() -> None:
    # two Cyrillic letters sharing their lead byte (П = D0 9F, Р = D0 A0) and two CJK
    # characters sharing two bytes (一 = E4 B8 80, 丁 = E4 B8 81) right after a shared run:
    # the byte-level common prefix ends inside a character, the span must not.
    shared = "общий кусок текста для проверки границ "
    docs = [shared + "П", shared + "Р", "x" + shared + "一", "y" + shared + "丁"]
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "c.jsonl"
        path.write_text(
            "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(docs))
        )
        result = neardup.repeated_substrings(path, min_bytes=20)
    assert [(s.id, s.text) for s in result.spans] == [(str(i), shared) for i in range(4)]
    assert all(s.copies == 4 for s in result.spans)


def test_short_repeats_are_not_reported(tmp_path: Path) -> None:
    path, _, _ = _corpus(tmp_path)
    big = len(PLANTED_RU.encode()) + 1
    assert neardup.repeated_substrings(path, min_bytes=big).spans == ()


@pytest.mark.parametrize("chunk", [5, 1 << 24])
def test_against_reports_only_spans_found_in_the_other_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    from neardup.corpus import exact_substrings

    monkeypatch.setattr(exact_substrings, "_CHUNK", chunk)
    path, _, _planted = _corpus(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "o", "text": "zz " + PLANTED_CJK + " zz"}) + "\n", "utf-8")
    result = neardup.repeated_substrings(path, against=other, min_bytes=60)
    assert [(s.id, s.text) for s in result.spans] == [("d3", PLANTED_CJK), ("d7", PLANTED_CJK)]
    assert result.summary["against_documents"] == 1


def test_kept_removes_every_copy(tmp_path: Path) -> None:
    path, rows, _planted = _corpus(tmp_path)
    out = tmp_path / "kept.jsonl"
    result = neardup.repeated_substrings(path, min_bytes=60, kept=out)
    kept = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    assert [r["id"] for r in kept] == [r["id"] for r in rows]
    assert all(r["lang"] == "mixed" for r in kept)
    for before, after in zip(rows, kept, strict=True):
        expected = before["text"].replace(PLANTED_RU, "").replace(PLANTED_CJK, "")
        assert after["text"] == expected
    removed = dict(zip(result.ids, result.removed_chars.tolist(), strict=True))
    assert removed["d3"] == len(PLANTED_RU) + len(PLANTED_CJK)
    assert removed["d0"] == 0


def _reference(texts: list[str], k: int) -> list[tuple[str, int, int, int]]:
    """Repeated spans by brute force: every k-byte window of every document counted."""
    from collections import Counter

    data = [t.encode("utf-8") for t in texts]
    seen = Counter(d[p : p + k] for d in data for p in range(len(d) - k + 1))
    out = []
    for i, d in enumerate(data):
        marked = [p for p in range(len(d) - k + 1) if seen[d[p : p + k]] >= 2]
        groups: list[list[int]] = []
        for p in marked:
            if groups and p <= groups[-1][-1] + k:
                groups[-1].append(p)
            else:
                groups.append([p])
        for g in groups:
            a, b = g[0], g[-1] + k
            while a < b and d[a] & 0xC0 == 0x80:
                a += 1
            while b > a and b < len(d) and d[b] & 0xC0 == 0x80:
                b -= 1
            if b - a >= k:
                out.append((str(i), a, b, max(seen[d[p : p + k]] for p in g)))
    return out


@pytest.mark.parametrize("chunk", [3, 64, 1 << 24])
def test_spans_match_brute_force_at_any_chunk_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    # the suffix-array runs and the text-order spans are read in chunks of _CHUNK ranks or
    # positions; runs and spans crossing a chunk's end must come out as with one chunk
    from neardup.corpus import exact_substrings

    monkeypatch.setattr(exact_substrings, "_CHUNK", chunk)
    rng = random.Random(11)
    pieces = ["ab", "аб", "漢", "abc abc", "я", "x", " "]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(5, 60))) for _ in range(12)]
    path = tmp_path / "c.jsonl"
    path.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)), "utf-8"
    )
    for k in (4, 9, 17):
        got = neardup.repeated_substrings(path, min_bytes=k).spans
        assert [(s.id, s.byte_start, s.byte_end, s.copies) for s in got] == _reference(texts, k)
