import { escapeHtml, html } from './html';

describe('console html template', () => {
  it('escapes interpolated text, attributes included', () => {
    const name = `<script>alert(1)</script>" onmouseover='x'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&#39;x&#39;">&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&#39;x&#39;</p>',
    );
  });

  it('keeps nested templates, joins arrays and drops null, undefined and false', () => {
    const items = ['a&b', 'c'].map((x) => html`<li>${x}</li>`);
    // prettier-ignore
    const out = html`<ul>${items}${null}${undefined}${false}</ul>`.value;
    expect(out).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
  });

  it('escapes the backtick too', () => {
    expect(escapeHtml('`')).toBe('&#96;');
  });
});
