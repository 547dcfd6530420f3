import type { ApiKey } from '../../auth/api-key.entity';
import { KEY_ENVIRONMENTS } from '../../auth/api-key.format';
import { ALL_SCOPES, SCOPES, SCOPE_DESCRIPTIONS, holdsScope } from '../../auth/scopes.format';
import { Html, html, when } from './html';
import { PageContext, confirmPage, csrfField, layout, notice, oneTimeSecret } from './layout';

function status(k: ApiKey, now: number): Html {
  if (k.revokedAt) return html`<span class="badge bad">revoked</span>`;
  if (k.expiresAt && k.expiresAt.getTime() <= now) return html`<span class="badge off">expired</span>`;
  return html`<span class="badge ok">active</span>`;
}

export function keysPage(
  ctx: PageContext,
  o: {
    keys: ApiKey[];
    newKey?: { key: string; name: string } | null;
    error?: string;
    defaultEnvironment: string;
    /** What the signed-in user holds: the scopes a key they create may have. */
    heldScopes: readonly string[];
    more: boolean;
  },
): Html {
  const all = o.heldScopes.includes(ALL_SCOPES);
  const now = Date.now();
  return layout(
    ctx,
    'API keys',
    html`<h1>Account settings · API keys</h1>
      ${notice('error', o.error)}
      ${
        o.newKey
          ? oneTimeSecret(
              `New key “${o.newKey.name}”`,
              o.newKey.key,
              'new-api-key',
              'Copy this key now and store it somewhere safe. It is shown only once: after you leave or reload this page it cannot be shown again.',
            )
          : ''
      }
      <section class="card">
        <h2>Create a key</h2>
        <form class="stack" method="post" action="/console/keys">
          ${csrfField(ctx)}
          <label
            >Name <span class="hint">What uses the key, e.g. “ci” or “blog scheduler”.</span>
            <input name="name" maxlength="100" required
          /></label>
          <label
            >Environment <span class="hint">A server refuses keys made for another environment.</span>
            <select name="environment">
              ${KEY_ENVIRONMENTS.map((e) => html`<option value="${e}" ${e === o.defaultEnvironment ? html`selected` : ''}>${e}</option>`)}
            </select></label
          >
          <fieldset class="scopes">
            <legend>What the key may do</legend>
            <input type="hidden" name="scopesShown" value="1" />
            ${
              all
                ? html`<label class="check"
                    ><input type="checkbox" name="scopes" value="*" checked />
                    <span class="check-text"
                      >Everything <span class="hint">Every scope below, and any added later.</span></span
                    ></label
                  >`
                : ''
            }
            ${SCOPES.filter((s) => holdsScope(o.heldScopes, s)).map(
              (s) =>
                html`<label class="check"
                  ><input type="checkbox" name="scopes" value="${s}" ${all ? '' : html`checked`} />
                  <span class="check-text">${SCOPE_DESCRIPTIONS[s]} <code>${s}</code></span></label
                >`,
            )}
            <span class="hint"
              >Give a key only what it needs: a key for a CMS that drafts posts needs posts:write.</span
            >
          </fieldset>
          <label
            >Expires on (optional) <span class="hint">The key stops working at the end of this day (UTC).</span>
            <input type="date" name="expiresOn"
          /></label>
          <div><button type="submit">Create key</button></div>
        </form>
      </section>
      <h2>Keys of this workspace</h2>
      <div class="table-wrap">
        <table class="rows">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Environment</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col"><span class="muted">Action</span></th>
            </tr>
          </thead>
          <tbody>
            ${
              o.keys.length
                ? o.keys.map(
                    (k) =>
                      html`<tr data-testid="api-key-row">
                        <td class="wrap" data-label="Name">${k.name}</td>
                        <td data-label="Prefix"><code>${k.prefix}…</code></td>
                        <td data-label="Environment">${k.environment ?? 'any (older key)'}</td>
                        <td class="wrap" data-label="Scopes">
                          ${k.scopes.includes(ALL_SCOPES) ? 'everything' : k.scopes.join(', ')}
                        </td>
                        <td data-label="Created">${when(k.createdAt)}</td>
                        <td data-label="Last used">${k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td>
                        <td data-label="Expires">${k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                        <td data-label="Status">${status(k, now)}</td>
                        <td>
                          ${k.revokedAt ? '' : html`<a class="button danger" data-testid="revoke-key" href="/console/keys/${k.id}/revoke" aria-label="Revoke key ${k.name}">Revoke</a>`}
                        </td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="9" class="muted">No keys yet.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      ${o.more ? html`<p class="muted">Showing the 100 newest keys.</p>` : ''}`,
  );
}

export function revokeKeyPage(ctx: PageContext, key: ApiKey): Html {
  return confirmPage(ctx, {
    title: 'Revoke key',
    question: 'Revoke this key?',
    body: html`<p>
        Key <strong>${key.name}</strong> (<code>${key.prefix}…</code>, ${key.environment ?? 'any environment'}).
      </p>
      <p>Every request made with it is refused from the next request on. This cannot be undone.</p>`,
    action: `/console/keys/${key.id}/revoke`,
    button: 'Revoke key',
    cancelHref: '/console/keys',
  });
}
