"""Plain-text documents: one document a file, its text as decoded (Markdown,
reStructuredText and AsciiDoc are read as text; their markup stays).

A name with one of these suffixes fixes the content type ``text``, except a body that
opens like an HTML document (:func:`neardup.text.sniff.sniff_content_type`).
"""

from neardup.text.formats.format import Format

FORMAT = Format(
    "text",
    (".txt", ".text", ".md", ".markdown", ".rst", ".asc", ".adoc", ".asciidoc"),
    content_type="text",
)
