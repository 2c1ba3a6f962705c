"""Checks the game page: well-formed HTML, the config's title, ticker,
colours and duration in it, and nothing loaded from anywhere else."""
import json
import re
import sys
import unittest
from html.parser import HTMLParser

CONFIG = sys.argv.pop(1) if len(sys.argv) > 1 else "config.json"
VOID = {"meta", "br", "img", "input", "link", "hr"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open, self.errors, self.tags, self.title, self.links = [], [], set(), "", []
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.links.append(value)
        if tag not in VOID:
            self.open.append(tag)
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.errors.append("unexpected </%s>" % tag)
        else:
            self.open.pop()
        self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data


class Game(unittest.TestCase):
    def setUp(self):
        with open(CONFIG, encoding="utf-8") as f:
            self.config = json.load(f)
        with open("dist/index.html", encoding="utf-8") as f:
            self.html = f.read()
        self.page = Page()
        self.page.feed(self.html)

    def test_the_page_is_well_formed(self):
        self.assertEqual(self.page.errors, [])
        self.assertEqual(self.page.open, [])
        self.assertTrue({"canvas", "script", "button"} <= self.page.tags)

    def test_it_shows_the_configs_title_and_ticker(self):
        self.assertEqual(self.page.title, self.config["title"])
        self.assertIn("$" + self.config["ticker"], self.html)

    def test_it_uses_the_palette_and_the_duration(self):
        for colour in self.config["palette"]:
            self.assertIn(colour, self.html)
        duration = self.config.get("duration_seconds", 30)
        self.assertRegex(self.html, r'"duration": %d\b' % duration)

    def test_nothing_is_loaded_from_elsewhere(self):
        self.assertEqual(self.page.links, [])
        self.assertIsNone(re.search(r"https?://", self.html))


if __name__ == "__main__":
    unittest.main(verbosity=2)
