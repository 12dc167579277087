// Validated controls for the lesson panels. A value that is empty, not a number or out of range is
// explained next to its control and never reaches the simulation: the last valid value stays in force.
//
// Every control that a URL, the "Embed" snippet or the message API may set declares its public name
// (`param`): teachers' links use it, so it never follows the markup. The element's id is the page's own
// business (styles, tests) and may change freely; the name is written on it as `data-param`.

/** `text` as a refusal quotes it: at most 80 characters (an over-long input is not repeated back). */
export function clip(text) {
  const value = String(text);
  return value.length > 80 ? `${value.slice(0, 80)}… (${value.length} characters)` : value;
}

/**
 * Parse `text` as a number in [min, max] (a whole number when `integer`).
 * @returns {{ok: true, value: number} | {ok: false, message: string}}
 */
export function parseNumber(text, min, max, integer = false) {
  const trimmed = String(text).trim();
  if (trimmed === '') return { ok: false, message: 'Enter a number.' };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { ok: false, message: `“${clip(trimmed)}” is not a number.` };
  if (value < min || value > max) return { ok: false, message: `Must be between ${min} and ${max}.` };
  if (integer && !Number.isInteger(value)) return { ok: false, message: 'Must be a whole number.' };
  return { ok: true, value };
}

let nextId = 0;

/**
 * Every named control of a page, by parameter name: what URL state, "Copy link", the embed snippet
 * and the message API read and set. Each entry is { name, kind, label, describe, defaultText, get(),
 * set(text) }, where `get()` returns the current value as text and `set(text)` returns null when the
 * text was accepted or the reason it was refused (the control keeps its last valid value).
 */
export class ParameterRegistry {
  constructor() {
    this.entries = new Map();
  }

  add(entry) {
    if (this.entries.has(entry.name)) throw new Error(`two controls are named ${entry.name}`);
    this.entries.set(entry.name, { ...entry, defaultText: entry.get() });
  }

  get(name) {
    return this.entries.get(name);
  }

  names() {
    return [...this.entries.keys()];
  }

  /** Current values as text, by name (only those that differ from their defaults with `changedOnly`). */
  values({ changedOnly = false } = {}) {
    const values = {};
    for (const [name, entry] of this.entries) {
      const text = entry.get();
      if (!changedOnly || text !== entry.defaultText) values[name] = text;
    }
    return values;
  }
}

/**
 * The control options for parameter `name` of a solver's parameter table (a lesson binding's
 * `parameters()`: [{ name, min, max, integer, default }]): its public name, range and default.
 */
export function fromTable(table, name) {
  const entry = table.find((p) => p.name === name);
  if (!entry) throw new Error(`the solver has no parameter named ${name}`);
  return { param: entry.name, min: entry.min, max: entry.max, integer: entry.integer, value: entry.default };
}

/** The defaults of a solver's parameter table, by name: { name: default }. */
export function defaults(table) {
  return Object.fromEntries(table.map((p) => [p.name, p.default]));
}

/** Builds labelled, validated controls inside a container element. */
export class ControlPanel {
  constructor(container, registry = new ParameterRegistry()) {
    this.container = container;
    this.registry = registry;
  }

  /** Register a control under its public name `param` (controls without one are not parameters). */
  register(param, element, entry) {
    if (!param) return;
    element.dataset.param = param;
    this.registry.add({ name: param, ...entry });
  }

  /** A titled group of controls that can be shown or hidden together. */
  group(title) {
    const fieldset = document.createElement('fieldset');
    fieldset.className = 'control-group';
    if (title) {
      const legend = document.createElement('legend');
      legend.textContent = title;
      fieldset.append(legend);
    }
    this.container.append(fieldset);
    const panel = new ControlPanel(fieldset, this.registry);
    panel.setVisible = (visible) => {
      fieldset.hidden = !visible;
    };
    return panel;
  }

  /**
   * A labelled text input with a place for its error, appended to the panel: { row, input, showError }.
   * `showError(message, current)` explains a refusal (empty message: none) and names the value in force.
   */
  field({ id, param, label, wide, attributes }) {
    const row = document.createElement('div');
    row.className = wide ? 'control wide' : 'control';
    const inputId = id || (param ? `param-${param}` : `control-${nextId++}`);
    const errorId = `${inputId}-error`;
    row.innerHTML = `
      <label for="${inputId}"></label>
      <span class="control-input"><input id="${inputId}" name="${inputId}" type="text" ${attributes}
        autocomplete="off" spellcheck="false" aria-describedby="${errorId}"><span class="unit"></span></span>
      <span class="control-error" id="${errorId}" role="alert" aria-live="polite"></span>`;
    row.querySelector('label').innerHTML = label;
    const input = row.querySelector('input');
    const error = row.querySelector('.control-error');
    const showError = (message, current) => {
      error.textContent = message ? `${message} Still using ${current}.` : '';
      input.setAttribute('aria-invalid', message ? 'true' : 'false');
      row.classList.toggle('invalid', Boolean(message));
    };
    this.container.append(row);
    return { row, input, showError };
  }

  /**
   * A numeric control named `param` in URLs and messages. `onChange(value)` runs with each new valid
   * value; if it throws (or returns a promise that rejects), the value is refused with the error's
   * message. `integer`: whole numbers only. Returns { get value(), set(value), input, reject(message) }.
   */
  number({ id, param, label, unit = '', min, max, integer = false, value, help = '', onChange }) {
    const { row, input, showError: show } = this.field({ id, param, label, attributes: 'inputmode="decimal"' });
    row.querySelector('.unit').textContent = unit;
    if (help) row.title = help;
    input.value = String(value);
    let current = value;
    const showError = (message) => show(message, current);
    // Returns null when `text` is in force, or the reason it was refused.
    const accept = (text) => {
      const parsed = parseNumber(text, min, max, integer);
      if (!parsed.ok) {
        showError(parsed.message);
        return parsed.message;
      }
      if (parsed.value !== current) {
        // The solver may still refuse a value in range (too many phyxels, say): onChange throws,
        // the previous value stays in force, and the reason appears here.
        const previous = current;
        current = parsed.value;
        const refuse = (error) => {
          current = previous;
          const message = error.message.replace(/\.?$/, '.');
          showError(message);
          return message;
        };
        try {
          // A solver in a lesson worker answers later: its refusal restores the value then.
          const pending = onChange?.(current);
          const accepted = current;
          pending?.then?.(null, (error) => {
            if (current === accepted) refuse(error);
          });
        } catch (error) {
          return refuse(error);
        }
      }
      showError('');
      return null;
    };
    const setText = listen(input, accept);
    this.register(param, input, {
      kind: 'number',
      label: row.querySelector('label').textContent,
      describe: `${integer ? 'a whole number' : 'a number'} from ${min} to ${max}${unit ? ` (${unit})` : ''}`,
      range: { min, max, integer },
      get: () => String(current),
      set: (text) => setText(String(text)),
    });
    return {
      input,
      get value() {
        return current;
      },
      /** Set from code (a drag, a preset): validated like typed input. */
      set(v) {
        return setText(String(v)) === null;
      },
      /** Show an error for this control that came from elsewhere (e.g. the solver). */
      reject(message) {
        showError(message);
      },
    };
  }

  /**
   * A text control (e.g. a formula) named `param`. `parse(text)` returns {ok: true, value} or
   * {ok: false, message}; `onChange(value, text)` runs with each new valid value. A refused text is
   * explained at the control and the last valid one stays in force.
   * Returns { get text(), set(text), input, reject(message) }.
   */
  text({ id, param, label, value, parse, onChange, wide = true }) {
    const { row, input, showError: show } = this.field({ id, param, label, wide, attributes: 'autocapitalize="off"' });
    row.querySelector('.unit').remove();
    input.value = value;
    let current = value;
    const showError = (message) => show(message, current);
    const accept = (text) => {
      const parsed = parse(text);
      if (!parsed.ok) {
        showError(parsed.message);
        return parsed.message;
      }
      showError('');
      if (text !== current) {
        current = text;
        onChange?.(parsed.value, text);
      }
      return null;
    };
    const setText = listen(input, accept);
    this.register(param, input, {
      kind: 'text',
      label: row.querySelector('label').textContent,
      describe: 'text',
      get: () => current,
      set: (text) => setText(String(text)),
    });
    return {
      input,
      get text() {
        return current;
      },
      set(text) {
        return setText(text) === null;
      },
      reject(message) {
        showError(message);
      },
    };
  }

  /** A drop-down named `param`. `options` is [{ value, label }]. */
  select({ id, param, label, options, value, onChange }) {
    const row = document.createElement('div');
    row.className = 'control';
    const selectId = id || (param ? `${param}-select` : `control-${nextId++}`);
    row.innerHTML = `<label for="${selectId}"></label><select id="${selectId}" name="${selectId}"></select>`;
    row.querySelector('label').textContent = label;
    const select = row.querySelector('select');
    for (const option of options) select.add(new Option(option.label, option.value, false, option.value === value));
    select.addEventListener('change', () => onChange?.(select.value));
    this.container.append(row);
    const values = options.map((option) => option.value);
    this.register(param, select, {
      kind: 'choice',
      label,
      describe: `one of ${values.join(', ')}`,
      choices: values,
      get: () => select.value,
      set: (text) => {
        const value = String(text);
        if (!values.includes(value)) return `“${clip(value)}” is not one of ${values.join(', ')}.`;
        if (select.value !== value) {
          select.value = value;
          select.dispatchEvent(new Event('change'));
        }
        return null;
      },
    });
    return {
      select,
      get value() {
        return select.value;
      },
    };
  }

  /** A checkbox named `param`, with an optional colour swatch (a plot series). */
  checkbox({ id, param, label, checked, color, onChange }) {
    const row = document.createElement('label');
    row.className = 'control checkbox';
    const boxId = id || (param ? `param-${param}` : `control-${nextId++}`);
    row.innerHTML = `<input type="checkbox" id="${boxId}" name="${boxId}"><span class="swatch"></span><span></span>`;
    const box = row.querySelector('input');
    box.checked = checked;
    const swatch = row.querySelector('.swatch');
    if (color) swatch.style.background = color;
    else swatch.remove();
    row.lastElementChild.textContent = label;
    box.addEventListener('change', () => onChange?.(box.checked));
    this.container.append(row);
    this.register(param, box, {
      kind: 'switch',
      label,
      describe: 'on or off (1 / 0, true / false)',
      get: () => (box.checked ? '1' : '0'),
      set: (text) => {
        const checked = parseSwitch(text);
        if (checked === null) return `“${clip(text)}” is not on or off: use 1 or 0.`;
        if (box.checked !== checked) {
          box.checked = checked;
          box.dispatchEvent(new Event('change'));
        }
        return null;
      },
    });
    return {
      input: box,
      get checked() {
        return box.checked;
      },
    };
  }
}

/** Validate `input`'s text with `accept` as it is typed; returns setText(text) for code and messages. */
function listen(input, accept) {
  input.addEventListener('input', () => accept(input.value));
  input.addEventListener('change', () => accept(input.value));
  return (text) => {
    input.value = text;
    return accept(text);
  };
}

/** "1", "true", "on", "yes" → true; "0", "false", "off", "no" → false; anything else → null. */
export function parseSwitch(text) {
  const word = String(text).trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(word)) return true;
  if (['0', 'false', 'off', 'no'].includes(word)) return false;
  return null;
}
