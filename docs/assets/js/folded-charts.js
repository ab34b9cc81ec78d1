// A chart folded away when the page draws it, in a closed <details> (the RAID page's IO
// charts) or in a content tab not shown (the RAID page's experiments), is fitted when it
// comes into view. Chromium lays out a closed details at its real width all the same, but a
// browser that lays nothing out there, and every browser for a hidden tab, hands plotly no
// width: plotly then draws at its default 700 px, too wide for a phone and too narrow for a
// wide column. Shown, such a chart is fitted to its container (relayout with autosize rather
// than Plotly.Plots.resize, which keeps a width plotly stored at the first draw), then its
// legend and height as charts.js fits them.
(function () {
  function refit(root) {
    if (!window.Plotly) return;
    root.querySelectorAll(".tl-plot").forEach(function (plot) {
      var full = plot._fullLayout;  // plotly's laid-out figure, once drawn
      if (!full || !plot.offsetParent) return;  // not drawn yet, or still folded
      var sized = Math.abs(full.width - plot.clientWidth) <= 1 ? Promise.resolve()
        : window.Plotly.relayout(plot, { autosize: true });
      // Then the legend under the axis and the height (charts.js), which folded could not
      // be measured.
      sized.then(function () { if (window.tlFitChart) return window.tlFitChart(plot); });
    });
  }

  // Neither toggle nor a tab's change is a problem for instant navigation: caught on the
  // document (toggle does not bubble, so in the capture phase), they also cover the details
  // and tabs of a page it brought in.
  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS" && event.target.open) refit(event.target);
  }, true);
  document.addEventListener("change", function (event) {
    var set = event.target.closest && event.target.closest(".tabbed-set");
    if (set) refit(set);
  });
})();
