"""Rebuild examples/corpus from ../shared/data (run from the repo root; output is committed).

Sources (see examples/README.md): RusLit (public domain Russian classics) and the Pro Git
2nd edition Russian translation (CC BY-NC-SA 3.0), both as copied into ../shared/data.
The derived files (an excerpt, an HTML page quoting two paragraphs, an HTML and a
MediaWiki rendering of a story) are made here from that real text.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
OUT = Path(__file__).resolve().parent / "corpus"
STORIES = [
    "Смерть чиновника",
    "Хамелеон",
    "Толстый и тонкий",
    "Злоумышленник",
    "Ванька",
    "Тоска",
    "Лошадиная фамилия",
    "Хирургия",
    "Дочь Альбиона",
    "Пересолил",
    "Налим",
    "Беззащитное существо",
    "Гриша",
    "Дачница",
    "Бумажник",
    "Глупый француз",
]
PROGIT = [
    "book/01-introduction/sections/first-time-setup.asc",
    "book/02-git-basics/sections/tagging.asc",
    "book/03-git-branching/sections/workflows.asc",
    "book/07-git-tools/sections/rerere.asc",
    "book/04-git-server/sections/gitweb.asc",
    "book/A-git-in-other-environments/sections/bash.asc",
]


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.replace("\r\n", "\n").split("\n") if p.strip()]


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    chekhov = DATA / "ruslit" / "prose" / "Chekhov"
    texts = {}
    for name in STORIES:
        src = chekhov / f"{name}.txt"
        if not src.exists():
            continue
        texts[name] = src.read_text(encoding="utf-8")
    (OUT / "chekhov").mkdir(parents=True)
    for name, text in texts.items():
        if name == "Налим":  # one story stored gzipped
            path = OUT / "chekhov" / f"{name}.txt.gz"
            with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
                fh.write(text.encode("utf-8"))  # mtime=0: the same bytes on every build
        else:
            (OUT / "chekhov" / f"{name}.txt").write_text(text, encoding="utf-8")
    # containment: the first half of a story, alone
    cham = paragraphs(texts["Хамелеон"])
    (OUT / "excerpts").mkdir()
    (OUT / "excerpts" / "Хамелеон (начало).txt").write_text(
        "\n\n".join(cham[: len(cham) // 2]) + "\n", encoding="utf-8"
    )
    # quotation: a blog-like HTML page quoting two paragraphs of a story, with boilerplate
    death = paragraphs(texts["Смерть чиновника"])
    (OUT / "web").mkdir()
    nav = (
        "<nav><a href='/'>Главная</a> | <a href='/blog'>Блог</a> | <a href='/about'>О нас</a></nav>"
    )
    quote_page = f"""<!DOCTYPE html><html lang="ru"><head><meta charset="utf-8">
<title>Заметки читателя: Чехов и чиновники</title></head><body>{nav}
<article><h1>Заметки читателя: Чехов и чиновники</h1>
<p>Перечитывая раннего Чехова, я снова удивился тому, как мало слов ему нужно, чтобы
показать целую жизнь. Вот начало рассказа, которое стоит привести целиком.</p>
<blockquote><p>{death[2]}</p><p>{death[3]}</p></blockquote>
<p>Дальше всё развивается с беспощадной логикой: маленький человек не может остановиться,
и извинение превращается в пытку для обоих. Рассказ написан в 1883 году и до сих пор
читается как газетная заметка о нашем времени.</p></article>
<footer>© 2024 Блог о литературе. Все права защищены.</footer></body></html>
"""
    (OUT / "web" / "zametki-chitatelya.html").write_text(quote_page, encoding="utf-8")
    # the same story as an HTML page (menus around it) and as MediaWiki markup
    vanka = paragraphs(texts["Ванька"])
    body = "".join(f"<p>{p}</p>\n" for p in vanka)
    (OUT / "web" / "vanka.html").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>А. П. Чехов. Ванька</title>"
        f"</head><body>{nav}<main><h1>Ванька</h1>\n{body}</main>"
        "<aside><h3>Популярное</h3><ul><li><a href='/1'>Каштанка</a></li>"
        "<li><a href='/2'>Дама с собачкой</a></li></ul></aside></body></html>\n",
        encoding="utf-8",
    )
    toska = paragraphs(texts["Тоска"])
    wiki = "{{Отексте|АВТОР=Антон Павлович Чехов|НАЗВАНИЕ=Тоска|ДАТАСОЗДАНИЯ=1886}}\n"
    wiki += "== Тоска ==\n\n" + "\n\n".join(
        p.replace("Иона", "[[Иона Потапов|Иона]]", 1) for p in toska
    )
    wiki += "\n\n[[Категория:Рассказы Антона Павловича Чехова]]\n"
    (OUT / "wiki").mkdir()
    (OUT / "wiki" / "Тоска.wiki").write_text(wiki, encoding="utf-8")
    # real revisions: the same Pro Git chapters in 2016 and in the latest translation
    docs = {
        r["id"]: r["text"]
        for r in map(json.loads, (DATA / "progit-ru-revisions" / "docs.jsonl").open())
    }
    for rel in PROGIT:
        for snap in ("2016", "latest"):
            dst = OUT / "progit" / snap / rel.split("/")[-1]
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(docs[f"{snap}/{rel}"], encoding="utf-8")
    # bad input the job must report and survive
    (OUT / "bad").mkdir()
    (OUT / "bad" / "empty.txt").write_bytes(b"")
    (OUT / "bad" / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (OUT / "bad" / "short.txt").write_text("Тоска.\n", encoding="utf-8")
    pushkin = DATA / "ruslit" / "poems" / "Pushkin" / "Руслан и Людмила.txt"
    (OUT / "bad" / "cp1251-ruslan.txt").write_bytes(pushkin.read_bytes()[:6000])


if __name__ == "__main__":
    main()
