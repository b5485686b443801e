"""MediaWiki documents: one document a file, its text without the markup
(:func:`neardup.text.extract.wiki_to_text`)."""

from neardup.text.formats.format import Format

FORMAT = Format("wiki", (".wiki", ".mediawiki"), content_type="wiki")
