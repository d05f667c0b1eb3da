// For pages that embed puzzles: sizes each puzzle iframe from the frame's own messages and
// answers a frame that asks for the colour scheme (data-scheme on the iframe, else the page's
// preferred scheme). Messages: { type: "crossword-embed", event, id, ... }.
(function () {
  "use strict";
  function frameOf(source) {
    var frames = document.querySelectorAll("iframe");
    for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === source) return frames[i];
    return null;
  }
  window.addEventListener("message", function (ev) {
    var m = ev.data;
    if (!m || m.type !== "crossword-embed") return;
    var frame = frameOf(ev.source);
    if (!frame) return;
    if (m.event === "resize" && typeof m.height === "number" && m.height > 0) {
      frame.style.height = Math.min(Math.ceil(m.height), 4000) + "px";
    } else if (m.event === "ready") {
      var scheme = frame.getAttribute("data-scheme");
      if (scheme !== "light" && scheme !== "dark") {
        scheme = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
      }
      ev.source.postMessage({ type: "crossword-embed", event: "scheme", scheme: scheme, id: m.id }, "*");
    }
  });
})();
