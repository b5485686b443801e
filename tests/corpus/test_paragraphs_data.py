"""Repeated lines of the 181 real news pages of html-extraction, read as raw HTML text."""

from __future__ import annotations

import pytest

import neardup
from shared_data import data_path


@pytest.mark.data
@pytest.mark.slow
def test_most_repeated_lines_of_raw_html_pages() -> None:
    pages = data_path("html-extraction", "html")
    result = neardup.repeated_paragraphs(
        pages, read_options={"content_type": "text"}, min_docs=3, min_chars=8
    )
    assert result.summary["documents"] == 181
    top = result.units[:10]
    for row in top:  # the table: counts, first place, text
        where = f"{row.first_id}:{row.first_unit + 1}"
        print(f"{row.documents:4d} {row.copies:5d} {where} {row.text[:70]!r}")
    assert all(u.documents >= 3 for u in result.units)
    assert [u.documents for u in top] == sorted((u.documents for u in top), reverse=True)
    # markup lines shared by many pages of one publisher are the most repeated
    assert top[0].documents >= 10
    assert all("<" in u.text or "{" in u.text or "}" in u.text for u in top[:3])
    assert 0 < result.summary["removed_chars"] < result.summary["chars"]
