"""Builds the price alerts: dist/alerts.json (what /price shows and watches)
and dist/price_alerts.py (reads DexScreener, decides which alerts fire)."""
import json
import os
import sys

API = "https://api.dexscreener.com/latest/dex/tokens/"

MODULE = '''"""Price alerts for %(address)s on %(chain)s, read from DexScreener."""
import json
import urllib.request

API = %(api)r
ADDRESS = %(address)r
CHAIN = %(chain)r
THRESHOLDS = %(thresholds)r
COOLDOWN_SECONDS = %(cooldown)d


def url():
    return API + ADDRESS


def price_from(answer):
    """The USD price of the token's most liquid pair on its chain."""
    pairs = [p for p in answer.get("pairs") or [] if p.get("chainId") == CHAIN and p.get("priceUsd")]
    if not pairs:
        return None
    best = max(pairs, key=lambda p: (p.get("liquidity") or {}).get("usd") or 0)
    return float(best["priceUsd"])


def fetch_price(timeout=10):
    """Reads the price (through the sandbox's HTTPS proxy when there is one)."""
    with urllib.request.urlopen(url(), timeout=timeout) as answer:
        return price_from(json.load(answer))


def crossed(previous, price):
    """The thresholds crossed between two prices, in the config's order."""
    fired = []
    for index, threshold in enumerate(THRESHOLDS):
        level = threshold["price_usd"]
        if threshold["direction"] == "above" and previous < level <= price:
            fired.append(index)
        if threshold["direction"] == "below" and previous > level >= price:
            fired.append(index)
    return fired


def due(fired, last_fired, now):
    """Of the fired thresholds, those out of their cooldown."""
    return [i for i in fired if now - last_fired.get(i, -COOLDOWN_SECONDS) >= COOLDOWN_SECONDS]
'''


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    address = config["token_address"].lower()
    thresholds = config["thresholds"]
    os.makedirs("dist", exist_ok=True)
    with open("dist/price_alerts.py", "w", encoding="utf-8") as f:
        f.write(MODULE % {
            "api": API,
            "address": address,
            "chain": config["chain"],
            "thresholds": thresholds,
            "cooldown": config.get("cooldown_minutes", 60) * 60,
        })
    summary = {
        "command": "/price",
        "token_address": address,
        "chain": config["chain"],
        "source": API + address,
        "thresholds": thresholds,
        "cooldown_minutes": config.get("cooldown_minutes", 60),
    }
    with open("dist/alerts.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    print("built dist/price_alerts.py and dist/alerts.json: %d threshold(s)" % len(thresholds))


if __name__ == "__main__":
    main()
