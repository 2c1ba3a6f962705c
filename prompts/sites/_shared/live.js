// Live widgets: the operation's public figures from the public API
// (GET <api>/api/operations/<id>), read once on load and every minute.
(function () {
  "use strict";
  var body = document.body;
  var api = body.getAttribute("data-api");
  var id = body.getAttribute("data-operation");
  if (!api || !id) { return; }
  var url = api.replace(/\/+$/, "") + "/api/operations/" + encodeURIComponent(id);
  function money(n) {
    if (typeof n !== "number") { return "—"; }
    if (n >= 1e9) { return "$" + (n / 1e9).toFixed(2) + "B"; }
    if (n >= 1e6) { return "$" + (n / 1e6).toFixed(2) + "M"; }
    if (n >= 1e3) { return "$" + (n / 1e3).toFixed(1) + "k"; }
    if (n >= 1) { return "$" + n.toFixed(2); }
    return "$" + n.toPrecision(3);
  }
  function count(n) { return typeof n === "number" ? n.toLocaleString("en-US") : "—"; }
  function show(name, text) {
    var nodes = document.querySelectorAll('[data-widget="' + name + '"]');
    for (var i = 0; i < nodes.length; i++) { nodes[i].textContent = text; }
  }
  function link(name, href) {
    if (!href) { return; }
    var nodes = document.querySelectorAll('a[data-widget="' + name + '"]');
    for (var i = 0; i < nodes.length; i++) { nodes[i].setAttribute("href", href); }
  }
  function load() {
    fetch(url, { headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (o) {
        if (!o) { return; }
        show("price", money(o.price_usd));
        show("market_cap", money(o.market_cap_usd));
        show("holders", count(o.holders));
        if (o.links) { link("chart", o.links.chart); link("buy", o.links.buy); }
      })
      .catch(function () { /* the widgets keep their dashes */ });
  }
  load();
  setInterval(load, 60000);
})();
