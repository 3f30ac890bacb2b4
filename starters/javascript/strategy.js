// A greedy player, after the platform's built-in "greedy" (bots/strategies/builtin.py):
// on its turn it takes the action worth most right now (sets formed, sets stolen, cheap
// discards); in a challenge it plays the cheapest card that answers while the set is
// worth it. It reads only the decision object (docs/bot-protocol.md) and always answers
// one of decision.legal_actions, copied as it is.

import { catalogue } from './cards.js';

/** The action to answer for a decision object. */
export function decide(decision) {
  const legal = decision.legal_actions;
  const table = new Table(decision.observation);
  if (['defend', 'counter', 'draft_challenge'].includes(decision.kind)) {
    return respond(table, legal);
  }
  if (decision.kind === 'move_choice') return legal[0];
  let best = legal[0];
  let bestScore = -Infinity;
  for (const action of legal) {
    const score = table.score(action);
    if (score > bestScore) [best, bestScore] = [action, score];
  }
  return best;
}

/** In a challenge: the cheapest card that answers, if the set is worth it; else give up. */
function respond(table, legal) {
  const giveUp = legal[legal.length - 1]; // concede or pass comes last
  const plays = legal.filter((a) => a.type === 'play');
  if (plays.length === 0) return giveUp;
  const cost = (a) => a.cards.reduce((sum, c) => sum + table.value(c), 0);
  const cheapest = plays.reduce((a, b) => (cost(b) < cost(a) ? b : a));
  if (cheapest.cards.every((c) => table.role(c) === 'asset')) return cheapest;
  return table.contestedValue() >= cost(cheapest) ? cheapest : giveUp;
}

/** What the seat knows, with the dollar sense of the greedy player. */
class Table {
  constructor(observation) {
    this.o = observation;
    this.cards = catalogue(observation.edition);
  }

  value(card) {
    return this.cards.get(card)?.value ?? 0;
  }

  role(card) {
    return this.cards.get(card)?.role ?? 'asset';
  }

  holds(card) {
    return this.o.hand.filter((c) => c === card).length;
  }

  wildsHeld() {
    return this.o.hand.filter((c) => this.role(c) === 'wild').length;
  }

  top(seat) {
    const stack = this.o.stacks[seat] ?? [];
    return stack[stack.length - 1];
  }

  /** A set's worth: its known value, and a guess for each card not seen. */
  setValue(set) {
    if (!set) return 0;
    const unseen = set.cards.filter((c) => c === null).length;
    return set.known_value + 10000 * unseen;
  }

  /** The dollars at stake in the challenge in progress. */
  contestedValue() {
    const ch = this.o.challenge;
    if (!ch) return 0;
    if (ch.depth === 'draft') return 2 * this.value(ch.kind);
    const stack = this.o.stacks[ch.holder] ?? [];
    return this.setValue(stack[stack.length - 1 - (ch.depth === 'second' ? 1 : 0)]);
  }

  score(action) {
    const v = (c) => this.value(c);
    switch (action.type) {
      case 'pair':
        return v(action.cards[0]) + v(action.cards[1]) + this.coverBonus();
      case 'pair_discard': // the card from hand, and the discard pile's top
        return v(action.card) + v(this.o.discard[this.o.discard.length - 1]) + 5000;
      case 'challenge':
        return this.challengeScore(action);
      case 'draft': {
        const piles = this.o.draft_piles ?? [];
        const gained = action.piles.reduce((sum, p) => sum + v(piles[p]?.top), 0);
        return v(action.card) + gained + 5000;
      }
      case 'improve':
        return 0.8 * v(action.card);
      case 'swap':
        return this.setValue(this.top(action.target)) - this.setValue(this.top(this.o.seat));
      case 'move':
        return -5000;
      case 'end_turn':
        return 0;
      case 'discard':
        return this.discardScore(action.card);
      default:
        return -1e9;
    }
  }

  /** Forming a set covers our top set: worth a share of what it protects. */
  coverBonus() {
    const stack = this.o.stacks[this.o.seat] ?? [];
    return stack.length >= 2 ? Math.floor(this.setValue(this.top(this.o.seat)) / 4) : 0;
  }

  /** Expected dollars: the set's value if the challenge wins, the cards lost if not. */
  challengeScore(action) {
    const stack = this.o.stacks[action.target] ?? [];
    const set = stack[stack.length - 1 - (action.depth === 'second' ? 1 : 0)];
    const cost = action.cards.reduce((sum, c) => sum + this.value(c), 0);
    const theirHand = this.o.hand_counts[action.target];
    const ammo = (set ? this.holds(set.kind) : 0) + this.wildsHeld();
    const p = theirHand === 0 ? 1 : Math.min(0.9, 0.25 + 0.2 * ammo);
    return p * (this.setValue(set) + cost) - (1 - p) * cost;
  }

  /** Discarding costs the card's value; wilds cost more, unplayable action cards nothing. */
  discardScore(card) {
    const role = this.role(card);
    if (role === 'action') return -1000;
    const penalty = role === 'wild' ? 3 * this.value(card) : this.value(card);
    return -penalty - 20000;
  }
}
