// The URL parser of the lesson pages (web/js/site/share.js), without a browser: page parameters and
// controls are found by own name only (`?constructor=1`, `?__proto__=1`, `?toString=1` are unknown
// parameters, named in the notice, never a TypeError), and `origin=` normalises origins and fails
// closed. Run: cd tests && node --test unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParameterRegistry } from '../../web/js/site/controls.js';
import { allowedOrigins, parseOrigin, parseOrigins, readUrlState } from '../../web/js/site/share.js';

/** A registry with one numeric control `iterations` (its set() accepts anything here). */
function registry() {
  const r = new ParameterRegistry();
  let value = '2';
  r.add({ name: 'iterations', kind: 'number', get: () => value, set: (text) => { value = text; return null; } });
  return r;
}

test('inherited property names are unknown URL parameters, named in the notice', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
    const { settings, notices } = readUrlState(registry(), `?${name}=1&iterations=5`);
    assert.deepEqual(settings.map((s) => [s.name, s.text]), [['iterations', '5']], name);
    assert.equal(notices.length, 1, name);
    assert.equal(notices[0].key, `url-${name}`);
    assert.equal(notices[0].text, `Unknown URL parameter “${name}” was ignored. This demo's parameters are: iterations.`);
  }
});

test('the page’s own parameters are checked; bad values are named', () => {
  const { settings, notices } = readUrlState(registry(), '?paused=maybe&controls=0&embed=1');
  assert.deepEqual(settings, []);
  assert.deepEqual(notices.map((n) => n.text), ['URL parameter paused=maybe was ignored (paused: 1 opens the simulation paused).']);
});

test('origins are normalised as the browser writes MessageEvent.origin', () => {
  const cases = [
    ['https://School.example', 'https://school.example'],
    ['HTTPS://SCHOOL.EXAMPLE/', 'https://school.example'],
    ['https://x.example:443', 'https://x.example'],
    ['http://x.example:80', 'http://x.example'],
    ['http://x.example:8080', 'http://x.example:8080'],
    ['https://x.example:8443/', 'https://x.example:8443'],
    [' http://127.0.0.1:5000 ', 'http://127.0.0.1:5000'],
  ];
  for (const [entry, origin] of cases) assert.deepEqual(parseOrigin(entry), { ok: true, origin }, entry);
});

test('entries that are not origins are refused with the reason', () => {
  const cases = [
    ['https://school.example/course', /“https:\/\/school\.example\/course” is not an origin \(no path: “\/course”\)/],
    ['https://school.example//', /no path/],
    ['school.example', /must start with https:\/\/ or http:\/\//],
    ['javascript:alert(1)', /must start with https:\/\//],
    ['null', /must start with/],
    ['*', /must start with/],
    ['file:///tmp', /must start with/],
    ['https://', /does not parse/],
    ['https://a b.example', /does not parse/],
    ['https://user:pw@school.example', /no user name or password/],
    ['https://school.example?x=1', /no query or fragment/],
    ['https://school.example#top', /no query or fragment/],
  ];
  for (const [entry, message] of cases) {
    const parsed = parseOrigin(entry);
    assert.equal(parsed.ok, false, entry);
    assert.match(parsed.message, message, entry);
  }
});

test('the allow-list fails closed: a bad entry never turns it off', () => {
  assert.equal(allowedOrigins('?demo=pbd'), null, 'no origin=: any page');
  assert.deepEqual(allowedOrigins('?origin=https://School.example,https://x.example:443'), ['https://school.example', 'https://x.example']);
  assert.deepEqual(allowedOrigins('?origin=https://a.example,https://b.example/path'), ['https://a.example'], 'the good entry stays');
  assert.deepEqual(allowedOrigins('?origin=https://b.example/path'), [], 'only bad entries: no page');
  assert.deepEqual(allowedOrigins('?origin='), [], 'empty: no page');
  assert.deepEqual(allowedOrigins('?origin=,,'), []);
  assert.deepEqual(allowedOrigins('?origin=https://a.example&origin=https://c.example'), ['https://a.example', 'https://c.example'], 'every origin= counts');
  assert.deepEqual(parseOrigins('https://a.example, https://A.example:443/'), { origins: ['https://a.example'], refused: [] });
});

test('a refused origin entry is named in a notice with the origins in force', () => {
  const { notices } = readUrlState(registry(), '?origin=https://a.example,https://b.example/course');
  assert.equal(notices.length, 1);
  assert.equal(notices[0].key, 'url-origin');
  assert.match(notices[0].text, /^URL parameter origin=https:\/\/a\.example,https:\/\/b\.example\/course: “https:\/\/b\.example\/course” is not an origin \(no path: “\/course”\)\. Messages are accepted only from https:\/\/a\.example\.$/);
  const none = readUrlState(registry(), '?origin=nope').notices;
  assert.match(none[0].text, /Messages are accepted only from no page\.$/);
});
