// Colours for markup built as text. Under the site's Content-Security-Policy (style-src 'self', see
// docs/hosting.md) a style="…" attribute in markup is refused, while a style set from script (CSSOM) is
// not: markup names a computed colour or gradient as data-background="…", and paint() applies it.

/** Set `el.style.background` from `data-background` for `root` and every element inside it. */
export function paint(root) {
  const elements = root.matches?.('[data-background]') ? [root] : [];
  elements.push(...root.querySelectorAll('[data-background]'));
  for (const element of elements) {
    element.style.background = element.dataset.background;
    element.removeAttribute('data-background');
  }
  return root;
}
