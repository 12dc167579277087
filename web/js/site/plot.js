// Plots on uPlot (shipped in vendor/, no CDN). Live time series: points are appended as the simulation
// runs, the oldest dropped past `maxPoints`, redrawing throttled by the caller via `flush()`. Static
// curves: `replace()` sets all data at once.
import uPlot from '../../vendor/uplot/uPlot.esm.js';

/** `value` rounded down (or up) to the nearest 1, 2 or 5 times a power of ten. */
function roundLog(value, up) {
  const decade = 10 ** Math.floor(Math.log10(value));
  const steps = [1, 2, 5, 10].map((m) => m * decade);
  return up ? steps.find((s) => s >= value * (1 - 1e-12)) : steps.reverse().find((s) => s <= value * (1 + 1e-12));
}

/** A base-10 logarithmic scale: `range(min, max)` of the data, or 0.1 to 1 while there is none. */
const logScale = (range) => ({
  distr: 3,
  log: 10,
  range: (u, min, max) => (min > 0 && max > 0 ? range(min, max) : [0.1, 1]),
});
/** From the 1-2-5 step below the data to the one above it. */
const LOG_SCALE = logScale((min, max) => {
  const [low, high] = [roundLog(min, false), roundLog(max, true)];
  return [low, high > low ? high : roundLog(2 * high, true)];
});

export class LivePlot {
  /**
   * @param {HTMLElement} container
   * @param {{title: string, xLabel?: string, yLabel: string, series: {label: string, stroke: string, dash?: number[]}[], maxPoints?: number, xLog?: boolean, yLog?: boolean, xTicks?: number[], points?: boolean}} options
   *   `xLog` / `yLog`: logarithmic axes (values ≤ 0 are not drawn); `xTicks`: the abscissae to label (a
   *   fixed set of samples; the x axis then spans them, a little wider); `points`: mark every sample.
   */
  constructor(container, { title, xLabel = 't (s)', yLabel, series, maxPoints = 3000, xLog = false, yLog = false, xTicks = null, points = false }) {
    this.maxPoints = maxPoints;
    this.data = [[], ...series.map(() => [])];
    this.dirty = false;
    const width = Math.max(200, container.clientWidth);
    this.plot = new uPlot(
      {
        title,
        width,
        height: Math.round(Math.min(260, Math.max(160, width * 0.45))),
        scales: {
          x: {
            time: false,
            ...(xLog ? (xTicks ? logScale(() => [Math.min(...xTicks) / 1.25, Math.max(...xTicks) * 1.25]) : LOG_SCALE) : {}),
            ...(xTicks && !xLog ? { range: () => [Math.min(...xTicks), Math.max(...xTicks)] } : {}),
          },
          ...(yLog ? { y: LOG_SCALE } : {}),
        },
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
        axes: [
          {
            label: xLabel,
            // Every given tick labelled (a log axis would otherwise drop some).
            ...(xTicks ? { splits: () => xTicks, filter: (u, ticks) => ticks, values: (u, ticks) => ticks.map((v) => (v == null ? '' : String(+v.toPrecision(3)))) } : {}),
          },
          { label: yLabel, size: 60 },
        ],
        series: [
          { label: xLabel },
          ...series.map((s) => ({
            label: s.label, stroke: s.stroke, width: 1.5, dash: s.dash, spanGaps: false,
            ...(points ? { points: { show: true, size: 7, fill: s.stroke } } : {}),
          })),
        ],
      },
      this.data,
      container,
    );
    this.resizeObserver = new ResizeObserver(() => {
      const w = Math.max(200, container.clientWidth);
      this.plot.setSize({ width: w, height: Math.round(Math.min(260, Math.max(160, w * 0.45))) });
    });
    this.resizeObserver.observe(container);
  }

  /** Replace all data: abscissae `xs` and one column per series (null for a gap). */
  replace(xs, columns) {
    this.data = [xs, ...columns.map((c) => c.map((v) => (Number.isFinite(v) ? v : null)))];
    this.dirty = true;
    this.flush();
  }

  /** Append one sample: time `t` and one value per series (null for a gap). */
  push(t, values) {
    this.data[0].push(t);
    values.forEach((v, i) => this.data[i + 1].push(Number.isFinite(v) ? v : null));
    if (this.data[0].length > this.maxPoints) {
      for (const column of this.data) column.splice(0, column.length - this.maxPoints);
    }
    this.dirty = true;
  }

  clear() {
    for (const column of this.data) column.length = 0;
    this.dirty = true;
    this.flush();
  }

  /** Show or hide series `index` (0-based, not counting the time axis). */
  setShown(index, shown) {
    this.plot.setSeries(index + 1, { show: shown });
  }

  /** Redraw if anything was pushed since the last flush. */
  flush() {
    if (!this.dirty) return;
    this.dirty = false;
    this.plot.setData(this.data);
  }
}
