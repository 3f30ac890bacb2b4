import assert from 'node:assert/strict';
import { test } from 'node:test';

import { decide } from '../strategy.js';
import { decision, set } from '../testing/decisions.js';

test('takes the discard pile to form a set before pairing from hand', () => {
  const legal = [
    { type: 'pair', cards: ['piano', 'piano'] },
    { type: 'pair_discard', card: 'cabin' },
    { type: 'discard', card: 'piano' },
  ];
  const d = decision({ legal, hand: ['piano', 'piano', 'cabin'], discard: ['piano', 'cabin'] });
  assert.deepEqual(decide(d), { type: 'pair_discard', card: 'cabin' });
});

test('pairs the dearest assets it can', () => {
  const legal = [
    { type: 'pair', cards: ['piano', 'piano'] },
    { type: 'pair', cards: ['cabin', 'cabin'] },
    { type: 'discard', card: 'piano' },
  ];
  const d = decision({ legal, hand: ['piano', 'piano', 'cabin', 'cabin'] });
  assert.deepEqual(decide(d), { type: 'pair', cards: ['cabin', 'cabin'] });
});

test('discards its cheapest asset, never a wild while an asset will do', () => {
  const legal = [
    { type: 'discard', card: 'gold' },
    { type: 'discard', card: 'cabin' },
    { type: 'discard', card: 'toy_train' },
    { type: 'discard', card: 'silver' },
  ];
  const d = decision({ legal, hand: ['gold', 'cabin', 'toy_train', 'silver'] });
  assert.deepEqual(decide(d), { type: 'discard', card: 'toy_train' });
});

test('steals a set from a seat with an empty hand', () => {
  const legal = [
    { type: 'challenge', target: 1, depth: 'top', cards: ['scooter'] },
    { type: 'discard', card: 'scooter' },
    { type: 'discard', card: 'piano' },
  ];
  const d = decision({
    legal,
    hand: ['scooter', 'piano'],
    hand_counts: [2, 0, 5],
    stacks: [[], [set('scooter', 30000)], []],
  });
  assert.deepEqual(decide(d), legal[0]);
});

test('defends with a matching asset, and gives up a cheap set rather than spend Gold', () => {
  const challenge = { challenger: 1, holder: 0, depth: 'top', kind: 'piano', played: ['gold'] };
  const stacks = [[set('piano', 10000)], [], []];
  const withAsset = decision({
    kind: 'defend',
    legal: [
      { type: 'play', cards: ['gold'] },
      { type: 'play', cards: ['piano'] },
      { type: 'concede' },
    ],
    hand: ['gold', 'piano'],
    stacks,
    challenge,
  });
  assert.deepEqual(decide(withAsset), { type: 'play', cards: ['piano'] });
  const onlyGold = decision({
    kind: 'defend',
    legal: [{ type: 'play', cards: ['gold'] }, { type: 'concede' }],
    hand: ['gold'],
    stacks,
    challenge,
  });
  assert.deepEqual(decide(onlyGold), { type: 'concede' });
});

test('always answers one of the legal actions, as it was given', () => {
  const legal = [{ type: 'end_turn' }, { type: 'improve', card: 'silver' }];
  const d = decision({ kind: 'second_action', legal, hand: ['silver'], edition: 'de2023' });
  const chosen = decide(d);
  assert.ok(legal.includes(chosen));
});
