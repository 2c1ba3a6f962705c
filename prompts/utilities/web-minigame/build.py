"""Builds the mini-game: dist/index.html, one self-contained page."""
import html
import json
import os
import sys

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%(title)s</title>
<style>
body { margin: 0; background: %(background)s; color: %(text)s; font-family: sans-serif; text-align: center; }
h1 { margin: 12px 0 4px; }
canvas { background: %(field)s; border: 3px solid %(accent)s; max-width: 100%%; touch-action: none; }
#score { font-size: 20px; margin: 8px; }
button { background: %(accent)s; color: %(background)s; border: 0; padding: 10px 24px; font-size: 18px; }
</style>
</head>
<body>
<h1>%(title)s</h1>
<p>%(tagline)s</p>
<div id="score">$%(ticker)s caught: 0</div>
<canvas id="game" width="360" height="480"></canvas>
<p><button id="start" type="button">Play</button></p>
<script>
const CONFIG = %(config)s;
const canvas = document.getElementById("game");
const ctx = canvas.getContext("2d");
const score = document.getElementById("score");
let state = null;
function start() {
  state = { x: canvas.width / 2, tokens: [], caught: 0, ends: performance.now() + CONFIG.duration * 1000 };
  requestAnimationFrame(frame);
}
function frame(now) {
  if (!state) return;
  if (now > state.ends) {
    score.textContent = "Time! $" + CONFIG.ticker + " caught: " + state.caught;
    state = null;
    return;
  }
  if (Math.random() < 0.04) state.tokens.push({ x: Math.random() * (canvas.width - 20) + 10, y: -10 });
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = CONFIG.accent;
  ctx.fillRect(state.x - 30, canvas.height - 16, 60, 10);
  ctx.fillStyle = CONFIG.text;
  ctx.font = "bold 14px sans-serif";
  state.tokens = state.tokens.filter(function (t) {
    t.y += 3;
    if (t.y > canvas.height - 20 && Math.abs(t.x - state.x) < 34) { state.caught += 1; return false; }
    ctx.fillText("$" + CONFIG.ticker, t.x - 16, t.y);
    return t.y < canvas.height;
  });
  score.textContent = "$" + CONFIG.ticker + " caught: " + state.caught;
  requestAnimationFrame(frame);
}
function move(clientX) {
  if (!state) return;
  const box = canvas.getBoundingClientRect();
  state.x = (clientX - box.left) * canvas.width / box.width;
}
canvas.addEventListener("mousemove", function (e) { move(e.clientX); });
canvas.addEventListener("touchmove", function (e) { move(e.touches[0].clientX); });
document.getElementById("start").addEventListener("click", start);
</script>
</body>
</html>
"""


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    palette = config["palette"]
    colours = {
        "background": palette[0],
        "text": palette[1],
        "accent": palette[2] if len(palette) > 2 else palette[1],
        "field": palette[3] if len(palette) > 3 else palette[0],
    }
    game = dict(colours, ticker=config["ticker"], duration=config.get("duration_seconds", 30))
    page = PAGE % dict(
        colours,
        title=html.escape(config["title"]),
        tagline=html.escape(config.get("tagline", "")),
        ticker=html.escape(config["ticker"]),
        config=json.dumps(game).replace("</", "<\\/"),
    )
    os.makedirs("dist", exist_ok=True)
    with open("dist/index.html", "w", encoding="utf-8") as f:
        f.write(page)
    print("built dist/index.html (%d bytes)" % len(page))


if __name__ == "__main__":
    main()
