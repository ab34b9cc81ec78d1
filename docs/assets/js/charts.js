// Draws every chart the plotly fence put on the page. Runs on Material's document$, so charts
// also render after instant navigation; plotly.js itself is loaded once per visit.
(function () {
  function palette() {
    var dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    var fg = dark ? "#e2e4e9" : "#1f2329";
    var grid = dark ? "rgba(255,255,255,0.12)" : "rgba(0,0,0,0.1)";
    return {
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: fg },
      xaxis: { gridcolor: grid, zerolinecolor: grid },
      yaxis: { gridcolor: grid, zerolinecolor: grid },
      colorway: dark
        ? ["#7ab8ff", "#ffb36b", "#7fd88f", "#ff8a8a", "#c9a6ff", "#e6d56b"]
        : ["#1f5fbf", "#d9700f", "#2e8b3e", "#c23b3b", "#7a4fc9", "#8c7a00"]
    };
  }

  function merge(layout, theme) {
    var out = Object.assign({}, layout, { paper_bgcolor: theme.paper_bgcolor,
      plot_bgcolor: theme.plot_bgcolor, font: theme.font, colorway: theme.colorway });
    out.xaxis = Object.assign({}, layout.xaxis || {}, theme.xaxis);
    out.yaxis = Object.assign({}, layout.yaxis || {}, theme.yaxis);
    out.margin = out.margin || { t: layout.title ? 60 : 20, r: 10 };
    return out;
  }

  // Error bars default to a dark grey that vanishes on the dark palette.
  function withErrorColour(data, theme) {
    return data.map(function (trace) {
      if (!trace.error_y) return trace;
      return Object.assign({}, trace,
        { error_y: Object.assign({}, trace.error_y, { color: theme.font.color }) });
    });
  }

  // plotly.js shows a "Share chart" button by default that uploads the chart to Plotly's
  // cloud: the site sends nothing to a third party, so it is off.
  var CONFIG = { responsive: true, displaylogo: false, showSendToCloud: false };

  // A results chart's toggle: the figure carries both states ("raw", "normalised": per-trace
  // arrays and the axis title) as Plotly.update arguments, so the page computes nothing.
  function show(container, mode) {
    var state = container._figure.normalise[mode];
    container._mode = mode;
    window.Plotly.update(container.querySelector(".tl-plot"), state.traces, state.layout);
  }

  function draw(container) {
    var figure = JSON.parse(container.getAttribute("data-figure"));
    var target = container.querySelector(".tl-plot");
    var theme = palette();
    var button = container.querySelector(".tl-normalise");
    container._figure = figure;
    window.Plotly.newPlot(target, withErrorColour(figure.data, theme),
      merge(figure.layout, theme), CONFIG);
    if (button && figure.normalise) {
      button.addEventListener("click", function () {
        var on = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", String(on));
        show(container, on ? "normalised" : "raw");
      });
    }
    container.setAttribute("data-rendered", "true");
  }

  // The site root, from this script's own address: pages sit at different depths, and
  // instant navigation changes the page's address but not this script's.
  var ROOT = (document.currentScript ? document.currentScript.src : "")
    .replace(/assets\/js\/charts\.js(\?.*)?$/, "");
  var fetched = {};

  function getJSON(path) {
    if (!fetched[path]) {
      fetched[path] = fetch(ROOT + path).then(function (response) {
        if (!response.ok) throw new Error(path + ": " + response.status);
        return response.json();
      });
      fetched[path].catch(function () { delete fetched[path]; });  // retry on the next pick
    }
    return fetched[path];
  }

  function note(view, text) {
    var p = view.querySelector(".tl-host-note") || document.createElement("p");
    p.className = "tl-host-note";
    p.textContent = text;  // text, never HTML
    view.querySelector(".tl-host-pick").after(p);
  }

  // One view of one host: a figure (drawn like the fence's) or a table the build escaped.
  function render(view, content) {
    var body = view.querySelector(".tl-hostview-body");
    var old = view.querySelector(".tl-host-note");
    if (old) old.remove();
    if (!content) {
      body.textContent = "";
      note(view, "This host's result has no data for this view.");
      return;
    }
    if (content.html !== undefined) {
      body.innerHTML = content.html;
      return;
    }
    var chart = document.createElement("div");
    chart.className = "tl-chart";
    chart.setAttribute("data-traces", String(content.figure.data.length));
    chart.setAttribute("data-figure", JSON.stringify(content.figure));
    chart.appendChild(document.createElement("div")).className = "tl-plot";
    body.textContent = "";
    body.appendChild(chart);
    draw(chart);
  }

  // Picking a host shows its views in every picker of the same recipe on the page; its file
  // is fetched then, not before.
  function pick(group, key) {
    var views = document.querySelectorAll('.tl-hostview[data-group="' + CSS.escape(group) + '"]');
    views.forEach(function (v) { v.querySelector("select").value = key; });
    getJSON(group + "/" + key + ".json").then(function (host) {
      if (views[0].querySelector("select").value !== key) return;  // a later pick won
      views.forEach(function (v) { render(v, host.views[v.getAttribute("data-view")]); });
    }).catch(function (err) {
      views.forEach(function (v) {
        note(v, "Could not load this host's results (" + err.message + "). The per-host " +
             "files are written by `invoke docs.build`, not by `invoke docs.serve`.");
      });
    });
  }

  function setUpPicker(view) {
    var select = view.querySelector("select");
    var group = view.getAttribute("data-group");
    view.setAttribute("data-picker", "true");
    select.addEventListener("change", function () { pick(group, select.value); });
    getJSON(group + "/index.json").then(function (index) {
      var shown = select.value;
      select.textContent = "";
      index.hosts.slice().reverse().forEach(function (host) {  // newest first
        var option = document.createElement("option");
        option.value = host.key;
        option.textContent = host.name + " (" + (host.contributed ? "contributed, " : "") +
          host.started + ")";
        select.appendChild(option);
      });
      select.value = shown;
      view.setAttribute("data-hosts", String(index.hosts.length));
    }).catch(function (err) { note(view, "The list of hosts did not load (" + err.message + ")."); });
  }

  function drawAll() {
    document.querySelectorAll(".tl-chart:not([data-rendered])").forEach(draw);
    document.querySelectorAll(".tl-hostview:not([data-picker])").forEach(setUpPicker);
  }

  function recolour() {
    var theme = palette();
    document.querySelectorAll(".tl-chart[data-rendered]").forEach(function (c) {
      window.Plotly.react(c.querySelector(".tl-plot"), withErrorColour(c._figure.data, theme),
        merge(c._figure.layout, theme), CONFIG);
      if (c._mode) show(c, c._mode);  // react redraws the raw values: keep the reader's choice
    });
  }

  new MutationObserver(recolour).observe(document.body,
    { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  document$.subscribe(drawAll);
})();
