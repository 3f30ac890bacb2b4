// Animates a board that was just redrawn, from the public events that changed it (FLIP:
// measure where things were, put the new board in, play the difference). A card goes
// from a hand to a stack or the discard pile, a stolen set changes seats, a challenge's
// cards come out of the hands, a new round deals the hand from the deck. Nothing moves
// when the reader asked for reduced motion (prefers-reduced-motion). Every animation
// started is noted in `started` (with the time its stream line arrived), for the tests.

export const started = [];
const QUICK = 320;
const still = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// Where every followed thing is now: [data-flip] elements, by their key.
export function measure(root) {
  const rects = new Map();
  if (!root) {
    return rects;
  }
  root.querySelectorAll("[data-flip]").forEach((el) => {
    rects.set(el.dataset.flip, el.getBoundingClientRect());
  });
  const hand = root.querySelector("#hand");
  if (hand) {
    rects.set("hand-mine", hand.getBoundingClientRect());
  }
  return rects;
}

function fly(el, from, delay, note) {
  if (!el || !from || !el.animate) {
    return;
  }
  const to = el.getBoundingClientRect();
  if (!to.width || !from.width) {
    return;
  }
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = Math.max(0.3, Math.min(1.6, from.width / to.width));
  el.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.4 },
      { transform: "none", opacity: 1 },
    ],
    { duration: QUICK, delay, easing: "cubic-bezier(.2, .7, .2, 1)", fill: "backwards" }
  );
  started.push({ ...note, at: performance.now() + delay });
}

function topOf(root, seat) {
  const sets = root.querySelectorAll(`[data-seat="${seat}"] .set`);
  const tops = [...sets].filter((el) => el.classList.contains("top"));
  return tops[0] || sets[sets.length - 1] || null;
}

// The rect a seat's cards come from: its hand (the dock for the viewer's own seat).
function handOf(before, seat, you) {
  return (seat === you && before.get("hand-mine")) || before.get(`hand-${seat}`);
}

// Where a seat's set at `depth` from the top was before the redraw.
function setBefore(before, seat, depth) {
  const heights = [...before.keys()]
    .filter((key) => key.startsWith(`set-${seat}-`))
    .map((key) => Number(key.split("-")[2]))
    .sort((a, b) => b - a);
  const height = heights[depth === "second" ? 1 : 0];
  return height === undefined ? null : before.get(`set-${seat}-${height}`);
}

export function play(before, events, root, { you, line }) {
  if (still() || !root) {
    return;
  }
  const note = (type) => ({ type, line });
  events.forEach((e) => {
    const seat = e.seat;
    switch (e.type) {
      case "pair":
      case "pair_discard":
      case "draft":
      case "improve":
        fly(topOf(root, seat), handOf(before, seat, you), 0, note(e.type));
        break;
      case "discard":
        fly(root.querySelector('[data-flip="discard"]'), handOf(before, seat, you), 0, note(e.type));
        break;
      case "challenge":
      case "draft_challenge":
      case "play": {
        const plays = root.querySelectorAll(".duel .play");
        fly(plays[plays.length - 1], handOf(before, seat, you), 0, note(e.type));
        break;
      }
      case "challenge_end":
        if (e.winner === e.challenger) {
          const from = setBefore(before, e.holder, e.depth);
          fly(topOf(root, e.winner), from, 0, note("steal"));
        }
        break;
      case "swap":
        fly(topOf(root, seat), setBefore(before, e.target, "top"), 0, note(e.type));
        fly(topOf(root, e.target), setBefore(before, seat, "top"), 0, note(e.type));
        break;
      case "round_start": {
        const deck = before.get("deck") || measure(root).get("deck");
        root.querySelectorAll("#hand li").forEach((card, n) => fly(card, deck, n * 40, note("deal")));
        break;
      }
      default:
        break;
    }
  });
}
