// The replay viewer: the slider (or ←/→, Page Up/Down, Home/End) moves through the steps,
// the board at each step comes from the server (the same partial the Go button renders),
// and the address follows (history.replaceState), so a link opens at the step shown.
(function () {
  "use strict";
  var form = document.getElementById("replay-form");
  if (!form) {
    return;
  }
  var slider = form.querySelector("input[name=step]");
  var seat = form.querySelector("select[name=seat]");
  var out = document.getElementById("step-out");
  var boardUrl = form.getAttribute("data-board");
  var last = Number(slider.max);
  var asked = 0;

  function query() {
    var params = new URLSearchParams();
    params.set("step", slider.value);
    if (seat && seat.value !== "") {
      params.set("seat", seat.value);
    }
    return params.toString();
  }

  function show() {
    var q = query();
    var ticket = ++asked;
    if (out) {
      out.textContent = slider.value;
    }
    history.replaceState(null, "", form.action + "?" + q);
    fetch(boardUrl + "?" + q, { credentials: "same-origin" })
      .then(function (response) {
        return response.text();
      })
      .then(function (html) {
        var board = document.getElementById("replay-board");
        if (ticket === asked && board) {
          board.outerHTML = html; // only the latest answer: a fast slider skips the rest
        }
      })
      .catch(function () {});
  }

  function go(step) {
    var next = Math.max(0, Math.min(last, step));
    if (String(next) !== slider.value) {
      slider.value = String(next);
    }
    show();
  }

  slider.addEventListener("input", show);
  if (seat) {
    seat.addEventListener("change", show);
  }
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("select, input[type=text], textarea")) {
      return;
    }
    var step = Number(slider.value);
    var moves = { ArrowLeft: step - 1, ArrowRight: step + 1, PageUp: step - 10, PageDown: step + 10, Home: 0, End: last };
    if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
      event.preventDefault();
      go(moves[event.key]);
    }
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    show();
  });
})();
