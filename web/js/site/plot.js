// Plots on uPlot (shipped in vendor/, no CDN). Live time series: points are appended as the simulation
// runs, the oldest dropped past `maxPoints`, redrawing throttled by the caller via `flush()`. Static
// curves: `replace()` sets all data at once.
import uPlot from '../../vendor/uplot/uPlot.esm.js';

export class LivePlot {
  /**
   * @param {HTMLElement} container
   * @param {{title: string, xLabel?: string, yLabel: string, series: {label: string, stroke: string, dash?: number[]}[], maxPoints?: number}} options
   */
  constructor(container, { title, xLabel = 't (s)', yLabel, series, maxPoints = 3000 }) {
    this.maxPoints = maxPoints;
    this.data = [[], ...series.map(() => [])];
    this.dirty = false;
    const width = Math.max(200, container.clientWidth);
    this.plot = new uPlot(
      {
        title,
        width,
        height: Math.round(Math.min(260, Math.max(160, width * 0.45))),
        scales: { x: { time: false } },
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
        axes: [{ label: xLabel }, { label: yLabel, size: 60 }],
        series: [
          { label: xLabel },
          ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 1.5, dash: s.dash, spanGaps: false })),
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
