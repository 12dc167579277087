// The message API's request check (web/js/site/messages.js validateRequest), without a browser: every
// malformed request is refused with a message naming what is wrong, and actions, fields and
// parameters are found by own name only (`action: 'constructor'` is an unknown action, not a
// TypeError). A flood of `step` requests runs one at a time, at most 8 wait, and a pause cancels
// the waiting ones. After a set that changed a value the next waits a frame, and sets of one parameter
// queued meanwhile are superseded but the last; refused sets never wait. Run: cd tests && node --test unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParameterRegistry } from '../../web/js/site/controls.js';
import { requestQueue, stepQueue, validateRequest } from '../../web/js/site/messages.js';

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

/** A simulation whose steps take 5 ms each request, counting how many run at once. */
function steppingPage() {
  const page = {
    time: 0, running: true, inFlight: 0, mostInFlight: 0, requests: 0,
    idle: async () => {},
    setRunning(running) { page.running = running; },
    state: () => ({ running: page.running, time: page.time }),
    async step(n) {
      page.requests += 1;
      page.inFlight += 1;
      page.mostInFlight = Math.max(page.mostInFlight, page.inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      page.time += n;
      page.inFlight -= 1;
      return true;
    },
  };
  return page;
}

test('a flood of 1000 step requests: one runs at a time, 8 wait, the rest are refused at once', async () => {
  const page = steppingPage();
  const queue = stepQueue(page);
  const outcomes = await Promise.allSettled(Array.from({ length: 1000 }, () => queue.step(10)));
  const done = outcomes.filter((o) => o.status === 'fulfilled');
  const refused = outcomes.filter((o) => o.status === 'rejected');
  assert.equal(done.length, 8);
  assert.equal(refused.length, 992);
  for (const o of refused) assert.equal(o.reason.message, '8 step requests are already waiting: wait for their replies before sending more.');
  assert.equal(page.mostInFlight, 1, 'never two steps at once');
  assert.deepEqual(done.map((o) => o.value.time), [10, 20, 30, 40, 50, 60, 70, 80], 'in order, each answered with its own state');
  assert.equal(page.running, false);
  // Once the replies are in, steps are taken again.
  assert.equal((await queue.step(1)).time, 81);
});

test('pause cancels the steps still waiting; the one running finishes', async () => {
  const page = steppingPage();
  const queue = stepQueue(page);
  const waiting = Array.from({ length: 5 }, () => queue.step(1));
  await new Promise((resolve) => setTimeout(resolve, 1));
  queue.cancel();
  const outcomes = await Promise.allSettled(waiting);
  assert.equal(outcomes[0].status, 'fulfilled', 'the first had started');
  for (const o of outcomes.slice(1)) {
    assert.equal(o.status, 'rejected');
    assert.equal(o.reason.message, 'This step was cancelled: a pause, play or restart came after it.');
  }
  assert.equal(page.requests, 1);
  assert.equal(page.time, 1);
});

test('a flood of sets: after one that changed a value the rest wait a frame, in order; of one parameter only the last is applied', () => {
  const registry = new ParameterRegistry();
  const values = { expression: 'x', seed: '1' };
  const applied = [];
  for (const name of Object.keys(values)) {
    registry.add({
      name,
      kind: 'text',
      get: () => values[name],
      // A value of 'bad' is refused and changes nothing.
      set: (text) => (text === 'bad' ? 'refused' : ((values[name] = text), applied.push(`${name}=${text}`), null)),
    });
  }
  const page = { simulation: false, controls: { registry } };
  let now = 0;
  let pending = null;
  const clock = { now: () => now, later: (fn, ms) => (pending = { fn, at: now + ms }) };
  const handled = [];
  const refusals = [];
  const queue = requestQueue(page, (event) => {
    handled.push(event.data.id);
    if (event.data.action === 'set') registry.get(event.data.parameter).set(String(event.data.value));
  }, (event, error) => refusals.push([event.data.id, error]), clock);
  const source = {};
  const set = (id, parameter, value) => queue.push({ source, data: { phyxel: 1, action: 'set', parameter, value, id } });
  // Refused sets change nothing: each is handled at once.
  set(1, 'expression', 'bad');
  set(2, 'expression', 'bad');
  assert.deepEqual(handled, [1, 2]);
  // The first change is applied at once; everything after it waits a frame.
  set(3, 'expression', 'x + 1');
  for (let k = 4; k < 1000; k++) set(k, 'expression', `x + ${k}`);
  queue.push({ source, data: { phyxel: 1, action: 'get', parameter: 'expression', id: 'get' } });
  set(1000, 'seed', '2');
  assert.deepEqual(handled, [1, 2, 3]);
  assert.equal(pending.at, 16);
  now = 16;
  pending.fn();
  // 4…998 superseded by the one right behind each; 999 applied, then the get in order, then the seed
  // waits its frame.
  assert.equal(refusals.length, 995);
  assert.deepEqual(refusals[0], [4, 'expression=x + 4 was not applied: a later set of expression replaced it while it waited (the last one wins).']);
  assert.deepEqual(handled, [1, 2, 3, 999, 'get']);
  now = 32;
  pending.fn();
  assert.deepEqual(handled, [1, 2, 3, 999, 'get', 1000]);
  assert.deepEqual(applied, ['expression=x + 1', 'expression=x + 999', 'seed=2']);
  // Another sender's set of the same parameter does not supersede.
  now = 100;
  const other = {};
  queue.push({ source, data: { phyxel: 1, action: 'set', parameter: 'seed', value: '3', id: 'a' } });
  queue.push({ source: other, data: { phyxel: 1, action: 'set', parameter: 'seed', value: '4', id: 'b' } });
  now = 200;
  pending.fn();
  assert.deepEqual(handled.slice(-2), ['a', 'b']);
});
