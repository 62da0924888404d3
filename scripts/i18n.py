"""Translation catalogues of the course: extract, update and check them (gettext ``.po`` files).

Usage::

    python scripts/i18n.py update --lang zh_CN   # re-extract the English, merge into the catalogues
    python scripts/i18n.py check --lang zh_CN    # what is missing, stale or broken (exit 1 if any)
    python scripts/i18n.py stats                 # messages and translated share, per language

The English notebooks and pages are the only source. Every markdown cell of every lesson and
worked solution, every figure's text alternative (a code cell's ``metadata.alt``), the glossary,
the FAQ, the references, the lecture plan, the site's front page and the README's sections for
learners (all but its licence) are cut into *messages*, one per paragraph, list item, heading or
table row, and kept in one catalogue per source file (the guides for lecturers and maintainers
stay English)::

    locale/<lang>/LC_MESSAGES/notebooks/03_sinusoidal_encoding.po   # notebooks/03_....ipynb
    locale/<lang>/LC_MESSAGES/README.po                            # README.md (some sections)

Code, code comments and outputs are never translated: they are the same for every reader. Fenced
code and display-math blocks stay out of the catalogues; inline formulas, code spans, link targets
and numbers stay inside a message and must come back unchanged in its translation (a link to a
section keeps its page; its anchor is the translated heading's)
(:func:`verbatim_problems`).

``update`` merges a fresh extraction into each catalogue as gettext's ``msgmerge`` does: a new
paragraph arrives untranslated, an edited one keeps its old translation marked *fuzzy* (with the
previous English, ``#| msgid``) until a translator checks it, and a removed one is dropped. An edit
that changes only numbers (a re-measured run time) carries the translation over with the new
numbers put in. ``check`` (and ``tests/test_translation.py``) fail on any message that is
untranslated, fuzzy, missing from the catalogue or no longer in the English, on a translation
that lost a formula, code span, link or number, and on a term rendered against the language's
terminology list (``locale/<lang>/terminology.md``). A third language is one folder and one
command away: ``python scripts/i18n.py update --lang ja`` creates its empty catalogues.

This file is the command and the one import for the other scripts and the tests; the work is
done in three modules beside it: ``_i18n_messages.py`` (markdown cut into messages on
markdown-it-py's token line maps, and put back translated), ``_i18n_catalogues.py`` (sources ->
``.po`` catalogues: extract, read, write, update) and ``_i18n_checks.py`` (what ``check``
reports).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _i18n_catalogues import (  # noqa: E402
    LOCALE,
    MARKDOWN_PAGES,
    PROJECT,
    README,
    README_SECTIONS,
    SITE_CONF,
    SITE_INDEX,
    catalogue_path,
    extract,
    languages,
    lesson_titles,
    read_catalogue,
    readme_part,
    site_text,
    source_files,
    stats,
    template,
    update,
    write_catalogue,
)
from _i18n_checks import (  # noqa: E402
    VERBATIM_COMMENT,
    _terminology,  # noqa: F401 -- private, read through this module by the tests
    check,
    jieba_dictionary,
    markup,
    markup_problems,
    search_words,
    term_problems,
    verbatim_problems,
)
from _i18n_messages import (  # noqa: E402
    Block,
    _has_words,  # noqa: F401 -- private, read through this module by the tests
    _markdown,  # noqa: F401 -- private, read through this module by the tests
    markdown_blocks,
    messages_of_markdown,
    translate_markdown,
)

__all__ = [
    "LOCALE",
    "MARKDOWN_PAGES",
    "PROJECT",
    "README",
    "README_SECTIONS",
    "SITE_CONF",
    "SITE_INDEX",
    "VERBATIM_COMMENT",
    "Block",
    "catalogue_path",
    "check",
    "extract",
    "jieba_dictionary",
    "languages",
    "lesson_titles",
    "markdown_blocks",
    "markup",
    "markup_problems",
    "messages_of_markdown",
    "read_catalogue",
    "readme_part",
    "search_words",
    "site_text",
    "source_files",
    "stats",
    "template",
    "term_problems",
    "translate_markdown",
    "update",
    "verbatim_problems",
    "write_catalogue",
    "main",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "check", "stats"])
    parser.add_argument("--lang", help="e.g. zh_CN (default for check and stats: every language)")
    parser.add_argument("sources", nargs="*", help="check only these English sources")
    args = parser.parse_intermixed_args(argv)
    langs = [args.lang] if args.lang else languages()
    if args.command == "update":
        if not args.lang:
            parser.error("update needs --lang")
        for name, counts in update(args.lang).items():
            if counts and any(counts.values()):
                print(f"{name}: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v))
        done, total = stats(args.lang)
        print(f"{args.lang}: {done} of {total} messages translated")
        return 0
    status = 0
    for lang in langs:
        if args.command == "stats":
            done, total = stats(lang)
            print(
                f"{lang}: {done} of {total} messages translated ({100 * done / max(total, 1):.0f} %)"
            )
            continue
        problems = check(lang, only=[Path(s).as_posix() for s in args.sources] or None)
        for problem in problems:
            print(problem)
        print(f"{lang}: {len(problems)} problems")
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main())
