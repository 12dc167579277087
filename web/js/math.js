// Typeset the theory's equations with KaTeX (shipped in vendor/, no CDN). Delimiters: $$…$$ and \[…\]
// for display math, $…$ and \(…\) inline.
import renderMathInElement from '../vendor/katex/contrib/auto-render.mjs';

export function typesetMath(root = document.body) {
  renderMathInElement(root, {
    delimiters: [
      { left: '$$', right: '$$', display: true },
      { left: '\\[', right: '\\]', display: true },
      { left: '$', right: '$', display: false },
      { left: '\\(', right: '\\)', display: false },
    ],
    throwOnError: false,
  });
}
