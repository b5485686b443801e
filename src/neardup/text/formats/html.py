"""HTML documents: one document a file, its main text extracted
(:func:`neardup.text.extract.html_to_text`)."""

from neardup.text.formats.format import Format

FORMAT = Format("html", (".html", ".htm", ".xhtml"), content_type="html")
