// The "your turn" strip (games/_your_turn.html): while games wait on the signed-in person,
// the page title says so; a browser notification for each newly waiting game once the
// person opted in ("Notify me", remembered in this browser). htmx refreshes the strip.
const OPTED = "cya-notify-turns";
const SEEN = "cya-turns-notified";
const original = document.title;

function strip() {
  return document.getElementById("your-turn");
}

function seen() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(SEEN) || "[]"));
  } catch (error) {
    return new Set();
  }
}

function notify(element, games) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (localStorage.getItem(OPTED) !== "yes") return;
  const done = seen();
  for (const game of games) {
    if (done.has(game)) continue;
    const note = new Notification(element.dataset.title, {
      body: element.dataset.body,
      tag: "cya-turn-" + game,
    });
    note.onclick = function () {
      window.focus();
      window.location.assign("/games/" + game + "/");
    };
    done.add(game);
  }
  sessionStorage.setItem(SEEN, JSON.stringify([...done]));
}

function offerNotifications(element) {
  const button = element.querySelector("[data-notify]");
  if (!button || !("Notification" in window)) return;
  const opted = localStorage.getItem(OPTED) === "yes" && Notification.permission === "granted";
  button.hidden = opted || Notification.permission === "denied";
  button.onclick = function () {
    Notification.requestPermission().then(function (answer) {
      if (answer === "granted") {
        localStorage.setItem(OPTED, "yes");
        button.hidden = true;
        update();
      }
    });
  };
}

function update() {
  const element = strip();
  if (!element) return;
  const count = Number(element.dataset.count || 0);
  const games = (element.dataset.games || "").split(" ").filter(Boolean);
  document.title = count ? element.dataset.title + " (" + count + ") · " + original : original;
  offerNotifications(element);
  notify(element, games);
}

document.addEventListener("htmx:afterSettle", function (event) {
  if (event.target && event.target.id === "your-turn") update();
});
update();
