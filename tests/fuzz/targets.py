"""Fuzz targets: what each one feeds to neardup and which properties must hold.

A target is a name, a hypothesis strategy and ``run(value, ctx)``; ``run`` calls the code
under test and asserts its documented properties. The CI suite (``tests/fuzz``) and the
long run (``tests/fuzz_long.py``) share these, under :mod:`fuzz.guard`'s rules.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fuzz import strategies as S

#: Methods a collection can use (the others have no database index yet).
STORE_METHODS = (
    "minhash-lsh",
    "shingles-full",
    "shingles-mod",
    "shingles-min",
    "megashingles",
    "imatch",
    "imatch-random",
    "tf-ridf",
    "anchor-words",
)


@dataclass
class Context:
    """Per-run resources: a scratch directory and stores opened on demand.

    Attributes:
        tmp: a directory the targets may write below.
        db_urls: ``{"sqlite": url, "postgresql": url}`` (PostgreSQL only when available).
    """

    tmp: Path
    db_urls: dict[str, str] = field(default_factory=dict)
    _stores: dict[str, Any] = field(default_factory=dict)

    def store(self, kind: str) -> Any:
        """The :class:`~neardup.store.Store` of ``kind`` (opened once)."""
        from neardup.store import Store

        if kind not in self._stores:
            self._stores[kind] = Store(self.db_urls[kind])
        return self._stores[kind]

    def scratch(self) -> Path:
        """A fresh empty directory below ``tmp``."""
        path = self.tmp / uuid.uuid4().hex[:12]
        path.mkdir(parents=True)
        return path

    def close(self) -> None:
        """Close the stores."""
        for store in self._stores.values():
            store.close()
        self._stores.clear()


@dataclass(frozen=True)
class Target:
    """A fuzz target.

    Attributes:
        name: short name (the long run's table row).
        strategy: hypothesis strategy of one case's input.
        run: ``run(value, ctx)``: exercise the code, assert its properties.
        ci_examples: cases in the CI suite (bounded time).
        memory_mib: bound on the growth of the peak resident set during a case, MiB.
        needs: database kind the target needs (``""``: none).
    """

    name: str
    strategy: st.SearchStrategy[Any]
    run: Callable[[Any, Context], None]
    ci_examples: int
    memory_mib: float = 512
    needs: str = ""


# -- text stage ----------------------------------------------------------------------------
def run_encoding(data: bytes, _ctx: Context) -> None:
    from neardup.errors import DecodeError
    from neardup.text.encoding import SNIFF_BYTES, decode, looks_binary, utf16_without_bom

    assert isinstance(looks_binary(data), bool)
    try:
        text = decode(data, source="fuzz")
    except DecodeError as exc:
        assert "fuzz" in str(exc)
        return
    assert isinstance(text, str)
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return
    # UTF-16 without a BOM is tried before UTF-8 (decode's step 2): ASCII in UTF-16 is
    # valid UTF-8 too, full of NULs (b"\x00 \x01\x01\x00" reads " \u0101" and a cut unit)
    utf16 = utf16_without_bom(data[:SNIFF_BYTES])
    if utf16 is not None:
        assert text == data.decode(utf16, errors="replace")
        return
    with contextlib.suppress(UnicodeDecodeError):
        assert text == data.decode("utf-8")


def run_extract(value: tuple[str, str], _ctx: Context) -> None:
    from neardup.text.extract import extract, html_to_text, visible_text, wiki_to_text
    from neardup.text.sentences import split_sentences
    from neardup.text.sniff import sniff_content_type

    text, name = value
    ctype = sniff_content_type(text, name=name)
    assert ctype in ("text", "html", "wiki")
    for out in (extract(text, ctype), html_to_text(text), wiki_to_text(text), visible_text(text)):
        assert isinstance(out, str)
        _assert_clean_unicode(out)  # the input has no lone surrogates: neither may the output
    spans = split_sentences(text)
    last = 0
    for start, end in spans:
        assert last <= start < end <= len(text)
        assert text[start:end].strip() == text[start:end]
        last = end


def _forms() -> list[Any]:
    from neardup.text.canonical import CanonicalForm

    return [
        CanonicalForm(),
        CanonicalForm(stop_words=False),
        CanonicalForm(min_token_length=3),
        CanonicalForm(morphology="stem"),
        CanonicalForm(morphology="lemma"),
    ]


_FORMS: list[Any] = []


def run_canonical(text: str, _ctx: Context) -> None:
    if not _FORMS:
        _FORMS.extend(_forms())
    for form in _FORMS:
        tokens = form.tokens(text)
        again, spans = form.tokens_with_spans(text)
        assert again == tokens
        assert len(spans) == len(tokens)
        for start, end in spans:
            assert 0 <= start < end <= len(text)


def run_vectorized(value: tuple[list[str], int], _ctx: Context) -> None:
    from neardup.methods.shingles import Shingling
    from neardup.text.canonical import TOKEN_RE, normalize
    from neardup.text.vectorized import canonical_fingerprints, tokenize_batch
    from neardup.text.xxh64 import token_fingerprints

    texts, seed = value
    if not _FORMS:
        _FORMS.extend(_forms())
    batch = tokenize_batch(texts)
    for i, text in enumerate(texts):
        assert batch.tokens(i) == TOKEN_RE.findall(normalize(text)), f"tokens of {text!r}"
    for form in _FORMS[:3]:
        fps, offsets = canonical_fingerprints(texts, form, seed=seed)
        assert offsets.shape == (len(texts) + 1,)
        for i, text in enumerate(texts):
            want = token_fingerprints(form.tokens(text), seed)
            got = fps[offsets[i] : offsets[i + 1]]
            assert np.array_equal(got, want), f"fingerprints of {text!r} ({form})"
    fast = Shingling(size=3).batch_texts(texts, _FORMS[0])
    slow = Shingling(size=3).batch([_FORMS[0].tokens(t) for t in texts])
    assert np.array_equal(fast.values, slow.values) and np.array_equal(fast.offsets, slow.offsets)


# -- readers -------------------------------------------------------------------------------
_NAMES = st.one_of(
    st.text(
        st.characters(exclude_categories=["Cs"], exclude_characters="/\x00"),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from(
        [
            "..x",
            "-rf",
            " lead",
            "trail ",
            "a b",
            ".hidden",
            "UPPER.TXT",
            "x" * 200,
            "ёлка",
            "中文",
            "\u202etxt.exe",
            "new\nline",
        ]
    ),
).filter(lambda n: n not in (".", "..") and len(n.encode("utf-8")) < 200)


@st.composite
def jsonl_payload(draw: st.DrawFn) -> bytes:
    """JSONL lines: valid records, odd values, lone-surrogate escapes, broken JSON, blanks."""
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 6))
        if kind <= 2:
            rec: dict[str, Any] = {}
            if draw(st.booleans()):
                rec["id"] = draw(
                    st.one_of(
                        S.texts,
                        st.integers(),
                        st.none(),
                        st.floats(),
                        st.lists(st.integers(), max_size=3),
                        st.sampled_from(["../../etc/passwd", "a\x00b"]),
                    )
                )
            rec["text"] = draw(st.one_of(S.markup, S.tiny_texts, st.integers(), st.none()))
            lines.append(json.dumps(rec, ensure_ascii=draw(st.booleans())).encode("utf-8"))
        elif kind == 3:
            esc = draw(
                st.sampled_from(["\\ud800", "\\udfff", "\\ud83d", "\\u0000", "\\ud83d\\ude00"])
            )
            lines.append(
                ('{"id": "s' + esc + '", "text": "кот ' + esc + ' сидел на окне"}').encode()
            )
        elif kind == 4:
            lines.append(
                draw(
                    st.sampled_from(
                        [
                            b"",
                            b"   ",
                            b"{",
                            b"[1,2]",
                            b'"str"',
                            b"null",
                            b'{"text": 1e999}',
                            b"\xff\xfe{}",
                            b"{}",
                        ]
                    )
                )
            )
        else:
            lines.append(draw(S.payloads).replace(b"\n", b" "))
    sep = draw(st.sampled_from([b"\n", b"\r\n"]))
    return sep.join(lines) + draw(st.sampled_from([b"", sep]))


@st.composite
def csv_payload(draw: st.DrawFn) -> bytes:
    """CSV with or without the fields, quotes broken, NUL bytes, a BOM, mis-encoded cells."""
    header = draw(
        st.sampled_from(
            [
                b"id,text",
                b"text",
                b"id,body",
                b"",
                b'"id","text"',
                b"\xef\xbb\xbfid,text",
                b"id,text,extra",
            ]
        )
    )
    rows = [header]
    for _ in range(draw(st.integers(0, 6))):
        cell = draw(st.one_of(S.texts.map(lambda t: t.encode("utf-8")), S.payloads))
        quoted = draw(st.booleans())
        cell = b'"' + cell.replace(b'"', b'""') + b'"' if quoted else cell
        rows.append(b"r," + cell + draw(st.sampled_from([b"", b',"', b",x,y", b"\x00"])))
    return b"\n".join(rows)


@st.composite
def corpus_files(draw: st.DrawFn) -> tuple[list[tuple[str, str, bytes]], int]:
    """A small corpus tree: ``[(subdir, file name, bytes)]`` of every kind, and ``max_bytes``."""
    limit = draw(st.sampled_from([64, 4096, 100_000]))
    files = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(
            st.sampled_from(
                [
                    ".txt",
                    ".html",
                    ".wiki",
                    ".md",
                    ".txt.gz",
                    ".html.gz",
                    ".jsonl",
                    ".jsonl.gz",
                    ".csv",
                    ".htm",
                    ".rst",
                ]
            )
        )
        if kind in (".jsonl", ".jsonl.gz"):
            data = draw(jsonl_payload())
        elif kind == ".csv":
            data = draw(csv_payload())
        elif kind.endswith(".gz"):
            data = draw(S.gzip_payloads(limit))
        else:
            data = draw(st.one_of(S.payloads, S.markup.map(lambda t: t.encode("utf-8"))))
        if kind.endswith(".gz") and kind != ".jsonl.gz" and draw(st.booleans()):
            data = gzip.compress(draw(S.markup).encode("utf-8"))
        elif kind == ".jsonl.gz":
            data = gzip.compress(data) if draw(st.booleans()) else draw(S.gzip_payloads(limit))
        sub = draw(st.sampled_from(["", "sub", "sub/deeper", "ёж"]))
        files.append((sub, draw(_NAMES) + kind, data))
    return files, limit


def run_read(value: tuple[list[tuple[str, str, bytes]], int], ctx: Context) -> None:
    from neardup.text.read import read_corpus
    from neardup.text.types import Document, Skipped

    files, limit = value
    root = ctx.scratch()
    for sub, name, data in files:
        folder = root / sub
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    inputs = [root, *(root / sub / name for sub, name, _ in files)]
    for item in read_corpus(inputs, max_bytes=limit):
        assert isinstance(item, Document | Skipped)
        assert isinstance(item.id, str) and isinstance(item.source, str)
        _assert_clean_unicode(item.id)
        if isinstance(item, Document):
            assert item.text.strip(), "a document with no text"
            assert "\x00" not in item.text
            assert item.raw_bytes <= limit
            _assert_clean_unicode(item.text)


def _assert_clean_unicode(text: str) -> None:
    text.encode("utf-8")  # no lone surrogates: every writer and database can take it


# -- methods, compare, dedup ---------------------------------------------------------------
def _method_names() -> tuple[str, ...]:
    from neardup.methods.registry import method_names

    return method_names()


@st.composite
def method_cases(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A method name and 0-6 documents of any kind."""
    return draw(st.sampled_from(_method_names())), draw(st.lists(S.documents, max_size=6))


def run_methods(value: tuple[str, list[str]], _ctx: Context) -> None:
    from neardup.methods.base import Prepared, Signature
    from neardup.methods.corpus_stats import CorpusStatistics
    from neardup.methods.registry import make_method
    from neardup.text.canonical import CanonicalForm

    name, texts = value
    meth = make_method(name)
    canonical = getattr(meth, "canonical", None) or CanonicalForm()
    docs = [Prepared(f"d{i}", t, canonical.tokens(t)) for i, t in enumerate(texts)]
    if meth.capabilities.needs_fit:
        meth.fit(CorpusStatistics.from_token_lists(d.tokens for d in docs))
    sigs = meth.sign(docs)
    assert len(sigs) == len(docs)
    pairs = np.asarray(meth.candidates(sigs))
    if pairs.size:
        assert pairs.ndim == 2 and pairs.shape[1] == 2
        assert np.all(pairs[:, 0] < pairs[:, 1]) and np.all(pairs[:, 1] < len(docs))
        scores = np.asarray(meth.similarity(sigs, pairs))
        assert scores.shape == (pairs.shape[0],)
        assert np.all((scores >= -1e-9) & (scores <= 1 + 1e-9)), scores
    one = [meth.signature(sigs, i) for i in range(len(docs))]
    for s in one:
        assert Signature.from_bytes(s.to_bytes()) == s
    for a in one[:3]:
        for b in one[:3]:
            score = meth.compare(a, b)
            assert -1e-9 <= score <= 1 + 1e-9 and score == meth.compare(b, a)


@st.composite
def signature_bytes(draw: st.DrawFn) -> bytes:
    """Random bytes, or a real signature cut, extended or with a byte changed."""
    import struct

    if draw(st.booleans()):
        return draw(st.binary(max_size=256))
    key = json.dumps({"method": "x", "params": {}, "canonical": {}}).encode()
    head = b"NDSG" + struct.pack(
        "<BBHI",
        1,
        draw(st.integers(0, 7)),
        0,
        draw(st.sampled_from([len(key), 0, 2**32 - 1, len(key) + 5])),
    )
    data = head + key + draw(st.binary(max_size=64))
    if draw(st.booleans()) and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
    return data


def run_signature_bytes(data: bytes, _ctx: Context) -> None:
    from neardup.methods.base import Signature

    sig = Signature.from_bytes(data)
    assert Signature.from_bytes(sig.to_bytes()) == sig


@st.composite
def compare_cases(draw: st.DrawFn) -> tuple[str, str, str]:
    a = draw(S.documents)
    b = draw(st.one_of(S.documents, st.just(a), st.just(a + " " + a)))
    return draw(st.sampled_from(_method_names())), a, b


def run_compare(value: tuple[str, str, str], _ctx: Context) -> None:
    import neardup
    from neardup.passages import matched_passages

    name, a, b = value
    r = neardup.compare(a, b, method=name)
    for v in (r.resemblance, r.containment_ab, r.containment_ba, r.score):
        assert 0.0 <= v <= 1.0
    json.dumps(r.as_dict())
    for p in matched_passages(a, b, shingle_size=3):
        assert 0 <= p.a_start < p.a_end <= len(a) and 0 <= p.b_start < p.b_end <= len(b)


@st.composite
def dedup_cases(draw: st.DrawFn) -> dict[str, Any]:
    texts = draw(st.lists(S.documents, max_size=8))
    texts += [t + " " + S.RU_WORDS[0] for t in texts[: draw(st.integers(0, 3))]]  # near copies
    return {
        "ids": draw(
            st.lists(
                st.one_of(S.texts, st.sampled_from(["\ud800", "a\udcff", "\x00"])),
                min_size=len(texts),
                max_size=len(texts),
            )
        ),
        "texts": texts,
        "method": draw(st.sampled_from(_method_names())),
        "measure": draw(st.sampled_from(["resemblance", "containment"])),
        "threshold": draw(st.sampled_from([0.1, 0.5, 0.9, 1.0])),
        "decision": draw(st.sampled_from([None, "own", "verified"])),
        "min_tokens": draw(st.sampled_from([1, 3])),
    }


def run_dedup(case: dict[str, Any], ctx: Context) -> None:
    from neardup.job.pipeline import DedupOptions, dedup
    from neardup.output import FILES, write_result
    from neardup.text.types import Document

    docs = [Document(i or "x", t) for i, t in zip(case["ids"], case["texts"], strict=True)]
    opts = DedupOptions(
        measure=case["measure"],
        threshold=case["threshold"],
        decision=case["decision"],
        min_tokens=case["min_tokens"],
    )
    result = dedup(docs, method=case["method"], options=opts)
    ids = set(result.ids)
    assert len(ids) == len(result.ids)
    for p in result.pairs:
        assert p.a in ids and p.b in ids and p.a != p.b
    out = write_result(result, ctx.scratch())
    for name in FILES:
        for line in (out / name).read_text(encoding="utf-8").split("\n")[:-1]:
            json.loads(line)  # one JSON value a line ("\n" only: U+2028 may sit in a string)
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["documents"] == len(ids)


# -- store -----------------------------------------------------------------------------------
_IDS = st.one_of(
    S.texts.filter(bool),
    st.sampled_from(
        [
            "../../etc/passwd",
            "x'); DROP TABLE nd_documents;--",
            "a\x00b",
            "%",
            "_",
            "\\",
            "'",
            '"',
            "id" * 1500,
            "я" * 1500,
            "\ud800",
            "a/b/../c",
        ]
    ),
)


@st.composite
def store_cases(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 5))
    odd = S.documents.map(lambda t: t + " \ud800 \x00 кот сидел на окне и смотрел на улицу")
    texts = draw(st.lists(st.one_of(S.documents, odd), min_size=n, max_size=n))
    return {
        "method": draw(st.sampled_from(STORE_METHODS)),
        "ids": draw(st.lists(_IDS, min_size=n, max_size=n)),
        "texts": texts,
        "queries": draw(st.lists(st.one_of(S.documents, st.sampled_from(texts)), max_size=3)),
        "measure": draw(st.sampled_from(["resemblance", "containment"])),
    }


def _run_store(case: dict[str, Any], ctx: Context, kind: str) -> None:
    from neardup.errors import InputError, NeardupError, StoreError
    from neardup.text.types import Document

    store = ctx.store(kind)
    name = f"fz-{uuid.uuid4().hex[:10]}"
    store.create_collection(name, case["method"], measure=case["measure"], threshold=0.5)
    try:
        docs = [Document(i, t) for i, t in zip(case["ids"], case["texts"], strict=True)]
        try:
            report = store.add(name, docs)
        except NeardupError as exc:  # bad documents are skipped with a reason, never an error
            raise AssertionError(f"add raised {type(exc).__name__}: {exc}") from exc
        assert report.added + len(report.skipped) == len(docs)
        stats = store.stats(name)
        assert stats["documents"] == report.added
        again = store.add(name, docs)
        assert again.added == 0, "re-adding added documents"
        for query in case["queries"]:
            try:
                result = store.check(name, query, limit=50)
            except StoreError as exc:
                raise AssertionError(f"check raised StoreError: {exc}") from exc
            except InputError:
                continue  # too short to check: the documented outcome
            json.dumps(result.as_dict())
        for doc in docs[:2]:
            try:
                store.remove(name, doc.id)
            except InputError:
                continue  # not stored (skipped): DocumentNotFound
        assert store.stats(name)["documents"] <= report.added
    finally:
        store.delete_collection(name)


def run_store_sqlite(case: dict[str, Any], ctx: Context) -> None:
    _run_store(case, ctx, "sqlite")


def run_store_postgresql(case: dict[str, Any], ctx: Context) -> None:
    _run_store(case, ctx, "postgresql")


# -- bombs (issue 27): zip members and content codings ----------------------------------------
_MIB = 1 << 20


@st.composite
def archive_cases(draw: st.DrawFn) -> list[tuple[str, int, int, bool]]:
    """Zip members ``(name, MiB of zeros or random bytes, extra bytes, random?)``: DOCX
    part names or others, up to 96 MiB inflated in all (past the 64 MiB bound)."""
    names = st.sampled_from(
        ["[Content_Types].xml", "word/document.xml", "word/media/a.png", "_rels/.rels", "x"]
    )
    member = st.tuples(names, st.integers(0, 48), st.integers(0, 5000), st.booleans())
    return draw(st.lists(member, max_size=4))


def run_archive(members: list[tuple[str, int, int, bool]], ctx: Context) -> None:
    import os
    import zipfile

    from neardup.text.office import MAX_INFLATED_BYTES, OfficeError, docx_text
    from neardup.text.read import ReadOptions, document_from_bytes
    from neardup.text.types import Document, Skipped

    path = ctx.scratch() / "m.docx"
    total = 0
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for i, (name, mib, extra, noise) in enumerate(members):
            with z.open(f"{name}.{i}" if i else name, "w", force_zip64=True) as out:
                for _ in range(mib):
                    out.write(b"\0" * _MIB)
                out.write(os.urandom(extra) if noise else b"<w:t>x</w:t>" * (extra // 12))
            total += mib * _MIB + extra
    data = path.read_bytes()
    try:
        docx_text(data)
    except OfficeError as exc:
        if total > MAX_INFLATED_BYTES:
            assert "inflate to" in str(exc)
    else:
        assert total <= MAX_INFLATED_BYTES
    got = document_from_bytes(data, doc_id="m", source="m", name="m.docx", options=ReadOptions())
    assert isinstance(got, Document | Skipped)


@st.composite
def codec_cases(draw: st.DrawFn) -> tuple[str, int, int, int]:
    """``(coding, MiB inflated, network chunk bytes, corruption offset or -1)``."""
    coding = draw(st.sampled_from(["gzip", "deflate", "br", "identity", "zstd", "gzip, br"]))
    return (
        coding,
        draw(st.integers(0, 64)),
        draw(st.sampled_from([1, 7, 512, 4096, 65536])),
        draw(st.one_of(st.just(-1), st.integers(0, 2000))),
    )


def run_codec(value: tuple[str, int, int, int], _ctx: Context) -> None:
    """The crawler's inflater never makes more than the cap and one step, whatever comes."""
    from neardup.crawl import fetch

    coding, mib, chunk, corrupt = value
    cap = 1 << 20
    if coding in ("gzip", "deflate", "br"):
        from crawl._bombs import bomb

        body = bytearray(bomb(coding, mib))
    else:
        body = bytearray(b"\0" * min(mib * _MIB, 2 * cap))
    if 0 <= corrupt < len(body):
        body[corrupt] ^= 0x5A
    made = 0
    try:
        inflater = fetch._Inflater(coding, cap)
        for start in range(0, len(body), chunk):
            for piece in inflater.feed(bytes(body[start : start + chunk])):
                made += len(piece)
                assert made <= cap
    except (fetch._TooLarge, fetch._BadCoding):
        pass
    assert made <= cap


# -- nested JSON records (issue 27) ---------------------------------------------------------
@st.composite
def nested_value(draw: st.DrawFn) -> str:
    """JSON text nested ``depth`` deep (arrays, objects, or both), with numbers of up to
    6,000 digits and strings holding brackets, quotes and escapes inside."""
    depth = draw(st.sampled_from([0, 1, 50, 900, 1000, 1500, 5000]))
    leaf = draw(
        st.one_of(
            st.integers(1, 6000).map(lambda n: "9" * n),
            st.sampled_from(['"]}[{"', r'"\\"', r'"a\"b"', "null", "-1.5e3", '""']),
        )
    )
    opens = draw(st.lists(st.sampled_from(["[", '{"k":']), min_size=depth, max_size=depth))
    closes = "".join("]" if o == "[" else "}" for o in reversed(opens))
    return "".join(opens) + leaf + closes


@st.composite
def nested_records(draw: st.DrawFn) -> tuple[list[bytes], list[bool]]:
    """JSONL lines, each ``{"id", "text", "meta"}`` with the deep value in one of them, or
    cut short (unbalanced); and per line whether its text is a plain string."""
    lines: list[bytes] = []
    plain: list[bool] = []
    for k in range(draw(st.integers(1, 6))):
        deep = draw(nested_value())
        where = draw(st.sampled_from(["meta", "id", "text", "none"]))
        text = deep if where == "text" else json.dumps(f"record {k} " + draw(S.tiny_texts))
        rec = {"id": deep if where == "id" else json.dumps(f"r{k}"), "text": text}
        if where == "meta":
            rec["meta"] = deep
        body = ", ".join(f'"{key}": {value}' for key, value in rec.items())
        line = "{" + body + "}"
        cut = draw(st.integers(0, 9)) == 0
        if cut:
            line = line[: draw(st.integers(0, len(line) - 1))]  # cut short: malformed
        lines.append(line.encode("utf-8"))
        plain.append(where in ("meta", "none") and not cut)
    return lines, plain


def run_nested(value: tuple[list[bytes], list[bool]], ctx: Context) -> None:
    """Every non-blank line is one document or one skip row, never an exception; a record
    whose deep value is in a field other than the id and text is read."""
    from neardup.text.read import read_corpus
    from neardup.text.types import Document, Skipped

    lines, plain = value
    path = ctx.scratch() / "nested.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    items = list(read_corpus([path]))
    shown = [(line, ok) for line, ok in zip(lines, plain, strict=True) if line.strip()]
    assert len(items) == len(shown), (len(items), len(shown))  # blank lines pass unread
    for item, (_, ok) in zip(items, shown, strict=True):
        assert isinstance(item, Document | Skipped)
        if ok:
            assert isinstance(item, Document) or item.reason != "unreadable", item


#: Texts with lone surrogates (Python callers can pass them; readers never yield them).
_SURROGATES = S.texts.map(lambda t: f"{t}\ud800{t}\udfff")


# -- the list --------------------------------------------------------------------------------
TARGETS: tuple[Target, ...] = (
    Target("encoding", S.payloads, run_encoding, 300),
    Target(
        "extract",
        st.tuples(
            S.markup,
            st.one_of(
                st.just(""),
                _NAMES,
                st.sampled_from(["a.html", "b.wiki", "c.txt", "d.htm.gz", "e.md"]),
            ),
        ),
        run_extract,
        120,
    ),
    Target("canonical", st.one_of(S.texts, S.huge_tokens(), S.tiny_texts), run_canonical, 200),
    Target(  # few huge tokens: the vectorised XXH64 of a long token is slow (~1 us/byte)
        "vectorized",
        st.tuples(
            st.lists(st.one_of(S.texts, S.tiny_texts, _SURROGATES), max_size=6).flatmap(
                lambda xs: st.tuples(st.integers(0, 7), S.huge_tokens()).map(
                    lambda p: [*xs, p[1]] if p[0] == 0 else xs  # a huge token in 1 case of 8
                )
            ),
            st.sampled_from([0, 3, 2**32 - 1]),
        ),
        run_vectorized,
        100,
    ),
    Target("read_corpus", corpus_files(), run_read, 60),
    Target("methods", method_cases(), run_methods, 150),
    Target("signature_bytes", signature_bytes(), run_signature_bytes, 300),
    Target("compare", compare_cases(), run_compare, 120),
    Target("dedup", dedup_cases(), run_dedup, 80),
    Target("store_sqlite", store_cases(), run_store_sqlite, 40, needs="sqlite"),
    Target("store_postgresql", store_cases(), run_store_postgresql, 25, needs="postgresql"),
    Target("archive_members", archive_cases(), run_archive, 12, memory_mib=160),
    Target("codec_bombs", codec_cases(), run_codec, 20, memory_mib=64),
    Target("nested_json", nested_records(), run_nested, 60),
)
#: Exceptions a target may raise besides the NeardupError family: none.
BY_NAME = {t.name: t for t in TARGETS}
