// Composes a move from the cards you tap. Every legal move of your decision is a form
// (games/_dock.html) naming the hand cards it plays (data-hand, card keys) and the
// places it points at (data-targets: the discard pile, a seat's set, draft piles). A
// card or place lights up only if some legal move still contains it with what is
// already picked, so nothing illegal can be composed; a move's button shows once the
// picks name it exactly, and one tap plays it. Moves of no card (Yield, End your turn)
// always show. Keys: 1-9 a card of the hand, D the discard pile (the move they make then
// has the focus, so Enter plays it), Esc drops the picks, Y/L/E the moves of that key.

let current = null;

const words = (text) => (text ? text.split(" ") : []);

// Whether every card of `some` is among `all` (as many times as it is picked).
function within(some, all) {
  const left = all.slice();
  return some.every((card) => {
    const at = left.indexOf(card);
    if (at < 0) {
      return false;
    }
    left.splice(at, 1);
    return true;
  });
}

function fits(move, cards, places) {
  return within(cards, move.hand) && [...places].every((p) => move.targets.includes(p));
}

function exact(move, cards, places) {
  return (
    cards.length === move.hand.length &&
    places.size === move.targets.length &&
    fits(move, cards, places)
  );
}

export function setup(board) {
  const forms = board.querySelectorAll("form.move");
  if (!forms.length) {
    current = null;
    return;
  }
  const previous = current;
  current = {
    version: board.dataset.version,
    moves: [...forms].map((el) => ({
      el,
      hand: words(el.dataset.hand),
      targets: words(el.dataset.targets),
      key: el.dataset.key || "",
    })),
    slots: [...board.querySelectorAll(".card-button[data-slot]")],
    tokens: [...board.querySelectorAll("[data-token]")],
    picked: new Set(),
    places: new Set(),
    hint: board.querySelector("#compose-hint"),
    hintText: (board.querySelector("#moves") || board).dataset.hint || "",
  };
  if (previous && previous.version === current.version) {
    previous.picked.forEach((slot) => current.picked.add(slot)); // the same decision, redrawn
    previous.places.forEach((place) => current.places.add(place));
  }
  current.slots.forEach((button, slot) => button.addEventListener("click", () => pick(slot)));
  current.tokens.forEach((button) =>
    button.addEventListener("click", () => place(button.dataset.token))
  );
  render();
}

function cardsPicked() {
  return [...current.picked].map((slot) => current.slots[slot].dataset.card);
}

function pick(slot) {
  if (current.picked.has(slot)) {
    current.picked.delete(slot);
  } else {
    current.picked.add(slot);
  }
  render();
}

function place(token) {
  if (current.places.has(token)) {
    current.places.delete(token);
  } else {
    current.places.add(token);
  }
  render();
}

function render() {
  const { moves, slots, tokens, picked, places } = current;
  const cards = cardsPicked();
  slots.forEach((button, slot) => {
    const on = picked.has(slot);
    const more = [...cards, button.dataset.card];
    button.disabled = !(on || moves.some((m) => fits(m, more, places)));
    button.setAttribute("aria-pressed", String(on));
  });
  tokens.forEach((button) => {
    const token = button.dataset.token;
    const on = places.has(token);
    const more = new Set([...places, token]);
    button.disabled = !(on || moves.some((m) => fits(m, cards, more)));
    button.setAttribute("aria-pressed", String(on));
  });
  let made = 0;
  moves.forEach((m) => {
    const free = !m.hand.length && !m.targets.length;
    const shown = free || exact(m, cards, places);
    m.el.hidden = !shown;
    made += shown && !free ? 1 : 0;
  });
  if (current.hint) {
    const lit = [...slots, ...tokens].some((b) => !b.disabled);
    current.hint.hidden = made > 0 || !lit || !current.hintText;
    current.hint.textContent = current.hintText;
  }
}

// The moves the picks make (not the moves of no card).
function made() {
  const cards = cardsPicked();
  return current.moves.filter(
    (m) => (m.hand.length || m.targets.length) && exact(m, cards, current.places)
  );
}

function submit(move) {
  const button = move.el.querySelector("button");
  if (button && !button.disabled) {
    button.focus();
    move.el.requestSubmit(button);
  }
}

// A key picks a card or place; the move the picks now make takes the focus (Enter plays
// it), or else the card or place itself.
function press(button) {
  if (button && !button.disabled) {
    button.click();
    const move = made()[0];
    (move ? move.el.querySelector("button") : button).focus();
  }
}

export function keys(event) {
  if (!current || event.ctrlKey || event.metaKey || event.altKey || !current.slots.length) {
    return;
  }
  const target = event.target;
  if (target && target.matches && target.matches("input, select, textarea, summary")) {
    return;
  }
  const key = event.key.toLowerCase();
  if (/^[1-9]$/.test(key)) {
    press(current.slots[Number(key) - 1]);
  } else if (key === "d") {
    press(current.tokens.find((t) => t.dataset.token === "discard"));
  } else if (key === "escape") {
    current.picked.clear();
    current.places.clear();
    render();
  } else if (key === "enter" && !(target && target.closest && target.closest("button, a"))) {
    const moves = made();
    if (moves.length === 1) {
      submit(moves[0]);
    }
  } else {
    const move = current.moves.find((m) => m.key && m.key === key);
    if (!move) {
      return;
    }
    submit(move);
  }
  event.preventDefault();
}
