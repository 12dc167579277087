// Shared by the SPH-approximation and MLS-gradient lessons: the test functions f(x, y) — presets and
// the reader's own expression — and the colour legend.
//
// Expressions are parsed and evaluated by math.js (shipped in vendor/mathjs, loaded by the page as a
// classic script that defines `math`), never by eval or new Function. Only numbers, x, y, the
// constants below, arithmetic and the whitelisted functions are accepted; the exact gradient comes
// from math.js's symbolic derivative, not simplified (central differences where it has none).
// Every expression is held to a budget before any work (EXPRESSION_BUDGET: length, nesting depth,
// nodes, and the derivative's nodes), so no input — typed, from the URL or a `set` message — can
// freeze the page or overflow the parser's stack.
import { paint } from '../site/painted.js';

const math = globalThis.math;

export const PRESETS = [
  { value: 'constant', label: 'Constant', expression: '1' },
  { value: 'linear', label: 'Linear', expression: '0.5 * (x + y)' },
  { value: 'quadratic', label: 'Quadratic', expression: '0.5 * (x^2 + y^2) - 1' },
  { value: 'trigonometric', label: 'Trigonometric', expression: 'sin(5 x) * cos(3 y)' },
];

const VARIABLES = new Set(['x', 'y']);
const CONSTANTS = new Set(['pi', 'e', 'tau', 'phi']);
const FUNCTIONS = new Set([
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'exp', 'log', 'log10',
  'log2', 'sqrt', 'cbrt', 'abs', 'sign', 'min', 'max', 'pow', 'hypot', 'floor', 'ceil', 'round', 'mod',
]);

/**
 * The most an expression may be: characters, nesting (brackets and signs in a row), nodes, and nodes of each
 * derivative (beyond it the gradient is by central differences). Sampling costs ~0.1 µs per node and
 * point on the page thread, and a figure samples ~2000 points: this keeps any input well under 1 s.
 */
export const EXPRESSION_BUDGET = { length: 300, depth: 30, nodes: 200, derivativeNodes: 1000 };

/**
 * Why `text` is too deeply nested to parse, or null: the depth of brackets plus the signs and `!`
 * in a row before an operand, counted on the text (math.js's parser recurses once per level).
 */
function nestingProblem(text) {
  let depth = 0;
  let deepest = 0;
  let prefix = 0;
  for (const ch of text) {
    if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth -= 1;
    if (ch === '-' || ch === '+' || ch === '!') prefix += 1;
    else if (ch !== ' ') prefix = 0;
    deepest = Math.max(deepest, depth + prefix);
  }
  return deepest > EXPRESSION_BUDGET.depth
    ? `The expression is nested ${deepest} levels deep: at most ${EXPRESSION_BUDGET.depth} are allowed.`
    : null;
}

/** The number of nodes of a math.js tree, counted without recursion. */
function treeSize(root) {
  let nodes = 0;
  const stack = [root];
  while (stack.length) {
    nodes += 1;
    stack.pop().forEach((child) => stack.push(child));
  }
  return { nodes };
}

/** Why `node` (a math.js expression tree) is not a plain function of x and y, or null. */
function refuse(node) {
  let problem = null;
  node.traverse((n, _path, parent) => {
    if (problem) return;
    if (n.isFunctionNode) {
      if (!FUNCTIONS.has(n.fn.name)) problem = `Unknown function ${n.fn.name ?? n.fn.toString()}.`;
    } else if (n.isSymbolNode) {
      const isCallee = parent?.isFunctionNode && parent.fn === n;
      if (!isCallee && !VARIABLES.has(n.name) && !CONSTANTS.has(n.name)) problem = `Unknown variable ${n.name}.`;
    } else if (n.isConstantNode) {
      if (typeof n.value !== 'number') problem = `Only numbers are allowed, not ${JSON.stringify(n.value)}.`;
    } else if (!(n.isOperatorNode || n.isParenthesisNode)) {
      problem = `Not allowed in f(x, y): “${n.toString()}”.`;
    }
  });
  return problem;
}

/** A compiled expression as a function of (x, y) that must return a finite real number. */
function compiled(node) {
  const code = node.compile();
  return (x, y) => code.evaluate({ x, y });
}

/**
 * Parse `text` as f(x, y). Returns {ok: true, value: {text, f, gradient}} with f(x, y) → number and
 * gradient(x, y) → [∂f/∂x, ∂f/∂y], or {ok: false, message} (with the position for syntax errors).
 */
export function parseFunction(text) {
  const trimmed = String(text).trim();
  if (trimmed === '') return { ok: false, message: 'Enter an expression in x and y.' };
  const budget = EXPRESSION_BUDGET;
  if (trimmed.length > budget.length) {
    return { ok: false, message: `The expression is ${trimmed.length} characters long: at most ${budget.length} are allowed.` };
  }
  const nested = nestingProblem(trimmed);
  if (nested) return { ok: false, message: nested };
  let node;
  try {
    node = math.parse(trimmed);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, message: 'The expression is nested too deeply to read.' };
    return { ok: false, message: `Syntax error: ${error.message}.` };
  }
  // The tree's depth is at most its node count: a long sum is deep but cheap, so only nodes count here.
  const size = treeSize(node);
  if (size.nodes > budget.nodes) return { ok: false, message: `The expression has ${size.nodes} terms and operations: at most ${budget.nodes} are allowed.` };
  const problem = refuse(node);
  if (problem) return { ok: false, message: problem };
  const f = compiled(node);
  let gradient;
  try {
    // Not simplified: math.js's default simplification takes seconds on a sum of products.
    const derivatives = ['x', 'y'].map((v) => math.derivative(node, v, { simplify: false }));
    if (derivatives.some((d) => treeSize(d).nodes > budget.derivativeNodes)) throw new RangeError('derivative too large');
    const [dx, dy] = derivatives.map(compiled);
    gradient = (x, y) => [dx(x, y), dy(x, y)];
  } catch {
    // Central differences where math.js has no symbolic derivative (or it is too large).
    gradient = (x, y) => {
      const e = 1e-6;
      return [(f(x + e, y) - f(x - e, y)) / (2 * e), (f(x, y + e) - f(x, y - e)) / (2 * e)];
    };
  }
  return { ok: true, value: { text: trimmed, f, gradient } };
}

/**
 * Sample `fn` (from parseFunction) at interleaved points [x₀, y₀, x₁, y₁, …]. Returns
 * {ok: true, values: Float64Array, gradients: Float64Array (interleaved)} or {ok: false, message}
 * naming the first point where f or its gradient is not a finite real number.
 */
export function sample(fn, points) {
  const n = points.length / 2;
  const values = new Float64Array(n);
  const gradients = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    const x = points[2 * k];
    const y = points[2 * k + 1];
    let v;
    let g;
    try {
      v = fn.f(x, y);
      g = fn.gradient(x, y);
    } catch (error) {
      return { ok: false, message: `Cannot evaluate at (${x.toFixed(2)}, ${y.toFixed(2)}): ${error.message}.` };
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return { ok: false, message: `f is not a finite real number at (x, y) = (${x.toFixed(2)}, ${y.toFixed(2)}).` };
    }
    if (!g.every((c) => typeof c === 'number' && Number.isFinite(c))) {
      return { ok: false, message: `∇f is not finite at (x, y) = (${x.toFixed(2)}, ${y.toFixed(2)}).` };
    }
    values[k] = v;
    gradients[2 * k] = g[0];
    gradients[2 * k + 1] = g[1];
  }
  return { ok: true, values, gradients };
}

/**
 * The function controls: a preset drop-down and the expression f(x, y) = … . Choosing a preset fills
 * in its expression; editing the expression selects "Your expression". `onChange(fn)` runs with each
 * new valid function; `check(fn)` may refuse one (returns an error message or null), e.g. when it is
 * not finite at the samples. Returns { get fn(), expression }.
 */
export function functionControls(panel, { value = 'trigonometric', check = () => null, onChange }) {
  let current = parseFunction(PRESETS.find((p) => p.value === value).expression).value;
  const choice = panel.select({
    param: 'function',
    id: 'function-select',
    label: 'Function',
    value,
    options: [...PRESETS.map(({ value: v, label }) => ({ value: v, label })), { value: 'custom', label: 'Your expression' }],
    onChange: (name) => {
      const preset = PRESETS.find((p) => p.value === name);
      if (preset) expression.set(preset.expression);
      else expression.input.focus();
    },
  });
  const expression = panel.text({
    param: 'expression',
    id: 'param-expression',
    label: 'f(x, y) =',
    value: current.text,
    parse: (text) => {
      const parsed = parseFunction(text);
      if (!parsed.ok) return parsed;
      const message = check(parsed.value);
      return message ? { ok: false, message } : parsed;
    },
    onChange: (fn) => {
      current = fn;
      const preset = PRESETS.find((p) => p.expression === fn.text);
      choice.select.value = preset ? preset.value : 'custom';
      onChange(fn);
    },
  });
  return {
    get fn() {
      return current;
    },
    expression,
  };
}

/** Fill `element` with a colour bar from `scale(t)`, t ∈ [0, 1], labelled `low` … `high`, then `extras`. */
export function colourLegend(element, { title, scale, low, high, extras = '' }) {
  const stops = Array.from({ length: 11 }, (_, k) => `${scale(k / 10)} ${k * 10}%`).join(', ');
  element.innerHTML = `<span>${title}</span>
    <span class="legend-bar"><span class="legend-low"></span><span class="legend-gradient"
      data-background="linear-gradient(to right, ${stops})"></span><span class="legend-high"></span></span>${extras}`;
  paint(element);
  element.querySelector('.legend-low').textContent = low;
  element.querySelector('.legend-high').textContent = high;
}
