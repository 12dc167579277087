// The message API's request check (web/js/site/messages.js validateRequest), without a browser: every
// malformed request is refused with a message naming what is wrong, and actions, fields and
// parameters are found by own name only (`action: 'constructor'` is an unknown action, not a
// TypeError). Run: cd tests && node --test unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParameterRegistry } from '../../web/js/site/controls.js';
import { validateRequest } from '../../web/js/site/messages.js';

function fakePage({ simulation = true } = {}) {
  const registry = new ParameterRegistry();
  registry.add({ name: 'iterations', kind: 'number', get: () => '2', set: () => null });
  return { simulation, controls: { registry } };
}

const refused = (data, pattern, page = fakePage()) => {
  assert.throws(() => validateRequest(data, page), (error) => {
    assert.ok(!(error instanceof TypeError), `${JSON.stringify(data)}: ${error}`);
    assert.match(error.message, pattern, JSON.stringify(data));
    return true;
  });
};

test('valid requests pass', () => {
  for (const data of [
    { phyxel: 1, action: 'describe' },
    { phyxel: 1, action: 'get', id: 3 },
    { phyxel: 1, action: 'get', parameter: 'iterations' },
    { phyxel: 1, action: 'set', parameter: 'iterations', value: 4, id: 'a' },
    { phyxel: 1, action: 'step', steps: 1000 },
    { phyxel: 1, action: 'subscribe', events: ['readouts', 'notice'] },
  ]) assert.equal(validateRequest(data, fakePage()), data);
});

test('inherited names are unknown actions, fields and parameters', () => {
  for (const action of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    refused({ phyxel: 1, action }, new RegExp(`^Unknown action "${action}": use one of describe, get, set,`));
  }
  for (const field of ['constructor', 'toString', 'valueOf']) {
    refused({ phyxel: 1, action: 'describe', [field]: 1 }, new RegExp(`^Unknown field “${field}” for describe\\.$`));
  }
  // A __proto__ key made by JSON.parse is an own property, as a structured clone makes it.
  refused(JSON.parse('{"phyxel": 1, "action": "get", "__proto__": {"parameter": "iterations"}}'), /^Unknown field “__proto__” for get\.$/);
  for (const parameter of ['constructor', '__proto__', 'toString']) {
    refused({ phyxel: 1, action: 'get', parameter }, new RegExp(`^Unknown parameter "${parameter}": this demo's are iterations\\.$`));
    refused({ phyxel: 1, action: 'set', parameter, value: 1 }, /^Unknown parameter/);
  }
  // A required field is not found on the prototype.
  refused(Object.assign(Object.create({ parameter: 'iterations', value: 1 }), { phyxel: 1, action: 'set' }), /^set needs the field “parameter”\.$/);
});

test('malformed requests are refused with the reason', () => {
  refused(null, /must be an object/);
  refused('pause', /must be an object/);
  refused([1], /must be an object/);
  refused({ action: 'pause' }, /needs phyxel: 1/);
  refused({ phyxel: '1', action: 'pause' }, /needs phyxel: 1/);
  refused({ phyxel: 1 }, /^Unknown action undefined/);
  refused({ phyxel: 1, action: 42 }, /^Unknown action 42/);
  refused({ phyxel: 1, action: ['pause'] }, /^Unknown action \["pause"\]/);
  refused({ phyxel: 1, action: 'x'.repeat(5000) }, /^Unknown action "x{99}…: use one of/);
  refused({ phyxel: 1, action: 'set', parameter: 'iterations' }, /set needs the field “value”/);
  refused({ phyxel: 1, action: 'set', parameter: 7, value: 1 }, /^Unknown parameter 7/);
  refused({ phyxel: 1, action: 'set', parameter: 'iterations', value: { a: 1 } }, /value must be a string, number or boolean/);
  refused({ phyxel: 1, action: 'set', parameter: 'iterations', value: 'x'.repeat(10_001) }, /value is 10001 characters long: at most 10000/);
  for (const steps of [0, -1, 1.5, 1001, NaN, Infinity, '10', null]) {
    refused({ phyxel: 1, action: 'step', steps }, /steps must be a whole number from 1 to 1000/);
  }
  refused({ phyxel: 1, action: 'subscribe', events: 'readouts' }, /events must be a list of readouts, state, notice/);
  refused({ phyxel: 1, action: 'subscribe', events: ['constructor'] }, /events must be a list/);
  refused({ phyxel: 1, action: 'play' }, /interactive figure: it has no play/, fakePage({ simulation: false }));
});
