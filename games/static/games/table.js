// The game page follows its game live: it reads the game's NDJSON stream and, at each
// update, decision or end, swaps in the board as it now stands for this viewer (the
// server renders it from the viewer's own observation; nothing else comes here). A
// stream that drops is reopened with backoff; where streams do not work at all, the
// page falls back to the long-poll. Changes are shown one at a time, in order.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !live.hasAttribute("data-live")) {
    return;
  }
  var streamUrl = live.getAttribute("data-stream");
  var waitUrl = live.getAttribute("data-wait");
  var boardUrl = live.getAttribute("data-board");
  var pending = false;
  var busy = false;
  var ended = false;
  var failures = 0;

  function shown() {
    var board = document.getElementById("board");
    return board ? Number(board.getAttribute("data-version")) : -1;
  }

  function status() {
    var board = document.getElementById("board");
    return board ? board.getAttribute("data-status") : "";
  }

  // One board refresh at a time; a change arriving meanwhile asks for one more after it,
  // so quick moves (bots) are each shown rather than skipped past.
  function refresh() {
    if (busy) {
      pending = true;
      return;
    }
    busy = true;
    fetch(boardUrl, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        var board = document.getElementById("board");
        var focused = board && board.contains(document.activeElement);
        if (html && board) {
          board.outerHTML = html;
          if (window.htmx) {
            window.htmx.process(document.getElementById("board"));
          }
          if (focused) {
            var first = document.querySelector("#board .controls button");
            if (first) {
              first.focus();
            }
          }
        }
      })
      .catch(function () {})
      .then(function () {
        busy = false;
        if (pending) {
          pending = false;
          window.setTimeout(refresh, 300);
        }
      });
  }

  function onLine(text) {
    if (!text) {
      return; // keep-alive
    }
    var message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      return;
    }
    var game = message.game || {};
    if (message.type === "end") {
      ended = true;
      refresh();
    } else if (message.type === "decision") {
      if ((message.decision || {}).version !== shown()) {
        refresh(); // the board shown may already hold this decision's controls
      }
    } else if (message.type === "update" || message.type === "game") {
      if (game.version !== shown() || game.status !== status()) {
        refresh();
      }
    }
  }

  function follow() {
    if (ended) {
      return;
    }
    if (!window.fetch || !window.ReadableStream || !window.TextDecoder) {
      poll();
      return;
    }
    fetch(streamUrl, { credentials: "same-origin", headers: { Accept: "application/x-ndjson" } })
      .then(function (response) {
        if (!response.ok || !response.body) {
          throw new Error("stream " + response.status);
        }
        failures = 0;
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var buffer = "";
        function read() {
          return reader.read().then(function (chunk) {
            if (chunk.done) {
              return;
            }
            buffer += decoder.decode(chunk.value, { stream: true });
            var lines = buffer.split("\n");
            buffer = lines.pop();
            lines.forEach(onLine);
            return read();
          });
        }
        return read();
      })
      .then(again, again);
  }

  // The stream closed or failed: reopen it after a growing pause, and after repeated
  // failures wait with the long-poll instead (a proxy that buffers streams, say).
  function again() {
    if (ended) {
      return;
    }
    failures += 1;
    if (failures > 4) {
      poll();
      return;
    }
    window.setTimeout(follow, Math.min(30000, 500 * Math.pow(2, failures)));
  }

  function poll() {
    if (ended) {
      return;
    }
    fetch(waitUrl + "?after=" + shown() + "&timeout=25", { credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(
        function (body) {
          if (body && (body.changed || body.status !== status())) {
            ended = body.status === "finished" || body.status === "aborted";
            refresh();
          }
          window.setTimeout(poll, body ? 200 : 5000);
        },
        function () {
          window.setTimeout(poll, 5000);
        }
      );
  }

  follow();
})();
