/** A browser-like client of the console without a browser: keeps cookies, reads each form's CSRF token. */
export class ConsoleClient {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, form?: Record<string, string>) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0\b/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  /** The CSRF token of the forms on a page (GETting it also sets the pre-session cookie). */
  async csrf(pagePath: string): Promise<string> {
    const page = await this.request('GET', pagePath);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    if (!csrf) throw new Error(`no CSRF token on ${pagePath} (${page.status})`);
    return csrf;
  }

  /** GETs a page, then posts one of its forms with the page's CSRF token. */
  async submit(pagePath: string, action: string, form: Record<string, string>) {
    return this.request('POST', action, { ...form, _csrf: await this.csrf(pagePath) });
  }
}
