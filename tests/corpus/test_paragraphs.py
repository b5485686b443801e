"""neardup.repeated_paragraphs on constructed pages whose boilerplate lines are known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.corpus.counts import Occurrences
from neardup.corpus.segments import normal_form, split_units
from neardup.errors import ParameterError

NAV = "Home | News | Sport | Contact"
COOKIE = "We use cookies to improve your experience."
FOOTER = "© 2024 Пример Медиа. Все права защищены."


def _pages(tmp_path: Path) -> tuple[Path, list[dict[str, str]]]:
    """Six pages: NAV on all, COOKIE on four (once spelled with other case and spaces),
    FOOTER on three; every other line unique, one page repeating a line inside itself."""
    rows = []
    for i in range(6):
        lines = [NAV, f"Story {i}: a unique headline number {i * 13}.", f"Body text {i} here."]
        if i < 4:
            lines.insert(1, COOKIE if i != 2 else "  WE use   cookies to improve your EXPERIENCE. ")
        if i % 2 == 0:
            lines.append(FOOTER)
        rows.append({"id": f"p{i}", "text": "\n".join(lines) + "\n", "url": f"https://x/{i}"})
    rows.append({"id": "solo", "text": "Only here\nOnly here\n", "url": "https://x/solo"})
    path = tmp_path / "pages.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path, rows


def test_units_split_and_normal_form() -> None:
    text = "Home\nAbout  US\n\n  Para\nnext\n\n\nlast"
    lines = split_units(text, "line")
    assert [text[u.start : u.next] for u in lines] == [
        "Home\n",
        "About  US\n",
        "\n",
        "  Para\n",
        "next\n",
        "\n",
        "\n",
        "last",
    ]
    assert [u.key is None for u in lines] == [False, False, True, False, False, True, True, False]
    paras = split_units(text, "paragraph")
    assert [text[u.start : u.end] for u in paras] == ["Home\nAbout  US", "Para\nnext", "last"]
    assert normal_form("  Ёлка\tИ  ПАЛКА ") == "елка и палка"
    with pytest.raises(ParameterError, match="unit"):
        split_units(text, "sentence")


@pytest.mark.parametrize("budget", [None, 0])
def test_boilerplate_lines_found_exactly(tmp_path: Path, budget: int | None) -> None:
    path, _rows = _pages(tmp_path)
    result = neardup.repeated_paragraphs(path, memory_budget=budget)
    assert result.summary["spilled_to_disk"] is (budget == 0)
    got = [(u.text, u.documents, u.copies, u.first_id, u.first_unit) for u in result.units]
    assert got == [
        (NAV, 6, 6, "p0", 0),
        (COOKIE, 4, 4, "p0", 1),
        (FOOTER, 3, 3, "p0", 4),
    ]
    removed = dict(zip(result.ids, result.removed_chars.tolist(), strict=True))
    cookie2 = len("  WE use   cookies to improve your EXPERIENCE. \n")
    assert removed == {
        "p0": 0,
        "p1": len(NAV) + 1 + len(COOKIE) + 1,
        "p2": len(NAV) + 1 + cookie2 + len(FOOTER) + 1,
        "p3": len(NAV) + 1 + len(COOKIE) + 1,
        "p4": len(NAV) + 1 + len(FOOTER) + 1,
        "p5": len(NAV) + 1,
        "solo": 0,  # a line repeated inside one document only is never cut
    }
    assert result.summary["cut_units"] == 5 + 3 + 2


def test_min_docs_and_boilerplate_mode(tmp_path: Path) -> None:
    path, _ = _pages(tmp_path)
    result = neardup.repeated_paragraphs(path, min_docs=4, keep="none")
    assert [u.text for u in result.units] == [NAV, COOKIE]
    assert result.removed_chars[0] == len(NAV) + 1 + len(COOKIE) + 1  # the first copy too


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_kept_round_trip_keeps_fields_rewrites_text(tmp_path: Path, suffix: str) -> None:
    path, rows = _pages(tmp_path)
    out = tmp_path / f"kept{suffix}"
    result = neardup.repeated_paragraphs(path, kept=out)
    if suffix == ".jsonl":
        kept = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    else:
        import pyarrow.parquet as pq

        kept = pq.read_table(out).to_pylist()
    assert [r["id"] for r in kept] == [r["id"] for r in rows]
    assert [r["url"] for r in kept] == [r["url"] for r in rows]
    assert kept[0]["text"] == rows[0]["text"]  # the first places stay
    for r in kept[1:6]:
        assert NAV not in r["text"] and FOOTER not in r["text"]
        assert "cookies" not in r["text"].lower()
    for before, after, cut in zip(rows, kept, result.removed_chars.tolist(), strict=True):
        assert len(before["text"]) - len(after["text"]) == cut
    if suffix == ".jsonl":  # an unchanged record is copied byte for byte
        assert out.read_text("utf-8").splitlines()[0] == path.read_text("utf-8").splitlines()[0]


def test_emptied_documents_left_out_of_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"id": "a", "text": "Menu\\nFooter"}\n{"id": "b", "text": "Menu\\nFooter\\n"}\n', "utf-8"
    )
    out = tmp_path / "k.jsonl"
    result = neardup.repeated_paragraphs(path, kept=out)
    assert result.summary["documents_emptied"] == 1
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ["a"]


def test_occurrences_spill_agrees_with_memory() -> None:
    import numpy as np

    rng = np.random.default_rng(7)
    keys = rng.integers(0, 50, size=(300, 5)).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    results = []
    for budget in (None, 0):
        occ = Occurrences(memory_budget=budget)
        for d, row in enumerate(keys.tolist()):
            distinct = list(dict.fromkeys(row))
            occ.add(d, distinct, [row.index(k) for k in distinct])
        results.append(occ.repeated(min_docs=3))
    a, b = results
    for name in ("key", "documents", "first_doc", "first_unit"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist()
    counts: dict[int, set[int]] = {}
    for d, row in enumerate(keys.tolist()):
        for k in row:
            counts.setdefault(k, set()).add(d)
    expected = sorted(k for k, docs in counts.items() if len(docs) >= 3)
    assert a.key.tolist() == expected
    assert a.documents.tolist() == [len(counts[k]) for k in expected]
    assert a.first_doc.tolist() == [min(counts[k]) for k in expected]


def test_bad_parameters_are_named(tmp_path: Path) -> None:
    path, _ = _pages(tmp_path)
    for kwargs, name in (
        ({"min_docs": 1}, "min_docs"),
        ({"keep": "last"}, "keep"),
        ({"unit": "word"}, "unit"),
        ({"kept": tmp_path / "x.txt"}, "output"),
    ):
        with pytest.raises(ParameterError, match=name):
            neardup.repeated_paragraphs(path, **kwargs)


def test_kept_from_a_folder_and_csv_keeps_their_fields(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    for i in range(3):
        (tree / "sub" / f"p{i}.txt").write_text(f"Menu line\nUnique {i} body\nFooter here\n")
    (tree / "t.csv").write_text('id,text,extra\nr1,"Menu line\nrow one",x\n')
    out = tmp_path / "kept.jsonl"
    neardup.repeated_paragraphs(tree, kept=out)
    kept = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["id"], r["text"]) for r in kept] == [
        ("sub/p0.txt", "Menu line\nUnique 0 body\nFooter here\n"),
        ("sub/p1.txt", "Unique 1 body\n"),
        ("sub/p2.txt", "Unique 2 body\n"),
        ("r1", "row one"),
    ]
    assert kept[3]["extra"] == "x"


_LINES = ["menu", "Menu ", "footer", "a", "b", "c", "", "  "]


@settings(max_examples=60, deadline=None)
@given(
    docs=st.lists(st.lists(st.sampled_from(_LINES), max_size=6), min_size=1, max_size=8),
    min_docs=st.integers(2, 4),
    keep=st.sampled_from(["first", "none"]),
)
def test_cuts_agree_with_a_plain_reference(
    tmp_path_factory: pytest.TempPathFactory,
    docs: list[list[str]],
    min_docs: int,
    keep: Literal["first", "none"],
) -> None:
    """Against a direct count: which lines each document loses."""
    texts = ["\n".join(lines) + "\n" for lines in docs]
    path = tmp_path_factory.mktemp("h") / "c.jsonl"
    path.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts))
    )
    result = neardup.repeated_paragraphs(path, min_docs=min_docs, keep=keep, memory_budget=0)
    norm = [[" ".join(x.lower().split()) for x in lines] for lines in docs]
    holders: dict[str, list[int]] = {}
    for d, lines in enumerate(norm):
        for x in dict.fromkeys(lines):
            if x:
                holders.setdefault(x, []).append(d)
    repeated = {x: ds[0] for x, ds in holders.items() if len(ds) >= min_docs}
    by_id = dict(zip(result.ids, result.removed_chars.tolist(), strict=True))
    for d, (lines, keys) in enumerate(zip(docs, norm, strict=True)):
        if str(d) not in by_id:  # the reader skips a blank document ("empty")
            assert not texts[d].strip()
            continue
        expected = 0
        for k, (line, key) in enumerate(zip(lines, keys, strict=True)):
            first = repeated.get(key) == d and keys.index(key) == k
            if key in repeated and not (keep == "first" and first):
                expected += len(line) + 1
        assert by_id[str(d)] == expected
    assert sorted(u.documents for u in result.units) == sorted(len(holders[x]) for x in repeated)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aB \n\t\rЁﬁ\xa0\u3000\u2028漢x};=_", max_size=40), st.booleans())
def test_whole_text_line_keys_equal_line_by_line(text: str, symbols: bool) -> None:
    """The line path normalises the whole text once; each key is the unit's own (none for
    a line without a letter or digit, unless ``symbols``)."""
    from neardup.corpus import segments

    fast = segments._lines(text, 1, symbols)
    assert fast is not None
    slow = []
    for start, nxt in segments._spans(text, segments._SEPARATORS["line"]):
        content = text[start:nxt].rstrip()
        norm = normal_form(content)
        keyed = norm and (symbols or any(c.isalnum() for c in norm))
        key = xxhash.xxh64_intdigest(norm.encode()) if keyed else None
        slow.append((start, start + len(content), nxt, key))
    assert [(u.start, u.end, u.next, u.key) for u in fast] == slow


def test_punctuation_only_lines_are_not_cut_by_default(tmp_path: Path) -> None:
    # code and markup repeat "};" and "=====" in every document: not boilerplate
    rows = [
        {
            "id": f"d{i}",
            "text": f"int f{i}() {{\n  return {i};\n}};\n=====\n* * *\nCopyright ACME\n",
        }
        for i in range(3)
    ]
    path = tmp_path / "code.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    result = neardup.repeated_paragraphs(path)
    assert [u.text for u in result.units] == ["Copyright ACME"]
    assert result.cut_units.tolist() == [0, 1, 1]
    every = neardup.repeated_paragraphs(path, symbols=True)
    assert [u.text for u in every.units] == ["};", "=====", "* * *", "Copyright ACME"]
    assert every.cut_units.tolist() == [0, 4, 4]
    assert every.summary["symbols"] is True
    with pytest.raises(ParameterError, match="symbols"):
        neardup.repeated_paragraphs(path, symbols="yes")  # type: ignore[arg-type]


def test_kept_from_parquet_keeps_its_schema(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, rows = _pages(tmp_path)
    source = tmp_path / "pages.parquet"
    pq.write_table(pa.Table.from_pylist(rows), source)
    out = tmp_path / "kept.parquet"
    result = neardup.repeated_paragraphs(source, kept=out)
    table = pq.read_table(out)
    assert table.schema == pq.read_table(source).schema
    kept = table.to_pylist()
    assert [r["url"] for r in kept] == [r["url"] for r in rows]
    for before, after, cut in zip(rows, kept, result.removed_chars.tolist(), strict=True):
        assert len(before["text"]) - len(after["text"]) == cut
    assert NAV not in kept[1]["text"] and kept[0]["text"] == rows[0]["text"]


NAMES = ["Ann Lee", "Bob Stone", "Иван Петров", "Mia Wong", "Tom Hardy", "Zoe Park"]
HEADER = (
    "Posted on {day} March 2024 by the newsroom. Filed under Local News; comments close in 30 days."
)
FOOTER_NEAR = (
    "© 2024 Пример Медиа. Write to {name} at the newsroom. "
    "Все права защищены, перепечатка запрещена."
)
BODIES = [
    "The council voted to repair the old bridge before the spring floods arrive.",
    "A new bakery opened on Mill Street and sold out of rye bread by noon.",
    "Students from the music school gave a free concert in the central park.",
    "The library extends its opening hours to nine in the evening from May.",
    "Road works on the ring road will close two lanes for the next three weeks.",
    "The football club signed a young goalkeeper from the regional academy.",
]


def _near_pages(tmp_path: Path) -> tuple[Path, list[dict[str, str]]]:
    """Six pages of three paragraphs: a header that differs from page to page by its date, a
    unique story, a footer that differs by a name (each variant on one page)."""
    rows = []
    for i, body in enumerate(BODIES):
        header = HEADER.format(day=i + 3)
        footer = FOOTER_NEAR.format(name=NAMES[(i + 2) % 6].split()[0])
        rows.append({"id": f"p{i}", "text": f"{header}\n\n{body}\n\n{footer}\n"})
    path = tmp_path / "near.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path, rows


def test_near_identical_paragraphs_are_one_repeated_unit(tmp_path: Path) -> None:
    path, rows = _near_pages(tmp_path)
    exact = neardup.repeated_paragraphs(path, unit="paragraph")
    assert exact.units == ()  # every variant is on one page only
    out = tmp_path / "kept.jsonl"
    result = neardup.repeated_paragraphs(path, unit="paragraph", near=True, kept=out)
    got = [(u.documents, u.copies, u.variants, u.first_id, u.first_unit) for u in result.units]
    assert got == [(6, 6, 6, "p0", 0), (6, 6, 6, "p0", 2)]
    assert [u.text for u in result.units] == [
        HEADER.format(day=3),
        FOOTER_NEAR.format(name="Иван"),
    ]
    assert result.summary["near_merged_units"] == 10  # 5 variants joined each cluster
    kept = {r["id"]: r["text"] for r in map(json.loads, out.read_text("utf-8").splitlines())}
    assert kept["p0"] == rows[0]["text"]
    for i in range(1, 6):
        assert kept[f"p{i}"] == BODIES[i] + "\n\n"  # header and footer cut, the story kept
    none = neardup.repeated_paragraphs(path, unit="paragraph", near=True, keep="none")
    assert int(none.cut_units.sum()) == 12
    assert none.units[0].as_dict()["variants"] == 6


def test_near_keeps_paragraphs_apart_below_the_threshold(tmp_path: Path) -> None:
    path, _rows = _near_pages(tmp_path)
    # the variants share 85-89% of their 5-grams (Jaccard 0.85, 0.89): at 0.95 none join
    strict = neardup.repeated_paragraphs(path, unit="paragraph", near=True, threshold=0.95)
    assert strict.units == ()
    assert strict.summary["near_merged_units"] == 0
    with pytest.raises(ParameterError, match="threshold"):
        neardup.repeated_paragraphs(path, near=True, threshold=0.0)


def test_near_clusters_map_keys_to_the_first_seen_member() -> None:
    from neardup.corpus.near import near_clusters

    texts = [
        normal_form(HEADER.format(day=3)),
        normal_form(BODIES[0]),
        normal_form(HEADER.format(day=4)),
    ]
    keys = [xxhash.xxh64_intdigest(t.encode()) for t in texts]
    clusters = near_clusters(keys, texts, threshold=0.8)
    import numpy as np

    mapped = clusters.map(np.array([*keys, 7], dtype=np.uint64)).tolist()
    assert mapped == [keys[0], keys[1], keys[0], 7]
    assert [clusters.members(k) for k in keys] == [2, 1, 2]


def test_near_star_buckets_keep_a_cluster_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with a window of 1, each unit of a band bucket is verified against the one before it
    # only: the six dated headers, each near the one before, still make one cluster of six
    from neardup.corpus import near

    monkeypatch.setattr(near, "_WINDOW", 1)
    path, _rows = _near_pages(tmp_path)
    result = neardup.repeated_paragraphs(path, unit="paragraph", near=True)
    assert [(u.documents, u.variants) for u in result.units] == [(6, 6), (6, 6)]


def test_near_numbered_template_lines_verify_a_linear_number_of_pairs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 20,000 lines that differ by a number share band buckets of thousands of units: the
    # pairs of each bucket (6.5 million, 24 s and 1.1 GiB before) are not all verified, at
    # most _WINDOW a member; the lines still make one cluster of almost all of them
    import time

    import numpy as np

    from neardup.corpus import near
    from neardup.methods.measures import intersection_sizes as exact

    verified = [0]

    def counting(sets: object, pairs: np.ndarray, **kw: object) -> np.ndarray:
        verified[0] += len(pairs)
        return exact(sets, pairs, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(near, "intersection_sizes", counting)
    n = 20_000
    texts = [normal_form(f"This is the template line number {i} of the page") for i in range(n)]
    keys = [xxhash.xxh64_intdigest(t.encode()) for t in texts]
    t0 = time.perf_counter()
    clusters = near.near_clusters(keys, texts, threshold=0.8)
    seconds = time.perf_counter() - t0
    assert verified[0] <= 40 * n  # 325 * n before
    assert seconds < 20.0  # about 3 s; 24 s before
    assert int(clusters.variants.max()) > 0.95 * n
