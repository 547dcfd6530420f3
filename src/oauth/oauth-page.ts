const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The small page the callback shows when there is no redirectUri (or the state cannot be trusted). */
export function renderOAuthPage(title: string, message: string, errorCode?: string): string {
  const code = errorCode ? `<p>Error code: <code id="error-code">${escape(errorCode)}</code></p>` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
    `<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem">` +
    `<h1>${escape(title)}</h1><p>${escape(message)}</p>${code}</body></html>`
  );
}
