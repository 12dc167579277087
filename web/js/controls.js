// Validated controls for the lesson panels. A value that is empty, not a number or out of range is
// explained next to its control and never reaches the simulation: the last valid value stays in force.

/**
 * Parse `text` as a number in [min, max].
 * @returns {{ok: true, value: number} | {ok: false, message: string}}
 */
export function parseNumber(text, min, max) {
  const trimmed = String(text).trim();
  if (trimmed === '') return { ok: false, message: 'Enter a number.' };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { ok: false, message: `“${trimmed}” is not a number.` };
  if (value < min || value > max) return { ok: false, message: `Must be between ${min} and ${max}.` };
  return { ok: true, value };
}

let nextId = 0;

/** Builds labelled, validated controls inside a container element. */
export class ControlPanel {
  constructor(container) {
    this.container = container;
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
    const panel = new ControlPanel(fieldset);
    panel.setVisible = (visible) => {
      fieldset.hidden = !visible;
    };
    return panel;
  }

  /**
   * A numeric control. `onChange(value)` runs with each new valid value; if it throws, the value is
   * refused with the error's message.
   * Returns { get value(), set(value), input }.
   */
  number({ id, label, unit = '', min, max, value, help = '', onChange }) {
    const row = document.createElement('div');
    row.className = 'control';
    const inputId = id || `control-${nextId++}`;
    const errorId = `${inputId}-error`;
    row.innerHTML = `
      <label for="${inputId}"></label>
      <span class="control-input"><input id="${inputId}" name="${inputId}" type="text" inputmode="decimal"
        autocomplete="off" spellcheck="false" aria-describedby="${errorId}"><span class="unit"></span></span>
      <span class="control-error" id="${errorId}" role="alert" aria-live="polite"></span>`;
    row.querySelector('label').innerHTML = label;
    row.querySelector('.unit').textContent = unit;
    if (help) row.title = help;
    const input = row.querySelector('input');
    const error = row.querySelector('.control-error');
    input.value = String(value);
    let current = value;

    const showError = (message) => {
      error.textContent = message ? `${message} Still using ${current}.` : '';
      input.setAttribute('aria-invalid', message ? 'true' : 'false');
      row.classList.toggle('invalid', Boolean(message));
    };
    const accept = (text) => {
      const parsed = parseNumber(text, min, max);
      if (!parsed.ok) {
        showError(parsed.message);
        return false;
      }
      if (parsed.value !== current) {
        // The solver may still refuse a value in range (too many phyxels, say): onChange throws,
        // the previous value stays in force, and the reason appears here.
        const previous = current;
        current = parsed.value;
        try {
          onChange?.(current);
        } catch (error) {
          current = previous;
          showError(error.message.replace(/\.?$/, '.'));
          return false;
        }
      }
      showError('');
      return true;
    };
    input.addEventListener('input', () => accept(input.value));
    input.addEventListener('change', () => accept(input.value));
    this.container.append(row);
    return {
      input,
      get value() {
        return current;
      },
      /** Set from code (a drag, a preset): validated like typed input. */
      set(v) {
        input.value = String(v);
        return accept(input.value);
      },
      /** Show an error for this control that came from elsewhere (e.g. the solver). */
      reject(message) {
        showError(message);
      },
    };
  }

  /**
   * A text control (e.g. a formula). `parse(text)` returns {ok: true, value} or {ok: false, message};
   * `onChange(value, text)` runs with each new valid value. A refused text is explained at the control
   * and the last valid one stays in force. Returns { get text(), set(text), input, reject(message) }.
   */
  text({ id, label, value, parse, onChange, wide = true }) {
    const row = document.createElement('div');
    row.className = wide ? 'control wide' : 'control';
    const inputId = id || `control-${nextId++}`;
    const errorId = `${inputId}-error`;
    row.innerHTML = `
      <label for="${inputId}"></label>
      <span class="control-input"><input id="${inputId}" name="${inputId}" type="text" autocomplete="off"
        spellcheck="false" autocapitalize="off" aria-describedby="${errorId}"></span>
      <span class="control-error" id="${errorId}" role="alert" aria-live="polite"></span>`;
    row.querySelector('label').innerHTML = label;
    const input = row.querySelector('input');
    const error = row.querySelector('.control-error');
    input.value = value;
    let current = value;

    const showError = (message) => {
      error.textContent = message ? `${message} Still using ${current}.` : '';
      input.setAttribute('aria-invalid', message ? 'true' : 'false');
      row.classList.toggle('invalid', Boolean(message));
    };
    const accept = (text) => {
      const parsed = parse(text);
      if (!parsed.ok) {
        showError(parsed.message);
        return false;
      }
      showError('');
      if (text !== current) {
        current = text;
        onChange?.(parsed.value, text);
      }
      return true;
    };
    input.addEventListener('input', () => accept(input.value));
    input.addEventListener('change', () => accept(input.value));
    this.container.append(row);
    return {
      input,
      get text() {
        return current;
      },
      set(text) {
        input.value = text;
        return accept(text);
      },
      reject(message) {
        showError(message);
      },
    };
  }

  /** A drop-down. `options` is [{ value, label }]. */
  select({ id, label, options, value, onChange }) {
    const row = document.createElement('div');
    row.className = 'control';
    const selectId = id || `control-${nextId++}`;
    row.innerHTML = `<label for="${selectId}"></label><select id="${selectId}" name="${selectId}"></select>`;
    row.querySelector('label').textContent = label;
    const select = row.querySelector('select');
    for (const option of options) select.add(new Option(option.label, option.value, false, option.value === value));
    select.addEventListener('change', () => onChange?.(select.value));
    this.container.append(row);
    return {
      select,
      get value() {
        return select.value;
      },
    };
  }

  /** A checkbox with an optional colour swatch (a plot series). */
  checkbox({ id, label, checked, color, onChange }) {
    const row = document.createElement('label');
    row.className = 'control checkbox';
    const boxId = id || `control-${nextId++}`;
    row.innerHTML = `<input type="checkbox" id="${boxId}" name="${boxId}"><span class="swatch"></span><span></span>`;
    const box = row.querySelector('input');
    box.checked = checked;
    const swatch = row.querySelector('.swatch');
    if (color) swatch.style.background = color;
    else swatch.remove();
    row.lastElementChild.textContent = label;
    box.addEventListener('change', () => onChange?.(box.checked));
    this.container.append(row);
    return {
      input: box,
      get checked() {
        return box.checked;
      },
    };
  }
}
