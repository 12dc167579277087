// Typeset the theory's equations with KaTeX (shipped in vendor/, no CDN). Delimiters: $$…$$ and \[…\]
// for display math, $…$ and \(…\) inline.
import katex from '../../vendor/katex/katex.mjs';
import renderMathInElement from '../../vendor/katex/contrib/auto-render.mjs';

export function typesetMath(root = document.body) {
  renderMathInElement(root, {
    delimiters: [
      { left: '$$', right: '$$', display: true },
      { left: '\\[', right: '\\]', display: true },
      { left: '$', right: '$', display: false },
      { left: '\\(', right: '\\)', display: false },
    ],
    // A formula KaTeX cannot parse stays as its source and is reported on the console (the E2E
    // harness fails on it): with throwOnError false KaTeX would draw the error with a style
    // attribute, which the site's Content-Security-Policy (style-src 'self') refuses.
    throwOnError: true,
    errorCallback: (message, error) => console.error(message, error),
  });
}

/** Typeset one LaTeX string into `element` (replacing its content). */
export function renderLatex(element, tex, displayMode = true) {
  try {
    katex.render(tex, element, { displayMode, throwOnError: true });
  } catch (error) {
    // Shown as its source, marked (class katex-error, styled by KaTeX's CSS) instead of KaTeX's own
    // error markup, whose inline style the Content-Security-Policy refuses.
    element.textContent = tex;
    element.classList.add('katex-error');
    element.title = error.message;
  }
}

/** A 2×2 matrix [a11, a12, a21, a22] as LaTeX with `digits` decimals (−0.000 shown as 0.000). */
export function matrixLatex([a, b, c, d], digits = 3) {
  const f = (x) => {
    const s = x.toFixed(digits);
    return Number(s) === 0 ? (0).toFixed(digits) : s;
  };
  return `\\begin{pmatrix} ${f(a)} & ${f(b)} \\\\ ${f(c)} & ${f(d)} \\end{pmatrix}`;
}
