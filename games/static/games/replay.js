// The replay viewer: previous and next, the move list, the slider (or ←/→, Page Up/Down,
// Home/End) and autoplay at a chosen speed move through the steps. The board at each step
// comes from the server (the same table the live game draws) and is animated from the
// step's public events as the live page is; the address follows the step shown
// (history.replaceState), so a link opens at that step.
import { measure, play, started } from "./animate.js";

const form = document.getElementById("replay-form");
window.cyaTable = { animations: started };

if (form) {
  document.documentElement.classList.add("js");
  const slider = form.querySelector("input[name=step]");
  const seat = form.querySelector("select[name=seat]");
  const out = document.getElementById("step-out");
  const list = document.getElementById("move-list");
  const playButton = document.getElementById("play");
  const speed = document.getElementById("speed");
  const last = Number(slider.max);
  let asked = 0;
  let timer = null;

  const query = () => {
    const params = new URLSearchParams();
    params.set("step", slider.value);
    if (seat && seat.value !== "") {
      params.set("seat", seat.value);
    }
    return params.toString();
  };

  function links() {
    const step = Number(slider.value);
    const seatPart = seat && seat.value !== "" ? "&seat=" + seat.value : "";
    [["step-previous", step - 1], ["step-next", step + 1]].forEach(([id, to]) => {
      const link = document.getElementById(id);
      if (link) {
        const off = to < 0 || to > last;
        link.href = "?step=" + Math.max(0, Math.min(last, to)) + seatPart;
        link.classList.toggle("disabled", off);
        if (off) {
          link.setAttribute("aria-disabled", "true");
        } else {
          link.removeAttribute("aria-disabled");
        }
      }
    });
    if (list) {
      list.querySelectorAll("a").forEach((a) => {
        a.href = "?step=" + a.dataset.step + seatPart;
        if (a.dataset.step === slider.value) {
          a.setAttribute("aria-current", "step");
        } else {
          a.removeAttribute("aria-current");
        }
      });
    }
  }

  function show() {
    const q = query();
    const ticket = ++asked;
    const at = performance.now();
    if (out) {
      out.textContent = slider.value;
    }
    links();
    history.replaceState(null, "", form.action + "?" + q);
    return fetch(form.dataset.board + "?" + q, { credentials: "same-origin" })
      .then((response) => response.text())
      .then((html) => {
        const board = document.getElementById("replay-board");
        if (ticket === asked && board) {
          const before = measure(board); // only the latest answer: a fast slider skips the rest
          board.outerHTML = html;
          const now = document.getElementById("replay-board");
          const events = JSON.parse(now.dataset.events || "[]");
          const you = seat && seat.value !== "" ? Number(seat.value) : null;
          play(before, events, now, { you, line: at });
        }
      })
      .catch(() => {});
  }

  function go(step) {
    const next = Math.max(0, Math.min(last, step));
    if (String(next) !== slider.value) {
      slider.value = String(next);
    }
    return show();
  }

  function pause() {
    window.clearTimeout(timer);
    timer = null;
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = playButton.dataset.play;
  }

  // Autoplay shows every step: the next is asked for once this one is drawn, after the
  // chosen pause, so a slow answer delays the play rather than skipping steps.
  function tick() {
    if (!timer) {
      return;
    }
    if (Number(slider.value) >= last) {
      pause();
      return;
    }
    go(Number(slider.value) + 1).then(() => {
      if (timer) {
        timer = window.setTimeout(tick, Number(speed.value));
      }
    });
  }

  function start() {
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = playButton.dataset.pause;
    const from = Number(slider.value) >= last ? go(0) : Promise.resolve();
    timer = -1; // playing, until the first step is due
    from.then(() => {
      if (timer) {
        timer = window.setTimeout(tick, Number(speed.value));
      }
    });
  }

  document.getElementById("autoplay").hidden = false;
  playButton.addEventListener("click", () => (timer ? pause() : start()));
  speed.addEventListener("change", () => {
    if (timer) {
      pause();
      start();
    }
  });
  slider.addEventListener("input", show);
  if (seat) {
    seat.addEventListener("change", show);
  }
  document.addEventListener("click", (event) => {
    const link = event.target.closest("#move-list a, #step-previous, #step-next");
    if (link) {
      event.preventDefault();
      const step = link.dataset.step || new URLSearchParams(link.search).get("step");
      go(Number(step));
    }
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target && target.matches && target.matches("select, input[type=text], textarea")) {
      return;
    }
    const step = Number(slider.value);
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, PageUp: step - 10, PageDown: step + 10, Home: 0, End: last };
    if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
      event.preventDefault();
      go(moves[event.key]);
    } else if (event.key === " " && !(target && target.closest && target.closest("button, a"))) {
      event.preventDefault();
      if (timer) {
        pause();
      } else {
        start();
      }
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    show();
  });
}
