"""The browser table's three languages (#24, item 7), read from the source: every text the
pages draw through ``t()``, ``tx()`` or ``localized()`` and every text index.html marks has
its Russian and Swedish in one catalogue under clients/web/lang/, with the same
placeholders, and no catalogue keeps a text nothing draws. The pages in Chromium, in each
language, are tested in test_browser_languages.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode
from server.state import DISPUTE_CALL, WITHDRAWAL_CALL

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
LANGUAGES = ("ru", "sv")
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}
DYNAMIC_ALLOWED = {"i18n.js", "language.js"}
"""The two modules that translate texts they are handed (the catalogue's own lookups, and
index.html's marked texts, which this test reads from index.html itself)."""

_STRING = r'"(?:[^"\\]|\\.)*"'
_CALL = re.compile(r"\bt(?:x)?\(\s*(" + _STRING + r"|`[^`$]*`)?")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _literal(text: str) -> str:
    if text.startswith("`"):
        return text[1:-1]
    value = json.loads(text)
    assert isinstance(value, str)
    return value


def _modules() -> Iterator[Path]:
    yield from sorted(WEB.glob("*.js"))


def _localized_values(source: str) -> Iterator[str]:
    """The string values of each ``localized({...})`` table (keys are the code's own)."""
    for start in (m.end() for m in re.finditer(r"\blocalized\(", source)):
        depth, end = 1, start
        while depth:
            depth += {"(": 1, ")": -1}.get(source[end], 0)
            end += 1
        for found in re.finditer(r":\s*(" + _STRING + ")", source[start:end]):
            yield _literal(found.group(1))


def texts_in_code() -> tuple[dict[str, set[str]], list[str]]:
    """Every text the modules translate, with the modules that do; and the calls whose text
    a reader of the source cannot see (a variable handed to t() outside the allowed two)."""
    used: dict[str, set[str]] = {}
    hidden: list[str] = []
    for path in _modules():
        source = path.read_text(encoding="utf-8")
        if path.name == "i18n.js":
            continue  # the machinery: its t() is the definition, its examples are comments
        for found in _CALL.finditer(source):
            if found.group(1) is None:
                if path.name not in DYNAMIC_ALLOWED:
                    line = source.count("\n", 0, found.start()) + 1
                    hidden.append(f"{path.name}:{line}")
                continue
            used.setdefault(_literal(found.group(1)), set()).add(path.name)
        for text in _localized_values(source):
            used.setdefault(text, set()).add(path.name)
    for text in texts_in_page():
        used.setdefault(text, set()).add("index.html")
    return used, hidden


class _Marked(HTMLParser):
    """The texts index.html marks: data-i18n elements' text, data-i18n-attrs attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._open: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name in (named.get("data-i18n-attrs") or "").split():
            value = named.get(name)
            assert value, f"<{tag}> marks its {name} for translation but has none"
            self.texts.append(value)
        if "data-i18n" in named:
            self._open.append((tag, []))
        elif self._open:
            raise AssertionError(f"<{tag}> inside a data-i18n element: its text replaces it")

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, parts = self._open.pop()
            self.texts.append(" ".join("".join(parts).split()))


def texts_in_page() -> list[str]:
    parser = _Marked()
    parser.feed((WEB / "index.html").read_text(encoding="utf-8"))
    return parser.texts


def catalogues() -> dict[str, dict[str, Any]]:
    """Each catalogue file's entries, by file name (the file is JSON after its export)."""
    found = {}
    for path in sorted((WEB / "lang").glob("*.js")):
        text = path.read_text(encoding="utf-8").strip()
        assert text.startswith("export default {"), f"{path.name}: not `export default {{...}}`"
        body = text.removeprefix("export default ").removesuffix(";")
        found[path.name] = json.loads(body)
    return found


def _forms(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    assert isinstance(value, dict), value
    assert "other" in value, value
    assert set(value) <= PLURAL_FORMS, value
    assert all(isinstance(form, str) for form in value.values()), value
    return list(value.values())


def test_every_text_has_one_entry_with_russian_and_swedish() -> None:
    used, hidden = texts_in_code()
    assert not hidden, f"texts handed to t() as variables, which no check can see: {hidden}"
    entries: dict[str, tuple[str, Any]] = {}
    twice = []
    for name, catalogue in catalogues().items():
        for text, entry in catalogue.items():
            if text in entries:
                twice.append(f"{text!r} in {entries[text][0]} and {name}")
            entries[text] = (name, entry)
    assert not twice, twice
    missing = {
        text: sorted(modules)
        for text, modules in used.items()
        if text not in entries or any(lang not in entries[text][1] for lang in LANGUAGES)
    }
    assert not missing, f"texts without their Russian or Swedish: {missing}"


def test_no_catalogue_keeps_a_text_nothing_draws() -> None:
    used, _ = texts_in_code()
    stale = [
        f"{name}: {text!r}"
        for name, catalogue in catalogues().items()
        for text in catalogue
        if text not in used
    ]
    assert not stale, stale


@pytest.mark.parametrize("name", sorted(catalogues()))
def test_each_translation_fills_the_same_placeholders(name: str) -> None:
    wrong = []
    for text, entry in catalogues()[name].items():
        wanted = set(_PLACEHOLDER.findall(text))
        assert set(entry) <= {"en", *LANGUAGES}, (text, sorted(entry))
        for lang, value in entry.items():
            for form in _forms(value):
                if not form.strip():
                    wrong.append(f"{text!r}: {lang} is empty")
                elif set(_PLACEHOLDER.findall(form)) != wanted:
                    wrong.append(f"{text!r}: {lang} {form!r}")
    assert not wrong, wrong


def test_the_checks_see_a_missing_translation_and_a_hidden_text(tmp_path: Path) -> None:
    # The reader itself: a text in a t() call, a localized table and index.html are seen.
    source = 'say(t("Board {n}", {n})); const X = localized({ A: "ace" }); t(name);'
    found = [_literal(m.group(1)) for m in _CALL.finditer(source) if m.group(1)]
    assert found == ["Board {n}"]
    assert [m.group(1) for m in _CALL.finditer(source)].count(None) == 1
    assert list(_localized_values(source)) == ["ace"]
    parser = _Marked()
    parser.feed(
        '<p data-i18n>Two\n   lines</p><input placeholder="Say" data-i18n-attrs="placeholder">'
    )
    assert parser.texts == ["Two lines", "Say"]


def test_every_error_code_has_its_meaning_for_a_page_in_another_language() -> None:
    # The server writes its errors' details in English; errors.js says what each code means.
    source = (WEB / "errors.js").read_text(encoding="utf-8")
    table = source[source.index("localized({") : source.index("});")]
    codes = set(re.findall(r"^\s+(\w+):", table, re.MULTILINE))
    assert codes == {code.value for code in ErrorCode}


def test_the_texts_the_server_writes_into_calls_are_said_in_the_pages_language() -> None:
    source = (WEB / "errors.js").read_text(encoding="utf-8")
    start = source.index("SERVER_CALL_TEXT = localized({")
    table = source[start : source.index("});", start)]
    for text in (WITHDRAWAL_CALL, DISPUTE_CALL):
        assert json.dumps(text) + ":" in table, text
