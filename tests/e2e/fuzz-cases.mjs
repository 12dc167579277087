// The fuzz layer's cases (issue 20), generated — never hand-listed per control — from what a demo
// describes of itself (its parameters: kind, range, whole-number flag, choices) and a seeded PRNG, with
// the exact refusal each must get. No browser here: fuzz.test.mjs drives the cases through the message
// API and the URL. The texts below are the site's own (js/site/controls.js, messages.js, share.js,
// js/lessons/scattered.js): a refusal that changes wording or stops naming the input fails the fuzz.

/** The seed: PHYXEL_FUZZ_SEED to replay another run, printed by the test. */
export const SEED = Number(process.env.PHYXEL_FUZZ_SEED ?? 20);

/** mulberry32: a small deterministic PRNG; returns () → [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Names every plain object inherits: never a parameter, action or field. */
export const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
/** The longest `set` value the message API takes (messages.js MAX_VALUE_LENGTH). */
export const MAX_VALUE_LENGTH = 10_000;
const ACTIONS = 'describe, get, set, play, pause, restart, step, readouts, subscribe, unsubscribe';

/** As notices and replies quote input (share.js clip): at most 80 characters. */
export function clip(text) {
  const value = String(text);
  return value.length > 80 ? `${value.slice(0, 80)}… (${value.length} characters)` : value;
}

/** A word no control accepts: 4–12 letters after a `q` (never x, y, e, pi, a function or a choice). */
function word(random) {
  const length = 4 + Math.floor(random() * 9);
  return `q${Array.from({ length }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('')}`;
}

/** Text longer than any valid input (and than the 80 characters a refusal quotes): `n` characters. */
function long(random, n) {
  const alphabet = 'zq#%&=+ 09.e';
  return Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('').replace(/^\s|\s$/g, 'z');
}

/** Why a numeric control refuses `text` (controls.js parseNumber), or null when it would accept it. */
function numberReason(text, { min, max, integer }) {
  const trimmed = String(text).trim();
  if (trimmed === '') return 'Enter a number.';
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return `“${clip(trimmed)}” is not a number.`;
  if (value < min || value > max) return `Must be between ${min} and ${max}.`;
  if (integer && !Number.isInteger(value)) return 'Must be a whole number.';
  return null;
}

/**
 * Why the expression control refuses `text` for the generic classes (scattered.js), or null; a
 * pattern where the text names a sample point (math.js reads NaN and Infinity as numbers: the refusal
 * is that f is not a finite real number).
 */
function expressionReason(text) {
  const trimmed = String(text).trim();
  if (trimmed === '') return 'Enter an expression in x and y.';
  if (/^-?(NaN|Infinity)$/.test(trimmed)) return /^f is not a finite real number at \(x, y\) = \(-?\d\.\d\d, -?\d\.\d\d\)\.$/;
  if (trimmed.length > 300) return `The expression is ${trimmed.length} characters long: at most 300 are allowed.`;
  if (/^-?[A-Za-z_]\w*$/.test(trimmed)) return `Unknown variable ${trimmed.replace(/^-/, '')}.`;
  return null;
}

/**
 * The bad values of every class for one described parameter: [{ value, why, reason }] where `value`
 * is sent as is (a string or a typed number), `why` names the class and `reason` is the control's
 * refusal (a RegExp where it names a sample point; null: refused by the message API before the
 * control, see `messageRefusal`).
 */
export function badValues(parameter, random, { url = false } = {}) {
  // A URL carries only text, and the whole request must fit the server's 16 KB of headers.
  const longText = url ? long(random, 301 + Math.floor(random() * 300)) : long(random, 200 + Math.floor(random() * 9000));
  const texts = [
    ['NaN', 'NaN'], ['Infinity', '+Infinity'], ['-Infinity', '-Infinity'], ['1e308', '+1e308'], ['-1e308', '-1e308'],
    ['', 'empty'], [word(random), 'text'], ...INHERITED.slice(0, 4).map((name) => [name, `inherited ${name}`]),
    [longText, 'over-long'],
  ];
  const cases = [];
  if (parameter.kind === 'number') {
    const { min, max, integer } = parameter;
    const typed = [[NaN, 'NaN (number)'], [Infinity, '+Infinity (number)'], [-Infinity, '-Infinity (number)'], [1e308, '+1e308 (number)'], [-1e308, '-1e308 (number)']];
    const values = [...texts, ...(url ? [] : typed)];
    if (integer) {
      const k = Math.floor(min + random() * (max - min));
      for (const fraction of [k + 0.5, max - 0.25, min + 0.125]) {
        if (fraction > min && fraction < max) values.push(...(url ? [] : [[fraction, 'fraction']]), [String(fraction), 'fraction (text)']);
      }
    }
    for (const [value, why] of values) {
      const reason = numberReason(String(value), parameter);
      if (reason) cases.push({ value, why, reason });
    }
  } else if (parameter.kind === 'choice') {
    for (const [value, why] of texts) cases.push({ value, why, reason: `“${clip(value)}” is not one of ${parameter.choices.join(', ')}.` });
  } else if (parameter.kind === 'switch') {
    for (const [value, why] of texts) cases.push({ value, why, reason: `“${clip(value)}” is not on or off: use 1 or 0.` });
  } else if (parameter.kind === 'text') {
    for (const [value, why] of texts) {
      const reason = expressionReason(value);
      if (reason) cases.push({ value, why, reason });
    }
  }
  if (!url) cases.push({ value: long(random, MAX_VALUE_LENGTH + 1 + Math.floor(random() * 5000)), why: 'longer than a message may carry', reason: null });
  return cases;
}

/**
 * An expected text: a string, or { prefix, pattern, suffix } where the middle is matched by a
 * RegExp (a reason that names a sample point). `matches(text, expected)` checks either.
 */
function expected(prefix, reason, suffix = '') {
  return reason instanceof RegExp ? { prefix, pattern: new RegExp(reason.source.replace(/\$$/, '')), suffix } : `${prefix}${reason}${suffix}`;
}

export function matches(text, expectation) {
  if (typeof expectation === 'string') return text === expectation;
  const { prefix, pattern, suffix } = expectation;
  if (typeof text !== 'string' || !text.startsWith(prefix) || !text.endsWith(suffix)) return false;
  const middle = text.slice(prefix.length, text.length - suffix.length);
  return new RegExp(`^(?:${pattern.source})$`, 's').test(middle);
}

/** The reply's error for `set` of a bad value (messages.js setParameter / validateRequest). */
export function messageRefusal(name, { value, reason }) {
  if (reason === null) return `value is ${String(value).length} characters long: at most ${MAX_VALUE_LENGTH} are accepted.`;
  return expected(`${name}=${clip(String(value))} was refused: `, reason);
}

/** The control's error for a refused value (controls.js showError). */
export function controlRefusal({ reason }, current) {
  return expected('', reason, ` Still using ${current}.`);
}

/** The notice for a refused URL parameter (share.js applyUrlState). */
export function urlRefusal(name, text, reason, current) {
  const why = reason instanceof RegExp ? reason : reason.replace(/\.?$/, '.');
  return expected(`URL parameter ${name}=${clip(text)} was refused: `, why, ` Using ${clip(current)}.`);
}

/** The notice for an unknown URL parameter name. */
export function unknownUrlParameter(name, names) {
  return `Unknown URL parameter “${clip(name)}” was ignored. This demo's parameters are: ${names.join(', ')}.`;
}

/**
 * Malformed requests of every action and field, with their exact refusal: [{ message, error }]
 * (`message` without id; `raw` when the data is not an object, whose reply has id null).
 */
export function malformedRequests({ kind, parameters }, random) {
  const names = parameters.map((p) => p.name);
  const figure = kind === 'figure';
  const cases = [];
  const add = (message, error, raw = false) => cases.push({ message, error, raw });
  for (const data of ['hello', 42, null, [1, 2], true, '{"phyxel":1,"action":"get"}']) add(data, 'A message must be an object { phyxel: 1, action: … }.', true);
  for (const phyxel of [undefined, 2, '1', null, 0, NaN]) {
    const message = { action: 'get' };
    if (phyxel !== undefined) message.phyxel = phyxel;
    add(message, 'A message needs phyxel: 1 (the API version).');
  }
  const describe = (value) => (JSON.stringify(value) ?? String(value));
  for (const action of [undefined, 42, null, {}, ['get'], 'GET', 'describe ', '', word(random), ...INHERITED]) {
    const message = { phyxel: 1 };
    if (action !== undefined) message.action = action;
    add(message, `Unknown action ${describe(action)}: use one of ${ACTIONS}.`);
  }
  const simulationOnly = ['play', 'pause', 'restart', 'step'];
  for (const action of ACTIONS.split(', ')) {
    for (const field of ['bogus', ...INHERITED.filter((n) => n !== '__proto__'), long(random, 300)]) {
      add({ phyxel: 1, action, [field]: 1 }, `Unknown field “${field.slice(0, 100)}” for ${action}.`);
    }
    if (figure && simulationOnly.includes(action)) add({ phyxel: 1, action }, `This demo is an interactive figure: it has no ${action}.`);
  }
  add({ phyxel: 1, action: 'set', value: 1 }, 'set needs the field “parameter”.');
  add({ phyxel: 1, action: 'set', parameter: names[0] }, 'set needs the field “value”.');
  add({ phyxel: 1, action: 'subscribe' }, 'subscribe needs the field “events”.');
  const unknownParameter = (p) => `Unknown parameter ${describe(p)}: this demo's are ${names.join(', ')}.`;
  for (const parameter of [1, null, {}, [], true, '', ' ', word(random), names[0].toUpperCase(), `${names[0]} `, ...INHERITED]) {
    add({ phyxel: 1, action: 'get', parameter }, unknownParameter(parameter));
    add({ phyxel: 1, action: 'set', parameter, value: 1 }, unknownParameter(parameter));
  }
  for (const value of [null, {}, [], [1], { valueOf: 1 }, undefined]) {
    add({ phyxel: 1, action: 'set', parameter: names[0], value }, 'value must be a string, number or boolean.');
  }
  if (!figure) {
    for (const steps of [0, -1, 1.5, 1001, 1e308, '5', NaN, Infinity, null, [], {}]) add({ phyxel: 1, action: 'step', steps }, 'steps must be a whole number from 1 to 1000.');
  }
  for (const action of ['subscribe', 'unsubscribe']) {
    for (const events of ['readouts', ['bogus'], [1], null, {}, ['constructor'], ['readouts', 'toString']]) {
      add({ phyxel: 1, action, events }, 'events must be a list of readouts, state, notice.');
    }
  }
  return cases;
}

/**
 * Hostile expressions (the SPH-approximation and MLS-gradient pages' `expression`), each with the
 * pattern of its refusal: budgets, names outside the whitelist, what math.js offers beyond arithmetic,
 * values that are not finite real numbers.
 */
export function hostileExpressions() {
  const nested = (open, n) => `${open.repeat(n)}x${')'.repeat(n)}`;
  return [
    [`${'-'.repeat(3000)}x`, /^The expression is 3001 characters long: at most 300 are allowed\.$/],
    [`${'-'.repeat(299)}x`, /^The expression is nested 299 levels deep: at most 30 are allowed\.$/],
    [`${'+'.repeat(40)}x`, /^The expression is nested 40 levels deep/],
    [`${'!'.repeat(40)}x`, /^The expression is nested 40 levels deep/],
    [nested('(', 40), /^The expression is nested 40 levels deep/],
    [nested('sin(', 31), /^The expression is nested 31 levels deep/],
    [`${'['.repeat(35)}x${']'.repeat(35)}`, /^The expression is nested 35 levels deep/],
    ['x'.repeat(301), /^The expression is 301 characters long/],
    [Array.from({ length: 70 }, () => 'x*y').join('+'), /^The expression has 279 terms and operations: at most 200 are allowed\.$/],
    [Array.from({ length: 101 }, () => 'x').join('+'), /^The expression has 201 terms and operations: at most 200 are allowed\.$/],
    ['constructor(x)', /^Unknown function constructor\.$/],
    ['toString(x)', /^Unknown function toString\.$/],
    ['hasOwnProperty(x)', /^Unknown function hasOwnProperty\.$/],
    ['valueOf', /^Unknown variable valueOf\.$/],
    ['__proto__', /^Unknown variable __proto__\.$/],
    ['x.constructor', /^(Not allowed in f\(x, y\)|Syntax error|Unknown)/],
    ['x["constructor"]', /^(Not allowed in f\(x, y\)|Syntax error|Only numbers)/],
    ['eval("1")', /^Unknown function eval\.$/],
    ['evaluate("x")', /^Unknown function evaluate\.$/],
    ['import("x")', /^(Unknown function import\.|Syntax error)/],
    ['alert(1)', /^Unknown function alert\.$/],
    ['derivative(x, x)', /^Unknown function derivative\.$/],
    ['simplify(x)', /^Unknown function simplify\.$/],
    ['createUnit("q")', /^Unknown function createUnit\.$/],
    ['x = 1', /^Not allowed in f\(x, y\): “x = 1”\.$/],
    ['f(x) = x', /^Not allowed in f\(x, y\)/],
    ['x; y', /^(Not allowed in f\(x, y\)|Syntax error)/],
    ['[x, y]', /^Not allowed in f\(x, y\)/],
    ['{a: x}', /^Not allowed in f\(x, y\)/],
    ['x ? y : 1', /^Not allowed in f\(x, y\)/],
    ['"text"', /^Only numbers are allowed, not "text"\.$/],
    ['x + 1 cm', /^(Unknown variable cm\.|Syntax error)/],
    ['i * x', /^Unknown variable i\.$/],
    ['1:3', /^Not allowed in f\(x, y\)/],
    ['<script>alert(1)</script>', /^Syntax error: /],
    ['${x}', /^Syntax error: /],
    ['x +', /^Syntax error: Unexpected end of expression \(char 4\)\.$/],
    ['sin(x', /^Syntax error: Parenthesis \) expected \(char 6\)\.$/],
    ['\u0000x', /^Syntax error: /],
    ['sqrt(-1 - x^2)', /is not a finite real number at/],
    ['log(0 * x)', /is not a finite real number at/],
    ['1 / (0 * x)', /is not a finite real number at/],
    ['exp(exp(exp(exp(x + 3))))', /is not a finite real number at/],
    ['NaN', /is not a finite real number at/],
    ['-Infinity', /is not a finite real number at/],
    ['undefined', /^Only numbers are allowed, not undefined\.$/],
    ['null', /^(Unknown variable null\.|Only numbers are allowed, not null\.)$/],
  ];
}
