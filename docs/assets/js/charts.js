// Draws every chart the plotly fence put on the page. Runs on Material's document$, so charts
// also render after instant navigation; plotly.js itself is loaded once per visit.
(function () {
  // The site root, from this script's own address: pages sit at different depths, and
  // instant navigation changes the page's address but not this script's.
  var ROOT = (document.currentScript ? document.currentScript.src : "")
    .replace(/assets\/js\/charts\.js(\?.*)?$/, "");

  // plotly.js (over a megabyte) loads only on a page that has a chart, and without holding up
  // the page's text: the first chart asks for it, every later one reuses the same promise.
  var plotlyLoading = null;
  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!plotlyLoading) {
      plotlyLoading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = ROOT + "assets/vendor/plotly.min.js";
        script.async = true;
        script.onload = function () { resolve(window.Plotly); };
        script.onerror = function () {
          plotlyLoading = null;  // the next page tries again
          reject(new Error("plotly.js did not load from " + script.src));
        };
        document.head.appendChild(script);
      });
    }
    return plotlyLoading;
  }

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
        ? ["#7ab8ff", "#ffb36b", "#7fd88f", "#ff8a8a", "#c9a6ff", "#e6d56b", "#6fd6e0",
           "#f48fb1"]
        : ["#1f5fbf", "#d9700f", "#2e8b3e", "#c23b3b", "#7a4fc9", "#8c7a00", "#00838f",
           "#ad1457"]
    };
  }

  // A host keeps one colour on every chart of a page (the build names each host's series:
  // tl_host), whichever hosts a chart has and in whatever order: the first chart that shows
  // a host gives it the palette's next colour. Charts are drawn in the page's order, so a
  // page always colours the same way; a new page (instant navigation) starts again.
  var hostColours = { page: null, index: {} };

  function colourIndex(host) {
    if (hostColours.page !== location.pathname) {
      hostColours = { page: location.pathname, index: {} };
    }
    if (!(host in hostColours.index)) {
      hostColours.index[host] = Object.keys(hostColours.index).length;
    }
    return hostColours.index[host];
  }

  function withHostColour(data, theme) {
    return data.map(function (trace) {
      if (!trace.tl_host) return trace;
      var colour = theme.colorway[colourIndex(trace.tl_host) % theme.colorway.length];
      return Object.assign({}, trace,
        { marker: Object.assign({}, trace.marker || {}, { color: colour }) });
    });
  }

  // Narrower than this (a phone), a chart keeps its room for the plot: no toolbar, which a
  // tap would open over the bars, and legend entries on two lines rather than off the edge.
  var NARROW = 600;

  function isNarrow(target) { return target.clientWidth < NARROW; }

  function merge(layout, theme, width) {
    var narrow = width < NARROW;
    var out = Object.assign({}, layout, { paper_bgcolor: theme.paper_bgcolor,
      plot_bgcolor: theme.plot_bgcolor, font: theme.font, colorway: theme.colorway });
    // automargin: a long tick label or axis title pushes the margin instead of being clipped
    // (the historical charts' figures do not ask for it themselves). Labels that must turn
    // turn down to the left: turned right, the last one (O_DIRECT_NO_FSYNC) would push the
    // right margin until the plot is half its width.
    out.xaxis = Object.assign({ automargin: true, autotickangles: [0, -45, -90] },
      layout.xaxis || {}, theme.xaxis);
    out.yaxis = Object.assign({ automargin: true }, layout.yaxis || {}, theme.yaxis);
    out.margin = out.margin || { t: 20, r: 10 };
    delete out.title;  // drawn above the chart as text (showTitle), not by plotly
    if (narrow && layout.legend) {
      out.legend = Object.assign({}, layout.legend, { font: { size: 11 } });
    }
    // Hover text in a smaller type on a phone, its lines aligned left so a short one does not
    // float in the middle of a wide box.
    out.hoverlabel = Object.assign({ align: "left", font: { size: narrow ? 10 : 12 } },
      layout.hoverlabel || {});
    return out;
  }

  // Plotly places a legend below the plot at a fraction of the plot's height, not under the
  // x axis's labels and title: long labels, turned, run into it. And the title, the axis and
  // the legend's rows take their height from the plot's: on a phone the plot can end up
  // shorter than its y axis's title. Once drawn, the legend is moved below the axis and the
  // chart made taller, a few times, as each change moves the others. (_fullLayout is
  // plotly's laid-out figure: _size the plot area in px, legend.y where the legend went.)
  var MIN_PLOT = 220;  // px
  var GAP = 12;  // px between the axis and the legend

  function fit(target, tries) {
    var full = target._fullLayout;
    var update = {};
    // Hidden, or folded in a closed <details> (whose content a browser need not lay out):
    // nothing to measure. folded-charts.js fits it when it is shown.
    if (!target.clientWidth || target.closest("details:not([open])")) return Promise.resolve();
    var legend = target.querySelector(".legend");
    var axis = [].slice.call(target.querySelectorAll(".xtitle, .xtick text"));
    if (legend && axis.length && full.legend && full.legend.y < 0) {
      var lowest = Math.max.apply(null, axis.map(function (e) {
        return e.getBoundingClientRect().bottom; }));
      var off = lowest + GAP - legend.getBoundingClientRect().top;  // > 0: too high
      if (Math.abs(off) > 3) update["legend.y"] = full.legend.y - off / full._size.h;
    }
    var ytitle = target.querySelector(".ytitle");
    var needed = Math.max(MIN_PLOT, ytitle ? ytitle.getBoundingClientRect().height + 10 : 0);
    if (full._size.h < needed - 1) update.height = full.height + needed - full._size.h;
    if (!tries || !Object.keys(update).length) return Promise.resolve();
    return window.Plotly.relayout(target, update).then(function () {
      return fit(target, tries - 1);
    });
  }

  // A legend entry is one line in plotly: a long one (a host's hardware) runs off a phone's
  // screen, so it is broken at a space. Names are escaped by the build and an entity holds no
  // space, so no entity is cut.
  function wrapNames(data, narrow) {
    if (!narrow) return data;
    return data.map(function (trace) {
      var name = trace.name || "";
      if (name.length <= 34 || name.indexOf("<br>") >= 0) return trace;
      var cut = name.lastIndexOf(" ", 34);
      if (cut <= 0) return trace;
      return Object.assign({}, trace,
        { name: name.slice(0, cut) + "<br>" + name.slice(cut + 1) });
    });
  }

  // A phone's hover keeps what the bar says (the setting, its value, the comparison) and
  // leaves out the host's hardware, software and device lines (%{meta}): on a 390 px screen
  // they covered most of the plot and ran off both edges; the legend names the host.
  function compactHover(template, narrow) {
    return narrow && typeof template === "string" ?
      template.replace("<br>%{meta}", "") : template;
  }

  function compactHovers(data, narrow) {
    if (!narrow) return data;
    return data.map(function (trace) {
      if (!trace.hovertemplate) return trace;
      return Object.assign({}, trace,
        { hovertemplate: compactHover(trace.hovertemplate, narrow) });
    });
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

  function config(narrow, container) {
    return Object.assign({}, CONFIG, { displayModeBar: narrow ? false : "hover",
      modeBarButtonsToRemove: ["toImage"], modeBarButtonsToAdd: [downloadButton(container)] });
  }

  // The toolbar's image download keeps what the chart compares and on which workload, which
  // the page draws as text above the plot (showTitle): the PNG is made from a copy of the
  // figure with plotly's own title put back, room above the plot for its lines, and an opaque
  // background (the page's is transparent).
  var TITLE_LINE = 20;  // px per title line in the image

  function downloadButton(container) {
    return {
      name: "tlDownload", title: "Download as PNG, with its title",
      icon: window.Plotly.Icons.camera,
      click: function (gd) {
        var title = container._figure.layout.title || {};
        var lines = title.text ? title.text.split("<br>").length : 0;
        var full = gd._fullLayout;
        var margin = Object.assign({}, gd.layout.margin);
        margin.t = (margin.t || 20) + TITLE_LINE * lines;
        var dark = document.body.getAttribute("data-md-color-scheme") === "slate";
        var layout = Object.assign({}, gd.layout, { margin: margin,
          paper_bgcolor: dark ? "#1e2129" : "#ffffff",
          title: Object.assign({}, title, { y: 1 + 14 / full._size.h, yref: "paper",
            yanchor: "bottom",
            font: { size: 14 } }) });
        var name = (title.text || "chart").split("<br>")[0].toLowerCase()
          .replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60);
        return window.Plotly.downloadImage({ data: gd.data, layout: layout }, { format: "png",
          filename: name, width: full.width, height: full.height + TITLE_LINE * lines });
      }
    };
  }

  // A chart's title, as text above the plot rather than plotly's: the page wraps it at any
  // width, where plotly's multi-line titles overlap the plot or are cut at the top, and its
  // title.automargin draws bars for the plot before the margin grew (plotly.js 4.1). The
  // build escaped the title and wrote only <br> and <sup> into it: each line is decoded as
  // text (DOMParser runs nothing), never as markup.
  function showTitle(container, text) {
    var block = container.querySelector(".tl-chart-title");
    if (!text) { if (block) block.remove(); return; }
    if (!block) {
      block = document.createElement("div");
      block.className = "tl-chart-title";
      container.insertBefore(block, container.querySelector(".tl-plot"));
    }
    // The build cut the title into lines short enough for plotly, which draws a title on
    // one line (the image download still does); here the lines of each kind are joined
    // again, for the page to wrap at its own width.
    block.textContent = "";
    var rows = {};
    text.split("<br>").forEach(function (line) {
      var sup = /^<sup>(.*)<\/sup>$/.exec(line);
      var kind = sup ? "tl-chart-sub" : "tl-chart-main";
      var words = new DOMParser().parseFromString(sup ? sup[1] : line, "text/html")
        .documentElement.textContent;
      if (!rows[kind]) {
        rows[kind] = block.appendChild(document.createElement("div"));
        rows[kind].className = kind;
        rows[kind].textContent = words;
      } else {
        rows[kind].textContent += " " + words;
      }
    });
  }

  function plot(method, container) {
    var target = container.querySelector(".tl-plot");
    var figure = container._figure;
    showTitle(container, figure.layout.title && figure.layout.title.text);
    var theme = palette();
    var narrow = isNarrow(target);
    var data = withHostColour(withErrorColour(figure.data, theme), theme);
    return window.Plotly[method](target, compactHovers(wrapNames(data, narrow), narrow),
      merge(figure.layout, theme, target.clientWidth), config(narrow, container))
      .then(function () { return fit(target, 4); });
  }

  // A results chart's toggle: the figure carries both states ("raw", "normalised": per-trace
  // arrays and the axis title) as Plotly.update arguments, so the page computes nothing.
  function show(container, mode) {
    var state = container._figure.normalise[mode];
    var target = container.querySelector(".tl-plot");
    var narrow = isNarrow(target);
    var traces = Object.assign({}, state.traces, { hovertemplate:
      (state.traces.hovertemplate || []).map(function (t) { return compactHover(t, narrow); }) });
    container._mode = mode;
    window.Plotly.update(target, traces, state.layout);
  }

  // A bar of a host's result opens that result's file (the figure names it: tl_file, a path
  // from the site root), the evidence behind the bar.
  function openFileOnClick(container) {
    container.querySelector(".tl-plot").on("plotly_click", function (event) {
      var point = event.points && event.points[0];
      var trace = point && container._figure.data[point.curveNumber];
      if (trace && trace.tl_file) window.open(ROOT + trace.tl_file, "_blank", "noopener");
    });
  }

  function draw(container) {
    var figure = JSON.parse(container.getAttribute("data-figure"));
    var button = container.querySelector(".tl-normalise");
    container._figure = figure;
    container.setAttribute("data-rendered", "pending");  // drawn once, whatever comes next
    var drawn = plot("newPlot", container).then(function () {
      container.setAttribute("data-rendered", "true");  // and fitted: what tests wait for
      openFileOnClick(container);
    });
    if (button && figure.normalise) {
      button.addEventListener("click", function () {
        var on = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", String(on));
        show(container, on ? "normalised" : "raw");
      });
    }
    return drawn;
  }

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

  // One view of one host, then the overrides it ran with (hostviews.overrides_note), if any.
  function render(view, content) {
    draw_view(view, content);
    if (content && content.note) {
      var p = document.createElement("p");
      p.className = "tl-caption tl-overrides";
      p.textContent = content.note;  // text, never HTML
      view.querySelector(".tl-hostview-body").appendChild(p);
    }
  }

  // One view of one host: a figure (drawn like the fence's) or a table the build escaped.
  function draw_view(view, content) {
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
    if (content.figure.empty) {  // nothing to draw: the build's sentence why, as text
      var p = document.createElement("p");
      p.className = "tl-empty";
      p.textContent = content.figure.empty;
      body.textContent = "";
      body.appendChild(p);
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
        option.textContent = host.name + " (" + host.started + ")";  // a name says contributed
        select.appendChild(option);
      });
      select.value = shown;
      view.setAttribute("data-hosts", String(index.hosts.length));
    }).catch(function (err) { note(view, "The list of hosts did not load (" + err.message + ")."); });
  }

  // For folded-charts.js: a chart drawn folded is fitted once it is shown.
  window.tlFitChart = function (plot) { return fit(plot, 4); };

  // A reader who follows a link to a place on a page (a result's "why", to the RAID page's
  // warning) is taken there before the charts above it are drawn; drawn and fitted, they grow
  // and push that place out of view, which the browser's scroll anchoring does not always
  // make up for. Once the page's charts are drawn, the place is brought back into view,
  // unless the reader has moved meanwhile (any wheel, touch, key or press since the page was
  // shown).
  var readerMoved = false;
  ["wheel", "touchmove", "keydown", "mousedown"].forEach(function (kind) {
    window.addEventListener(kind, function () { readerMoved = true; },
      { capture: true, passive: true });
  });

  function keepLinkedPlace() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id || !document.getElementById(id) || readerMoved) return;
    // Followed as the browser follows a link to the place (as Material does it too): the
    // place becomes :target, whose scroll margin keeps it clear of the header. A link outside
    // the document is not seen by instant navigation, and one to the address the page is at
    // adds no history entry.
    var link = document.createElement("a");
    link.href = location.hash;
    link.click();
  }

  // data-tl-drawn on the body: this page's charts are drawn and the linked place is in view
  // (what tests wait for after instant navigation, which keeps the body).
  function drawn() {
    keepLinkedPlace();
    document.body.setAttribute("data-tl-drawn", "true");
  }

  // The page's charts one at a time, the browser given a turn between two: drawn all in one
  // go, the first showed only once the last was laid out (2.6 to 4.4 s on a 2-core machine).
  // A chart no longer on the page (instant navigation left it) is skipped.
  function drawInTurn(charts) {
    return charts.reduce(function (before, chart) {
      return before.then(function () {
        return new Promise(function (turn) { setTimeout(turn, 0); });
      }).then(function () {
        if (document.body.contains(chart)) return draw(chart);
      });
    }, Promise.resolve());
  }

  function drawAll() {
    var charts = document.querySelectorAll(".tl-chart:not([data-rendered])");
    var views = document.querySelectorAll(".tl-hostview:not([data-picker])");
    readerMoved = false;
    document.body.removeAttribute("data-tl-drawn");
    if (!charts.length && !views.length) return drawn();  // no chart: no plotly.js either
    loadPlotly().then(function () {
      views.forEach(setUpPicker);
      return drawInTurn([].slice.call(charts));
    }).catch(function (err) {
      charts.forEach(function (c) {
        var p = document.createElement("p");
        p.className = "tl-empty";
        p.textContent = "The chart could not be drawn: " + err.message + ".";
        c.appendChild(p);
      });
    }).then(drawn);
  }

  function recolour() {
    document.querySelectorAll(".tl-chart[data-rendered]").forEach(function (c) {
      plot("react", c).then(function () {
        if (c._mode) show(c, c._mode);  // react redraws the raw values: keep the reader's choice
      });
    });
  }

  new MutationObserver(recolour).observe(document.body,
    { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  document$.subscribe(drawAll);
})();
