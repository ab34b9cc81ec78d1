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
      merge(figure.layout, theme), { responsive: true, displaylogo: false });
    if (button && figure.normalise) {
      button.addEventListener("click", function () {
        var on = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", String(on));
        show(container, on ? "normalised" : "raw");
      });
    }
    container.setAttribute("data-rendered", "true");
  }

  function drawAll() {
    document.querySelectorAll(".tl-chart:not([data-rendered])").forEach(draw);
  }

  function recolour() {
    var theme = palette();
    document.querySelectorAll(".tl-chart[data-rendered]").forEach(function (c) {
      window.Plotly.react(c.querySelector(".tl-plot"), withErrorColour(c._figure.data, theme),
        merge(c._figure.layout, theme));
      if (c._mode) show(c, c._mode);  // react redraws the raw values: keep the reader's choice
    });
  }

  new MutationObserver(recolour).observe(document.body,
    { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  document$.subscribe(drawAll);
})();
