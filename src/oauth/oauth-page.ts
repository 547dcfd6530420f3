import type { PendingConnection } from './oauth.service';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
    `<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem">` +
    `<h1>${escape(title)}</h1>${body}</body></html>`
  );
}

/** The small page the callback shows when there is no redirectUri (or the state cannot be trusted). */
export function renderOAuthPage(title: string, message: string, errorCode?: string): string {
  const code = errorCode ? `<p>Error code: <code id="error-code">${escape(errorCode)}</code></p>` : '';
  return page(title, `<p>${escape(message)}</p>${code}`);
}

/** The page listing the accounts of an authorization when there is no redirectUri to send them to. */
export function renderConnectionPage(connection: PendingConnection): string {
  const items = connection.targets
    .map(
      (t) =>
        `<li><strong>${escape(t.name)}</strong> (${escape(t.kind)}) <code>${escape(t.id)}</code>` +
        `${t.channelId ? ` already connected as channel <code>${escape(t.channelId)}</code>` : ''}</li>`,
    )
    .join('');
  return page(
    'Choose the accounts to connect',
    `<p>This authorization reaches several accounts:</p><ul>${items}</ul>` +
      `<p>Connection <code id="connection-id">${escape(connection.id)}</code>: choose with ` +
      `<code>POST /api/oauth/connections/${escape(connection.id)}/channels</code> and <code>{"targetIds": [...]}</code> ` +
      `before ${escape(connection.expiresAt.toISOString())}.</p>`,
  );
}
