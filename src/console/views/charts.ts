import { Html, html } from './html';

/** One line of a chart: a name and a value per x label (null: no figure then). */
export interface ChartSeries {
  name: string;
  values: Array<number | null>;
}

const COLOURS = ['#1f5fbf', '#b54708', '#067647', '#b42318', '#6941c6', '#0e7090'];
const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / step) * step;
}

/**
 * A line chart drawn on the server as SVG (docs/adr/0053): no script, no chart service, scales with
 * its container (viewBox). Its figures are in the table the page puts beside it (`describedBy`), so
 * the SVG itself carries only a title for assistive technology.
 */
export function lineChart(o: {
  title: string;
  labels: string[];
  series: ChartSeries[];
  testId?: string;
  describedBy?: string;
}): Html {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const max = niceMax(Math.max(0, ...o.series.flatMap((s) => s.values.filter((v): v is number => v !== null))));
  const n = o.labels.length;
  const x = (i: number) => PAD.left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const ticks = [0, max / 2, max];
  const every = Math.max(1, Math.ceil(n / 6));
  return html`<figure class="chart" ${o.testId ? html`data-testid="${o.testId}"` : ''}>
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-label="${o.title}"
      ${o.describedBy ? html`aria-describedby="${o.describedBy}"` : ''}
      xmlns="http://www.w3.org/2000/svg"
    >
      <title>${o.title}</title>
      ${ticks.map(
        (t) =>
          html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(t)}" y2="${y(t)}" stroke="#d8dde3" />
            <text x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11" fill="#5b6470">
              ${Number.isInteger(t) ? t : t.toFixed(1)}
            </text>`,
      )}
      ${o.labels.map((l, i) =>
        i % every === 0 || i === n - 1
          ? html`<text x="${x(i)}" y="${HEIGHT - 8}" text-anchor="middle" font-size="11" fill="#5b6470">${l}</text>`
          : '',
      )}
      ${o.series.map((s, si) => {
        const colour = COLOURS[si % COLOURS.length];
        const points = s.values
          .map((v, i) => (v === null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`))
          .filter((p): p is string => p !== null);
        return html`<g data-series="${s.name}">
          ${points.length > 1 ? html`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.join(' ')}" />` : ''}
          ${s.values.map((v, i) =>
            v === null ? '' : html`<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${colour}" />`,
          )}
        </g>`;
      })}
    </svg>
    <figcaption class="legend">
      ${o.series.map(
        (s, si) =>
          html`<span
            ><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
              <rect width="10" height="10" fill="${COLOURS[si % COLOURS.length]}" /></svg
            >${s.name}</span
          >`,
      )}
    </figcaption>
  </figure>`;
}

/** A horizontal bar chart drawn on the server as SVG; its figures are in the table beside it. */
export function barChart(o: {
  title: string;
  bars: Array<{ label: string; value: number }>;
  testId?: string;
  describedBy?: string;
}): Html {
  const row = 26;
  const labelW = 170;
  const height = PAD.top + o.bars.length * row + 8;
  const max = niceMax(Math.max(0, ...o.bars.map((b) => b.value)));
  const plotW = WIDTH - labelW - PAD.right - 40;
  return html`<figure class="chart" ${o.testId ? html`data-testid="${o.testId}"` : ''}>
    <svg
      viewBox="0 0 ${WIDTH} ${height}"
      role="img"
      aria-label="${o.title}"
      ${o.describedBy ? html`aria-describedby="${o.describedBy}"` : ''}
      xmlns="http://www.w3.org/2000/svg"
    >
      <title>${o.title}</title>
      ${o.bars.map((b, i) => {
        const y = PAD.top + i * row;
        const w = Math.max(1, (b.value / max) * plotW);
        return html`<text x="${labelW - 6}" y="${y + 16}" text-anchor="end" font-size="12" fill="#1b1f24"
            >${b.label}</text
          >
          <rect x="${labelW}" y="${y + 4}" width="${w.toFixed(1)}" height="16" fill="${COLOURS[0]}" rx="2" />
          <text x="${labelW + w + 6}" y="${y + 16}" font-size="12" fill="#5b6470">${b.value}</text>`;
      })}
    </svg>
  </figure>`;
}
