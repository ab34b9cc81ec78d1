// The search index is the largest file a page fetches after plotly.js, and Material asks for
// it as soon as a page loads, searched or not. Its request is held here until the reader
// first shows a sign of searching (the search box focused or its icon tapped, or one of the
// theme's search keys), then sent as Material made it. Instant navigation keeps this page's
// scripts, so the index is still fetched once a visit.
(function () {
  "use strict";
  const proto = XMLHttpRequest.prototype;
  const open = proto.open;
  const send = proto.send;
  const held = [];
  let wanted = false;

  function want() {
    if (wanted) return;
    wanted = true;
    held.splice(0).forEach(function (release) { release(); });
  }

  proto.open = function (method, url) {
    this._tlIndex = new URL(url, location.href).pathname.endsWith("/search/search_index.json");
    return open.apply(this, arguments);
  };
  proto.send = function () {
    if (!this._tlIndex || wanted) return send.apply(this, arguments);
    const xhr = this;
    const args = arguments;
    held.push(function () { send.apply(xhr, args); });
  };

  const searching = function (target) {
    return target && target.closest && target.closest(".md-search, [for='__search']");
  };
  document.addEventListener("focusin", function (e) { if (searching(e.target)) want(); }, true);
  document.addEventListener("pointerdown", function (e) { if (searching(e.target)) want(); },
                            true);
  // Material's own keys for search: "f", "s" and "/" open it.
  document.addEventListener("keydown", function (e) {
    if (["f", "s", "/"].indexOf(e.key) >= 0) want();
  }, true);
})();
