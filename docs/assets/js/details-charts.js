// A chart folded in a closed <details> (the RAID page's IO charts) is drawn while folded.
// Chromium lays it out at its real width all the same, but a browser that lays nothing out
// in a closed details hands plotly no width, and plotly then draws at its default 700 px:
// too wide for a phone, too narrow for a wide column. When the details opens, such a chart
// is fitted to its container (relayout with autosize rather than Plotly.Plots.resize, which
// keeps a width plotly stored at the first draw), then its legend and height as charts.js
// fits them.
(function () {
  function refit(details) {
    if (!details.open || !window.Plotly) return;
    details.querySelectorAll(".tl-plot").forEach(function (plot) {
      var full = plot._fullLayout;  // plotly's laid-out figure, once drawn
      if (!full) return;
      var sized = Math.abs(full.width - plot.clientWidth) <= 1 ? Promise.resolve()
        : window.Plotly.relayout(plot, { autosize: true });
      // Then the legend under the axis and the height (charts.js), which folded could not
      // be measured.
      sized.then(function () { if (window.tlFitChart) return window.tlFitChart(plot); });
    });
  }

  // toggle does not bubble: caught on the document, it also covers the details of a page
  // that instant navigation brought in.
  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS") refit(event.target);
  }, true);
})();
