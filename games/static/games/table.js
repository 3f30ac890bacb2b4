// The game page, live: follows the game's stream (stream.js), and at each change fetches
// the board as it now stands for this viewer (the server draws it from the viewer's own
// observation; nothing else comes here), swaps it in and animates the change (animate.js)
// from the public events of the stream's line. Moves are composed by tapping cards
// (compose.js); after a move, focus stays where it was. "Your turn" goes in the title,
// with a sound the player may switch on. Without this script, the page plays through its
// forms and a reload shows what changed.
import { follow } from "./stream.js";
import { setup, keys } from "./compose.js";
import { measure, play, started } from "./animate.js";

const live = document.getElementById("live");
const board = () => document.getElementById("board");
document.documentElement.classList.add("js");
window.cyaTable = { animations: started };

const baseTitle = document.title.replace((live && live.dataset.yourTurn + " · ") || "", "");
const sound = document.getElementById("sound");
let wasYours = Boolean(board() && board().dataset.yours);
let audio = null;
let focusKey = "";

function title() {
  const yours = Boolean(board() && board().dataset.yours);
  document.title = yours ? `${live.dataset.yourTurn} · ${baseTitle}` : baseTitle;
  if (yours && !wasYours && sound && sound.getAttribute("aria-pressed") === "true" && audio) {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  }
  wasYours = yours;
}

if (sound) {
  sound.hidden = false;
  const show = (on) => sound.setAttribute("aria-pressed", String(on)); // the label stays
  show(window.localStorage.getItem("cya-sound") === "on");
  // A browser plays sound only after the reader has interacted with the page: the
  // audio is made at the first tap or key (the switch's own included).
  const wake = () => {
    if (!audio && sound.getAttribute("aria-pressed") === "true") {
      audio = new (window.AudioContext || window.webkitAudioContext)();
    }
  };
  sound.addEventListener("click", () => {
    const on = sound.getAttribute("aria-pressed") !== "true";
    window.localStorage.setItem("cya-sound", on ? "on" : "off");
    show(on);
    wake();
  });
  document.addEventListener("pointerdown", wake);
  document.addEventListener("keydown", wake);
}

// Focus stays where it was: the same card, place or move if the new board has it, else
// the first card that lights up, else the hand.
document.addEventListener("focusin", (event) => {
  const keyed = event.target.closest && event.target.closest("#board [data-focus]");
  focusKey = keyed ? keyed.dataset.focus : focusKey;
});

function refocus(hadFocus) {
  const root = board();
  if (!root || !hadFocus) {
    return;
  }
  const usable = (el) => el && !el.disabled && !el.closest("[hidden]");
  const same = focusKey === "hand" ? null : root.querySelector(`[data-focus="${focusKey}"]`);
  const next = [
    same,
    root.querySelector(".card-button:enabled"),
    [...root.querySelectorAll("form.move button")].find(usable),
    root.querySelector("#hand"),
  ].find(usable);
  if (next) {
    next.focus({ preventScroll: true });
  }
}

function drawn(before, events, line, hadFocus) {
  const root = board();
  if (window.htmx) {
    window.htmx.process(root);
  }
  setup(root);
  const you = root.dataset.you === undefined ? null : Number(root.dataset.you);
  play(before, events, root, { you, line });
  refocus(hadFocus);
  title();
}

// One board refresh at a time; changes arriving meanwhile wait for the next, with their
// events, so quick moves (bots) are each shown rather than skipped past. A change the
// board drawn meanwhile already shows (a person's turn comes as the game's update and
// the seat's decision) fetches nothing: drawing the same board again would drop the
// cards the person has just tapped.
let busy = false;
let waiting = [];

// The version a board's HTML was drawn at. A board fetched before the person's move and
// answered after the move's own board (htmx's swap) is older than the one shown and is
// never drawn over it: the page would show a past turn, and wait there. (A move's answer
// is never the older one: htmx drops it once a refresh has replaced the move's form.)
function versionOf(html) {
  const found = /data-version="(\d+)"/.exec(html || "");
  return found ? Number(found[1]) : -1;
}

function older(html) {
  return board() !== null && versionOf(html) < shown();
}

function refresh() {
  if (busy) {
    return;
  }
  const batch = waiting.filter((item) => behind(item.message));
  waiting = [];
  if (!batch.length) {
    return;
  }
  busy = true;
  fetch(live.dataset.board, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
    .then((response) => (response.ok ? response.text() : null))
    .then((html) => {
      const old = board();
      if (html && old && !older(html)) {
        const hadFocus = old.contains(document.activeElement) || document.activeElement === document.body;
        const before = measure(old);
        old.outerHTML = html;
        const events = batch.flatMap((item) => item.events);
        drawn(before, events, batch.length ? batch[0].at : performance.now(), hadFocus);
      }
    })
    .catch(() => {})
    .then(() => {
      busy = false;
      if (waiting.length) {
        refresh();
      }
    });
}

function shown() {
  return board() ? Number(board().dataset.version) : -1;
}

// Whether a stream line tells of something the board shown does not: a later version,
// the same version's new status, or the stream's end.
function behind(message) {
  const game = message.game || {};
  if (message.type === "decision") {
    return (message.decision || {}).version > shown();
  }
  if (["update", "game", "poll"].includes(message.type)) {
    return game.version > shown() || (game.version === shown() && game.status !== board().dataset.status);
  }
  return message.type === "end";
}

function onLine(message, at) {
  if (behind(message)) {
    const events = (message.entries || []).flatMap((entry) => entry.events || []);
    waiting.push({ message, events, at });
    refresh();
  }
}

// A move played through htmx (its form) comes back as the board: drawn as a refresh is,
// and animated as the move's own event (the action said as what it did: the seat's pair,
// discard, challenge...).
let beforeSwap = null;
let played = [];
document.addEventListener("htmx:beforeRequest", (event) => {
  const field = event.detail.elt && event.detail.elt.querySelector("input[name=action]");
  const root = board();
  try {
    const action = JSON.parse(field ? field.value : "null");
    played = action && root ? [{ ...action, seat: Number(root.dataset.you) }] : [];
  } catch (error) {
    played = [];
  }
});
document.addEventListener("htmx:beforeSwap", (event) => {
  if (event.detail.target && event.detail.target.id === "board") {
    beforeSwap = measure(board());
  }
});
document.addEventListener("htmx:afterSwap", (event) => {
  if (beforeSwap && board()) {
    const done = event.detail.xhr && event.detail.xhr.status === 200; // not a refusal
    drawn(beforeSwap, done ? played : [], performance.now(), true);
    beforeSwap = null;
    played = [];
  }
});
document.addEventListener("keydown", keys);

if (board()) {
  setup(board());
  title();
}
if (live && live.hasAttribute("data-live")) {
  follow({
    streamUrl: live.dataset.stream,
    waitUrl: live.dataset.wait,
    shown,
    onLine,
  });
}
