"""The CI fuzz suite: every target, a bounded number of derandomized cases.

Each case runs under :mod:`fuzz.guard`: only the ``NeardupError`` family may escape, a case
has a CPU-time (and a longer wall-clock) deadline, and the growth of the process's peak
resident set during it is bounded. The long run
(``tests/fuzz_long.py``) runs the same targets for >= 10,000 cases each.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings

from fuzz.guard import check_case
from fuzz.targets import TARGETS, Context, Target

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Context]:
    c = Context(tmp_path_factory.mktemp("fuzz"))
    c.db_urls["sqlite"] = f"sqlite:///{c.tmp / 'fuzz.db'}"
    c.db_urls["postgresql"] = ""
    yield c
    c.close()


def _with_db(ctx: Context, target: Target, request: pytest.FixtureRequest) -> None:
    if target.needs == "postgresql" and not ctx.db_urls["postgresql"]:
        ctx.db_urls["postgresql"] = str(request.getfixturevalue("pg_database"))


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_target(target: Target, ctx: Context, request: pytest.FixtureRequest) -> None:
    _with_db(ctx, target, request)
    ran: list[int] = []

    @settings(
        max_examples=target.ci_examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(value=target.strategy)
    def case(value: object) -> None:
        ran.append(1)
        note(f"input: {value!r:.3000}")
        check_case(lambda: target.run(value, ctx), memory_mib=target.memory_mib)

    case()
    assert len(ran) >= min(target.ci_examples, 20)


def test_targets_cover_the_issue() -> None:
    """Readers, encodings, extraction, canonical form, vectorised path, every method, compare,
    dedup and the store on both databases are all fuzzed."""
    names = {t.name for t in TARGETS}
    assert names >= {"read_corpus", "encoding", "extract", "canonical", "vectorized", "methods",
                     "compare", "dedup", "store_sqlite", "store_postgresql"}  # fmt: skip


def test_scratch_stays_in_tmp(ctx: Context) -> None:
    assert Path(ctx.scratch()).is_relative_to(ctx.tmp)
