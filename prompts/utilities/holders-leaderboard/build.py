"""Builds the leaderboard: dist/index.html (renders holders.json),
dist/rank.py (ranks the holders at each refresh), an empty holders.json."""
import html
import json
import os
import sys

RANK = '''"""Ranks %(address)s's holders for the leaderboard."""
TOP_N = %(top_n)d
EXCLUDE = %(exclude)r


def rank(holders):
    """The TOP_N largest balances, excluded addresses and labels left out;
    ties keep the order they came in. Each row: rank, address, short, balance."""
    excluded = {e.lower() for e in EXCLUDE}
    kept = [h for h in holders
            if h["address"].lower() not in excluded and h.get("label", "").lower() not in excluded]
    kept.sort(key=lambda h: -h["balance"])
    return [
        {"rank": i, "address": h["address"], "short": h["address"][:6] + "…" + h["address"][-4:],
         "balance": h["balance"]}
        for i, h in enumerate(kept[:TOP_N], 1)
    ]
'''

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%(title)s</title>
<style>
body { font-family: sans-serif; max-width: 720px; margin: 0 auto; padding: 16px; }
table { width: 100%%; border-collapse: collapse; }
td, th { padding: 6px; border-bottom: 1px solid #ddd; text-align: left; }
code { font-size: 12px; }
</style>
</head>
<body>
<h1>%(title)s</h1>
<p>Contract (%(chain)s): <code id="contract">%(address)s</code></p>
<p>Top %(top_n)d holders, refreshed every %(refresh)d minutes. <span id="updated"></span></p>
<table>
<thead><tr><th>#</th><th>Holder</th><th>Balance</th></tr></thead>
<tbody id="rows"><tr><td colspan="3">Loading…</td></tr></tbody>
</table>
<script>
const TOP_N = %(top_n)d;
fetch("holders.json").then(function (r) { return r.json(); }).then(function (data) {
  const rows = document.getElementById("rows");
  rows.textContent = "";
  (data.holders || []).slice(0, TOP_N).forEach(function (h) {
    const tr = document.createElement("tr");
    [h.rank, h.short, Number(h.balance).toLocaleString()].forEach(function (v) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    });
    rows.appendChild(tr);
  });
  if (data.updated_at) document.getElementById("updated").textContent = "Updated " + data.updated_at + ".";
});
</script>
</body>
</html>
"""


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    top_n = config.get("top_n", 25)
    os.makedirs("dist", exist_ok=True)
    with open("dist/rank.py", "w", encoding="utf-8") as f:
        f.write(RANK % {"address": config["token_address"], "top_n": top_n,
                        "exclude": config.get("exclude", [])})
    with open("dist/index.html", "w", encoding="utf-8") as f:
        f.write(PAGE % {
            "title": html.escape(config["title"]),
            "chain": html.escape(config["chain"]),
            "address": html.escape(config["token_address"]),
            "top_n": top_n,
            "refresh": config.get("refresh_minutes", 60),
        })
    with open("dist/holders.json", "w", encoding="utf-8") as f:
        json.dump({"holders": [], "updated_at": None}, f)
    print("built dist/index.html, dist/rank.py, dist/holders.json (top %d)" % top_n)


if __name__ == "__main__":
    main()
