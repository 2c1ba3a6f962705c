"""Checks the built alerts without the network: the price read from a
recorded DexScreener answer, thresholds crossed both ways, the cooldown."""
import importlib.util
import json
import sys
import unittest

CONFIG = sys.argv.pop(1) if len(sys.argv) > 1 else "config.json"


def load():
    spec = importlib.util.spec_from_file_location("price_alerts", "dist/price_alerts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Alerts(unittest.TestCase):
    def setUp(self):
        with open(CONFIG, encoding="utf-8") as f:
            self.config = json.load(f)
        self.alerts = load()

    def test_it_reads_only_the_allowlisted_api_for_the_configured_token(self):
        url = self.alerts.url()
        self.assertTrue(url.startswith("https://api.dexscreener.com/"), url)
        self.assertTrue(url.endswith(self.config["token_address"].lower()), url)

    def test_the_price_is_the_most_liquid_pair_on_the_chain(self):
        chain = self.config["chain"]
        answer = {"pairs": [
            {"chainId": chain, "priceUsd": "0.0010", "liquidity": {"usd": 1000}},
            {"chainId": chain, "priceUsd": "0.0020", "liquidity": {"usd": 90000}},
            {"chainId": "other", "priceUsd": "9.0", "liquidity": {"usd": 10 ** 9}},
        ]}
        self.assertEqual(self.alerts.price_from(answer), 0.002)
        self.assertIsNone(self.alerts.price_from({"pairs": None}))

    def test_each_threshold_fires_when_crossed_in_its_direction(self):
        for index, threshold in enumerate(self.config["thresholds"]):
            level = threshold["price_usd"]
            if threshold["direction"] == "above":
                self.assertIn(index, self.alerts.crossed(level * 0.9, level * 1.1))
                self.assertNotIn(index, self.alerts.crossed(level * 1.1, level * 1.2))
            else:
                self.assertIn(index, self.alerts.crossed(level * 1.1, level * 0.9))
                self.assertNotIn(index, self.alerts.crossed(level * 0.9, level * 0.8))

    def test_an_alert_waits_for_its_cooldown(self):
        cooldown = self.config.get("cooldown_minutes", 60) * 60
        self.assertEqual(self.alerts.due([0], {}, 1000), [0])
        self.assertEqual(self.alerts.due([0], {0: 1000}, 1000 + cooldown - 1), [])
        self.assertEqual(self.alerts.due([0], {0: 1000}, 1000 + cooldown), [0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
