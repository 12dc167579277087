// Loaded in every lesson's <head>, before the page paints: `?embed=1` (what embed.html opens) draws
// the page chrome-less — the simulation and its panel only — so an iframe shows no flash of the site.
if (new URLSearchParams(location.search).get('embed') === '1') document.documentElement.classList.add('embed');
