// Round clocks ([data-clock]): the server renders the seconds left, read from its own
// clock; this counts them down between the region's polls (which bring fresh seconds
// after a pause or an extension), so no phone drifts and a reload shows the same time.
(function () {
  "use strict";

  function text(seconds) {
    var h = Math.floor(seconds / 3600);
    var m = Math.floor((seconds % 3600) / 60);
    var s = seconds % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  function start(clock) {
    if (clock.dataset.ticking) {
      return;
    }
    clock.dataset.ticking = "1";
    var left = Number(clock.dataset.remaining);
    var paused = clock.dataset.paused === "true";
    var deadline = performance.now() + left * 1000;
    var shown = clock.querySelector("[data-left]");
    var atTime = clock.querySelector("[data-at-time]");
    function tick() {
      if (!clock.isConnected) {
        return;
      }
      var now = paused ? left : Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
      shown.textContent = text(now);
      if (now === 0) {
        clock.classList.add("expired");
        atTime.hidden = false;
        return;
      }
      if (!paused) {
        window.setTimeout(tick, 250);
      }
    }
    tick();
  }

  function scan(root) {
    var found = root.querySelectorAll ? root.querySelectorAll("[data-clock]") : [];
    for (var i = 0; i < found.length; i++) {
      start(found[i]);
    }
    if (root.matches && root.matches("[data-clock]")) {
      start(root);
    }
  }

  document.addEventListener("DOMContentLoaded", function () { scan(document); });
  document.addEventListener("htmx:load", function (event) { scan(event.target); });
})();
