/**
 * The console's whole templating: a tagged template that HTML-escapes every interpolated value
 * unless it is already `Html` (the result of another `html` template). Arrays are joined; null,
 * undefined and false render nothing. See docs/adr/0014-console-server-rendered.md.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

export type Renderable = Html | string | number | boolean | null | undefined | Renderable[];

function render(value: Renderable): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A date for people: `2026-11-23 11:30 UTC`, or a dash. */
export function when(date: Date | string | null | undefined): string {
  if (!date) return '—';
  const iso = (typeof date === 'string' ? new Date(date) : date).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
