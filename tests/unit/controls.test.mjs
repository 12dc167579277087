// The controls' number parser (web/js/site/controls.js parseNumber, parseSwitch), without a browser:
// what a typed value, a URL parameter and a `set` message all go through. Integers must be integers
// (`resolution=10.5` is refused, so `get` always reports the value running).
// Run: cd tests && node --test unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParameterRegistry, clip, parseNumber, parseSwitch } from '../../web/js/site/controls.js';

test('numbers in range are accepted, as numbers', () => {
  assert.deepEqual(parseNumber('0.5', 0, 1), { ok: true, value: 0.5 });
  assert.deepEqual(parseNumber(' 1e-3 ', 0, 1), { ok: true, value: 0.001 });
  assert.deepEqual(parseNumber('10', 3, 60, true), { ok: true, value: 10 });
  assert.deepEqual(parseNumber('1e1', 3, 60, true), { ok: true, value: 10 });
});

test('hostile numbers are refused with the reason', () => {
  const cases = [
    ['', 'Enter a number.'],
    ['   ', 'Enter a number.'],
    ['NaN', '“NaN” is not a number.'],
    ['Infinity', '“Infinity” is not a number.'],
    ['-Infinity', '“-Infinity” is not a number.'],
    ['1e308', 'Must be between 3 and 60.'],
    ['-1e308', 'Must be between 3 and 60.'],
    ['1e309', '“1e309” is not a number.'],
    ['abc', '“abc” is not a number.'],
    ['constructor', '“constructor” is not a number.'],
    ['10.5', 'Must be a whole number.'],
    ['3.000001', 'Must be a whole number.'],
    ['2', 'Must be between 3 and 60.'],
  ];
  for (const [text, message] of cases) assert.deepEqual(parseNumber(text, 3, 60, true), { ok: false, message }, text);
  // An over-long text is quoted at most 80 characters long (found by the fuzz layer: it was repeated whole).
  assert.deepEqual(parseNumber('x'.repeat(100_000), 0, 1), { ok: false, message: `“${'x'.repeat(80)}… (100000 characters)” is not a number.` });
});

test('refusals quote at most 80 characters of the input', () => {
  assert.equal(clip('short'), 'short');
  assert.equal(clip('y'.repeat(81)), `${'y'.repeat(80)}… (81 characters)`);
  assert.equal(clip('y'.repeat(80)), 'y'.repeat(80));
});

test('switches take on/off words only', () => {
  for (const word of ['1', 'true', 'ON', ' yes ']) assert.equal(parseSwitch(word), true, word);
  for (const word of ['0', 'false', 'off', 'No']) assert.equal(parseSwitch(word), false, word);
  for (const word of ['', '2', 'constructor', 'maybe']) assert.equal(parseSwitch(word), null, word);
});

test('the registry finds controls by own name only and refuses a name twice', () => {
  const registry = new ParameterRegistry();
  registry.add({ name: 'h', get: () => '1', set: () => null });
  for (const name of ['constructor', '__proto__', 'toString']) assert.equal(registry.get(name), undefined, name);
  assert.throws(() => registry.add({ name: 'h', get: () => '1' }), /two controls are named h/);
  assert.deepEqual(registry.values(), { h: '1' });
});
