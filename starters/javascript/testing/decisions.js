// Decision objects for the tests, shaped as docs/bot-protocol.md describes them.

export function decision({ kind = 'turn', legal, ...observation }) {
  return {
    protocol_version: 1,
    type: 'decision',
    decision_id: '7:12',
    game: 7,
    seat: 0,
    kind,
    version: 12,
    legal_actions: legal,
    deadline: '2026-05-01T19:30:20.250000+00:00',
    time_bank_ms: 15000,
    decision_ms: 1000,
    observation: {
      seat: 0,
      seats: 3,
      edition: '2021',
      hand: [],
      hand_counts: [5, 5, 5],
      discard: [],
      draft_piles: [],
      stacks: [[], [], []],
      challenge: null,
      ...observation,
    },
  };
}

export function set(kind, value, cards = [kind, kind]) {
  return { kind, count: cards.length, cards, known_value: value, protected: false };
}
