"""The dedup job gives the same files with the compiled prepare kernel and with the numpy
path (``NEARDUP_KERNEL=python``), and says in its summary which one ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods import kernel as kmod
from neardup.output import write_result
from shared_data import DATA, data_path, unavailable

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "corpus"
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")


def _run(
    monkeypatch: pytest.MonkeyPatch, out: Path, source: list[str], kernel: str, **kwargs: Any
) -> dict[str, bytes]:
    monkeypatch.setenv(kmod.ENV, kernel)
    result = dedup(source, **kwargs)
    want = "python" if kernel == "python" else "cython"
    assert result.summary["kernel"] == want
    written = write_result(result, out / kernel)
    return {name: (written / name).read_bytes() for name in FILES}


@pytest.fixture(autouse=True)
def _built() -> None:
    if kmod.compiled() is None:
        unavailable(kmod.missing_reason())


#: Every built-in method: the streaming shingle methods take the kernel from the texts;
#: the methods that keep the token strings (I-Match, SimHash, SpotSigs, TF-RIDF, anchor
#: words) take its shingle and key passes over their tokens' fingerprints.
METHODS = (
    "anchor-words", "imatch", "imatch-random", "megashingles", "minhash-lsh", "shingles-dice",
    "shingles-full", "shingles-min", "shingles-mod", "simhash", "sl-st", "spotsigs", "tf-ridf",
)  # fmt: skip


def test_the_list_is_every_method() -> None:
    from neardup.methods.registry import method_classes

    builtin = {c.name for c in method_classes() if c.__module__.startswith("neardup.methods.")}
    assert set(METHODS) == builtin


@pytest.mark.parametrize(
    ("method", "jobs"),
    [("minhash-lsh", 2), *((m, 1) for m in METHODS)],
)  # fmt: skip
def test_examples_give_the_same_files_with_either_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str, jobs: int
) -> None:
    kwargs = {"method": method, "options": DedupOptions(threshold=0.5), "jobs": jobs}
    reference = _run(monkeypatch, tmp_path, [str(EXAMPLES)], "python", **kwargs)
    compiled = _run(monkeypatch, tmp_path, [str(EXAMPLES)], "auto", **kwargs)
    assert compiled == reference
    if method in ("minhash-lsh", "shingles-full"):
        assert reference["pairs.jsonl"].count(b"\n") >= 3  # the example corpus' known pairs


def test_the_in_memory_path_runs_the_same_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Documents given in memory go through the one prepare stage too: the compiled kernel
    where it is built, the numpy path when asked for, the same pairs either way."""
    from neardup.text.types import Document

    docs = [Document("a", "one two three four five six"), Document("b", "one two three four five")]
    monkeypatch.setenv(kmod.ENV, "python")
    reference = dedup(docs, method="minhash-lsh")
    assert reference.summary["kernel"] == "python"
    monkeypatch.delenv(kmod.ENV, raising=False)
    compiled = dedup(docs, method="minhash-lsh")
    assert compiled.summary["kernel"] == ("cython" if kmod.compiled() is not None else "python")
    assert [p.as_dict() for p in compiled.pairs] == [p.as_dict() for p in reference.pairs]


def test_a_bad_kernel_choice_fails_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(kmod.ENV, "numba")
    with pytest.raises(ParameterError, match="NEARDUP_KERNEL"):
        dedup([str(EXAMPLES)], method="minhash-lsh", jobs=1)


def _by_prepare_config() -> dict[str, list[str]]:
    """The built-in methods grouped by the prepare stage they run (their plan's
    :class:`~neardup.methods.plan.PrepareConfig` at t = 0.5): methods of one group get the
    same job inputs from a kernel, whatever else they do with them."""
    from neardup.job.pipeline import decided_options, resolve_method
    from neardup.methods.plan import plan_for

    groups: dict[str, list[str]] = {}
    for name in METHODS:
        opts = DedupOptions(threshold=0.5)
        meth = resolve_method(name, opts, {})
        config = plan_for(meth, decided_options(meth, opts)).prepare_config(rows=True, texts=True)
        groups.setdefault(repr(config), []).append(name)
    return groups


#: One method a prepare config (6 of the 13 today: the shingle methods share one, I-Match
#: and anchor words another...): the kernel is compared with the numpy path on every
#: shared set through each distinct prepare stage, job to files; every method is compared
#: on the examples corpus above, and the prepare outputs on every shared set by
#: tests/methods/test_kernel.py.
PREPARE_GROUPS = tuple(group[0] for group in _by_prepare_config().values())


def test_every_method_is_in_a_prepare_group() -> None:
    groups = _by_prepare_config()
    assert sorted(m for group in groups.values() for m in group) == sorted(METHODS)
    assert len(PREPARE_GROUPS) == len(groups) >= 5  # at least the kinds the comment names


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("method", PREPARE_GROUPS)
def test_every_shared_set_gives_the_same_files_with_either_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    data_path()
    names = sorted(p.parent.name for p in DATA.glob("*/docs.jsonl"))
    assert names
    for name in names:
        source = [str(data_path(name, "docs.jsonl"))]
        kwargs = {"method": method, "options": DedupOptions(threshold=0.5), "jobs": 1}
        out = tmp_path / name
        reference = _run(monkeypatch, out, source, "python", **kwargs)
        assert _run(monkeypatch, out, source, "auto", **kwargs) == reference, name


def test_a_job_without_the_built_kernel_says_so_in_one_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(kmod.ENV, raising=False)
    monkeypatch.setattr(kmod, "compiled", lambda: None)
    result = dedup([str(EXAMPLES)], method="minhash-lsh", jobs=1)
    assert result.summary["kernel"] == "python"
    notes = [w for w in result.summary["warnings"] if "kernel" in w]
    assert notes == [kmod.missing_reason()]
    monkeypatch.setenv(kmod.ENV, "python")  # asked for: nothing to say
    quiet = dedup([str(EXAMPLES)], method="minhash-lsh", jobs=1)
    assert not [w for w in quiet.summary["warnings"] if "kernel" in w]
