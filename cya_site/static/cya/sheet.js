// The score sheet's entry form, for club rooms with poor Wi-Fi.
//
// A round typed while the phone is offline (or whose sending fails) stays on this phone,
// in localStorage, and is sent by itself when the connection returns, in the order typed.
// Each round carries the idempotency key and round number the page gave it, so a resend
// records it once and never as another round (the server answers 409 stale_round). The
// page says what is waiting; without JavaScript the form posts as a plain form.
(function () {
  "use strict";

  var RETRY_MS = 4000;
  var text = document.getElementById("sync-text");
  var box = document.getElementById("sync");
  if (!text || !box) {
    return;
  }
  var words = text.dataset;
  var sending = false;
  var timer = null;

  function storeKey(game) {
    return "cya-sheet-" + game;
  }

  function entryForm() {
    return document.querySelector("form[data-entry]");
  }

  function gameId() {
    var form = entryForm();
    return form ? form.dataset.game : box.dataset.game;
  }

  function load() {
    try {
      return JSON.parse(localStorage.getItem(storeKey(gameId())) || "[]");
    } catch (error) {
      return [];
    }
  }

  function save(queue) {
    localStorage.setItem(storeKey(gameId()), JSON.stringify(queue));
    render(queue);
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) {
      return crypto.randomUUID().replace(/-/g, "");
    }
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function render(queue, status) {
    var list = document.getElementById("sync-list");
    list.textContent = "";
    queue.forEach(function (entry, index) {
      var item = document.createElement("li");
      item.className = "notice warn";
      var line = words.round + " " + entry.round + ": " + entry.summary;
      item.appendChild(document.createTextNode(line + " "));
      var discard = document.createElement("button");
      discard.type = "button";
      discard.className = "secondary";
      discard.textContent = words.discard;
      discard.setAttribute("aria-label", words.discard + " " + words.round + " " + entry.round);
      discard.addEventListener("click", function () {
        var current = load();
        current.splice(index, 1);
        save(current);
      });
      item.appendChild(discard);
      list.appendChild(item);
    });
    box.hidden = queue.length === 0 && !status;
    document.getElementById("sync-signin").hidden = status !== words.signin;
    box.querySelector("h2").hidden = queue.length === 0;
    document.getElementById("sync-status").textContent =
      status || (queue.length && !navigator.onLine ? words.offline : "");
  }

  // The form's fields as the server reads them, and a line for people.
  function capture(form) {
    var fields = {};
    new FormData(form).forEach(function (value, name) {
      fields[name] = value;
    });
    var names = (form.dataset.names || "").split("|");
    var amounts = [];
    form.querySelectorAll("input.thousands").forEach(function (input, i) {
      amounts.push((names[i] || "") + " " + input.value);
    });
    return {
      url: form.action,
      round: Number(fields.round),
      key: fields.key,
      fields: fields,
      summary: amounts.join(", "),
    };
  }

  // The next round, typed while the one before still waits: a fresh form, one round on.
  function advance(form, entry) {
    form.querySelectorAll("input.thousands").forEach(function (input) {
      input.value = "";
    });
    form.elements.key.value = newKey();
    form.elements.round.value = String(entry.round + 1);
    form.querySelectorAll(".round-number").forEach(function (number) {
      number.textContent = String(entry.round + 1);
    });
  }

  // The page's own CSRF token: a round kept from before a sign-in carries a stale one.
  function csrfToken() {
    var field = document.querySelector("[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function post(entry) {
    var body = new FormData();
    var token = csrfToken();
    Object.keys(entry.fields).forEach(function (name) {
      body.append(name, name === "csrfmiddlewaretoken" ? token : entry.fields[name]);
    });
    return fetch(entry.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      redirect: "manual", // a redirect means the session ended: never mistake it for a save
      headers: { "HX-Request": "true", "X-CSRFToken": token },
    });
  }

  // Put the sheet the server answered in place of the page's; the entry form too,
  // unless someone is typing the next round in it (or ``force``: a refusal to show).
  function show(html, force) {
    var holder = document.createElement("div");
    holder.innerHTML = html;
    ["#sheet-state", "#entry"].forEach(function (selector) {
      var current = document.querySelector(selector);
      var fresh = holder.querySelector(selector);
      if (!current || !fresh) {
        return;
      }
      if (selector === "#entry" && !force && typing()) {
        return;
      }
      current.replaceWith(fresh);
      if (window.htmx) {
        htmx.process(fresh);
      }
    });
  }

  function typing() {
    var form = entryForm();
    return !!form && Array.prototype.some.call(form.querySelectorAll("input.thousands"), function (input) {
      return input.value !== "";
    });
  }

  function flush() {
    var queue = load();
    if (sending || !queue.length) {
      return;
    }
    if (queue[0].hold) {
      render(queue, words.held);
      return;
    }
    if (!navigator.onLine) {
      render(queue, words.offline);
      schedule();
      return;
    }
    sending = true;
    render(queue, words.sending);
    var entry = queue[0];
    post(entry)
      .then(function (response) {
        if (response.type === "opaqueredirect") {
          sending = false; // signed out: the rounds stay here until the player signs in
          render(load(), words.signin);
          return;
        }
        return response.text().then(function (html) {
          sending = false;
          var now = load();
          var sheet = html.indexOf('id="sheet-body"') !== -1; // our answer, not a stranger's
          if (response.status === 403 && !sheet) {
            render(now, words.signin); // the session or its CSRF cookie is gone: keep it all
            return;
          }
          if (response.ok && sheet) {
            now.shift();
            save(now);
            var form = entryForm();
            show(html, !!form && form.elements.key.value === entry.key); // the form just sent
            render(now, now.length ? words.sending : words.saved);
            flush();
          } else if (sheet && response.status >= 400 && response.status < 500) {
            // Refused (a typo, say): the form comes back with the reason beside the
            // field and what was typed; the rounds after it wait until it is sent again.
            now.shift();
            now.forEach(function (waiting) {
              waiting.hold = true;
            });
            save(now);
            show(html, true);
            render(now, now.length ? words.held : "");
          } else {
            render(now, words.retry);
            schedule();
          }
        });
      })
      .catch(function () {
        sending = false;
        var form = entryForm();
        if (form && form.elements.key.value === entry.key) {
          advance(form, entry); // it waits in the list: the form moves on to the next round
        }
        render(load(), words.retry);
        schedule();
      });
  }

  function schedule() {
    if (!timer) {
      timer = setTimeout(function () {
        timer = null;
        flush();
      }, RETRY_MS);
    }
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-entry]")) {
      return;
    }
    event.preventDefault();
    var entry = capture(form);
    var queue = load();
    if (sending || queue.some(function (waiting) { return waiting.key === entry.key; })) {
      return; // a double tap: this round is already on its way
    }
    queue.push(entry);
    queue.sort(function (a, b) {
      return a.round - b.round;
    });
    queue.forEach(function (waiting) {
      waiting.hold = false;
    });
    save(queue);
    if (queue.length > 1 || !navigator.onLine) {
      advance(form, entry);
    }
    flush();
  });

  window.addEventListener("online", flush);
  window.addEventListener("offline", function () {
    render(load(), words.offline);
  });
  box.dataset.game = gameId();
  flush();
})();
