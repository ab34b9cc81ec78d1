// Material's instant navigation follows a link without reloading only when the link's address
// is in sitemap.xml, whose addresses carry the site_url the site was built for. Material fixes
// their scheme and host name to the current ones, but not the port or the path, so the site
// served anywhere else (another port, a subdirectory, a preview) reloaded on every click. This
// rewrites the sitemap's addresses to where the site is served, as Material reads it: its
// request asks for a Blob, so the text is read here and handed back as one.
(function () {
  "use strict";
  const tag = document.getElementById("tl-site-url");
  const built = tag ? JSON.parse(tag.textContent) : null;
  if (!built) return;
  const proto = XMLHttpRequest.prototype;
  const responseText = Object.getOwnPropertyDescriptor(proto, "responseText").get;
  const open = proto.open;
  proto.open = function (method, url) {
    const target = new URL(url, location.href);
    if (target.pathname.endsWith("/sitemap.xml")) {
      const root = target.href.slice(0, target.href.length - "sitemap.xml".length);
      // Keep the response text (readable here), while Material believes it set a Blob.
      Object.defineProperty(this, "responseType", {get: () => "blob", set: () => {},
                                                   configurable: true});
      // Registered before Material's own "load" listener, so it runs first.
      this.addEventListener("load", () => {
        const text = responseText.call(this).split(built).join(root);
        Object.defineProperty(this, "response",
                              {value: new Blob([text], {type: "text/xml"})});
      });
    }
    return open.apply(this, arguments);
  };
})();
