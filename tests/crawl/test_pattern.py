"""Address pattern detection (seed 004 section 3.1): a pure function of URL lists."""

from __future__ import annotations

import pytest

from neardup.crawl import AddressPattern, detect_pattern
from neardup.errors import ParameterError

H = "http://127.0.0.1:8000"


def test_path_number_among_listing_noise() -> None:
    urls = [f"{H}/post/{n}" for n in (200, 199, 198, 197, 196)]
    urls += [f"{H}/posts?page=1", f"{H}/posts?page=2"]
    urls += [f"{H}/post/{n}" for n in (185, 181, 190)]
    found = detect_pattern(urls)
    assert found == AddressPattern(f"{H}/post/{{n}}", 181, 200)
    assert found.url(7) == f"{H}/post/7"
    assert found.number(f"{H}/post/77") == 77
    assert found.number(f"{H}/posts?page=3") is None
    assert found.number(f"{H}/post/77/comments") is None


def test_query_parameter_with_constant_parts() -> None:
    urls = [f"http://lib.example/view.php?id={n}&lang=ru" for n in (5, 9, 12, 40)]
    found = detect_pattern(urls)
    assert found is not None
    assert found.template == "http://lib.example/view.php?id={n}&lang=ru"
    assert (found.low, found.high) == (5, 40)
    assert found.number("http://lib.example/view.php?id=0&lang=ru") == 0


def test_constant_digits_stay_literal() -> None:
    urls = [f"https://journal.example/v2/article/{n}/full" for n in (1001, 1002, 1010)]
    found = detect_pattern(urls)
    assert found is not None
    assert found.template == "https://journal.example/v2/article/{n}/full"


def test_zero_padded_numbers() -> None:
    found = detect_pattern([f"http://h/doc/{n:05d}.html" for n in (5, 9, 12)])
    assert found is not None
    assert found.template == "http://h/doc/{n:05d}.html"
    assert found.url(42) == "http://h/doc/00042.html"
    assert found.number("http://h/doc/00042.html") == 42
    assert found.number("http://h/doc/42.html") is None


def test_largest_group_wins() -> None:
    urls = [f"http://h/news/{n}" for n in (1, 2, 3)] + [f"http://h/post/{n}" for n in range(10, 15)]
    found = detect_pattern(urls)
    assert found is not None
    assert found.template == "http://h/post/{n}"


@pytest.mark.parametrize(
    "urls",
    [
        ["http://h/post/intro", "http://h/post/faq", "http://h/post/history", "http://h/post/x"],
        # two numbers vary at once (date-based addresses): no single range to walk
        [f"http://h/{y}/{m}/post.html" for y, m in ((2019, 1), (2020, 5), (2021, 7))],
        # too few
        ["http://h/post/1", "http://h/post/2"],
        # identical number everywhere: nothing varies
        ["http://h/post/5?a", "http://h/post/5?b", "http://h/post/5?c"],
    ],
)
def test_no_pattern(urls: list[str]) -> None:
    assert detect_pattern(urls) is None


def test_host_and_port_digits_are_not_the_number() -> None:
    urls = [f"http://10.1.2.{i}:8080/post/7" for i in (1, 2, 3)]
    assert detect_pattern(urls) is None


def test_braces_in_urls_are_escaped() -> None:
    found = detect_pattern([f"http://h/a{{b}}/post/{n}" for n in (1, 2, 3)])
    assert found is not None
    assert found.url(9) == "http://h/a{b}/post/9"
    assert found.number("http://h/a{b}/post/9") == 9


def test_min_support_is_validated() -> None:
    with pytest.raises(ParameterError, match="min_support"):
        detect_pattern(["http://h/post/1"], min_support=1)
    assert detect_pattern(["http://h/post/1", "http://h/post/2"], min_support=2) is not None
