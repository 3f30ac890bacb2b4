// Every edition's cards: [key, dollar value, role], in the engine's order (RULES.md
// section 1; games/engine/cards.py). The platform's test suite checks this table against
// the engine's, so it cannot drift. Cards are named by key in decisions: see
// observation.edition.

export const CARDS = {
  2011: [
    ['baseball_cards', 5000, 'asset'],
    ['cash_under_the_mattress', 5000, 'asset'],
    ['stamp_collection', 5000, 'asset'],
    ['piggy_bank', 5000, 'asset'],
    ['stocks', 10000, 'asset'],
    ['bank_account', 10000, 'asset'],
    ['coin_collection', 10000, 'asset'],
    ['jewels', 15000, 'asset'],
    ['classic_auto', 15000, 'asset'],
    ['home', 20000, 'asset'],
    ['silver', 25000, 'wild'],
    ['gold', 50000, 'wild'],
    ['penny_jar', 1000, 'wild'],
    ['swap', 0, 'action'],
    ['move', 0, 'action'],
  ],
  2021: [
    ['comic_books', 5000, 'asset'],
    ['piano', 5000, 'asset'],
    ['toy_train', 5000, 'asset'],
    ['jewels', 10000, 'asset'],
    ['cash_under_the_mattress', 10000, 'asset'],
    ['piggy_bank', 10000, 'asset'],
    ['scooter', 15000, 'asset'],
    ['sport_plane', 15000, 'asset'],
    ['classic_auto', 15000, 'asset'],
    ['cabin', 20000, 'asset'],
    ['silver', 25000, 'wild'],
    ['gold', 50000, 'wild'],
    ['penny_jar', 1000, 'wild'],
    ['swap', 0, 'action'],
    ['move', 0, 'action'],
  ],
  de2023: [
    ['baseballkarten', 5000, 'asset'],
    ['muenzsammlung', 5000, 'asset'],
    ['sparschwein', 5000, 'asset'],
    ['matratzengeld', 10000, 'asset'],
    ['bankkonto', 10000, 'asset'],
    ['aktien', 10000, 'asset'],
    ['motorboot', 15000, 'asset'],
    ['juwelen', 15000, 'asset'],
    ['oldtimer', 15000, 'asset'],
    ['eigenheim', 20000, 'asset'],
    ['silber', 25000, 'wild'],
    ['gold', 50000, 'wild'],
    ['muenzenglas', 1000, 'wild'],
    ['tauschen', 0, 'action'],
    ['verschieben', 0, 'action'],
  ],
};

/** The cards of an edition by key: {value, role}; the 2021 edition's if it is unknown. */
export function catalogue(edition) {
  const rows = CARDS[edition] ?? CARDS[2021];
  return new Map(rows.map(([key, value, role]) => [key, { value, role }]));
}
