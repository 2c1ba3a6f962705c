"""Checks the leaderboard: ranking (order, exclusions, the cut at top_n),
the page shows the configured contract, nothing loaded from elsewhere."""
import importlib.util
import json
import re
import sys
import unittest

CONFIG = sys.argv.pop(1) if len(sys.argv) > 1 else "config.json"


def load():
    spec = importlib.util.spec_from_file_location("rank", "dist/rank.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def holder(n, balance, label=""):
    return {"address": "0x%040x" % n, "balance": balance, "label": label}


class Leaderboard(unittest.TestCase):
    def setUp(self):
        with open(CONFIG, encoding="utf-8") as f:
            self.config = json.load(f)
        with open("dist/index.html", encoding="utf-8") as f:
            self.html = f.read()
        self.rank = load().rank
        self.top_n = self.config.get("top_n", 25)

    def test_holders_are_ranked_by_balance_and_cut_at_top_n(self):
        holders = [holder(n, n * 10) for n in range(1, self.top_n + 20)]
        rows = self.rank(holders)
        self.assertEqual(len(rows), self.top_n)
        self.assertEqual([r["rank"] for r in rows], list(range(1, self.top_n + 1)))
        balances = [r["balance"] for r in rows]
        self.assertEqual(balances, sorted(balances, reverse=True))

    def test_excluded_addresses_and_labels_are_left_out(self):
        excluded = self.config.get("exclude", [])
        holders = [holder(1, 100)]
        for n, entry in enumerate(excluded, 2):
            if re.fullmatch(r"0x[0-9a-fA-F]{40}", entry):
                holders.append({"address": entry, "balance": 10 ** 12, "label": ""})
            else:
                holders.append(holder(n, 10 ** 12, label=entry))
        self.assertEqual([r["balance"] for r in self.rank(holders)], [100])

    def test_the_page_shows_the_configured_contract_and_title(self):
        self.assertIn('<code id="contract">%s</code>' % self.config["token_address"], self.html)
        self.assertIn("<title>%s</title>" % self.config["title"], self.html)
        self.assertIn("const TOP_N = %d;" % self.top_n, self.html)

    def test_nothing_is_loaded_from_elsewhere(self):
        self.assertIsNone(re.search(r"https?://", self.html))
        with open("dist/holders.json", encoding="utf-8") as f:
            self.assertEqual(json.load(f)["holders"], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
