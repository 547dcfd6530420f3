import type { ConnectLinkDto } from '../../connect-links/dto/connect-link.dto';
import type { ProviderDto } from '../../providers/dto/provider.dto';
import type { CredentialField } from '../credential-fields';
import { TargetChoice, credentialInput } from './channels.page';
import { Html, Renderable, html, when } from './html';
import { PageContext, confirmPage, layout, notice } from './layout';

/** What the hosted page shows of its link. */
export interface HostedLink {
  brandName: string | null;
  expiresAt: Date;
}

/** The hosted page of a link (its token is the only thing in the path). */
export const hostedHref = (token: string, providerId?: string) =>
  `/connect/${encodeURIComponent(token)}${providerId ? `/${encodeURIComponent(providerId)}` : ''}`;

/**
 * The shell of the hosted connect pages: the console's stylesheet, no script, no navigation (the
 * person has no account here), the platform's name in the header.
 */
function hostedLayout(title: string, brandName: string | null, body: Renderable): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}${brandName ? ` · ${brandName}` : ''}</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
      </head>
      <body class="hosted">
        <header class="top">
          <span class="brand" data-testid="brand-name">${brandName ?? 'Connect your accounts'}</span>
        </header>
        <main id="main">${body}</main>
      </body>
    </html>`;
}

/** The page a link opens: the networks it allows, one tile each. */
export function hostedLinkPage(o: { link: HostedLink; token: string; networks: ProviderDto[] }): Html {
  const who = o.link.brandName ? html`<strong>${o.link.brandName}</strong>` : 'this service';
  return hostedLayout(
    'Connect an account',
    o.link.brandName,
    html`<div class="card narrow">
      <h1>Connect an account</h1>
      <p>Choose a network to connect one of your accounts to ${who}. It can then publish for you there.</p>
      <ul class="tiles" aria-label="Networks">
        ${o.networks.map(
          (n) =>
            html`<li>
              <a class="tile" href="${hostedHref(o.token, n.id)}" data-testid="network-tile" data-network="${n.id}">
                <span class="name">${n.name}</span>
                <span class="muted">${n.connect === 'oauth' ? 'Sign in on the network' : 'Connect with a form'}</span>
              </a>
            </li>`,
        )}
      </ul>
      <p class="muted">This link can be used until ${when(o.link.expiresAt)}.</p>
      <p><a href="${hostedHref(o.token)}/cancel" data-testid="cancel">Cancel and go back</a></p>
    </div>`,
  );
}

/** One network's step: its sign-in button (OAuth) or its credentials form (the sandbox: one form). */
export function hostedNetworkPage(o: {
  link: HostedLink;
  token: string;
  csrf: string;
  network: ProviderDto;
  fields: CredentialField[] | null;
  error?: string | null;
}): Html {
  const action = hostedHref(o.token, o.network.id);
  const csrf = html`<input type="hidden" name="_csrf" value="${o.csrf}" />`;
  const label = (f: CredentialField) =>
    html`<label
      >${f.label}${f.required ? '' : html` <span class="hint">(optional)</span>`}
      ${f.hint ? html`<span class="hint">${f.hint}</span>` : ''} ${credentialInput(f)}</label
    >`;
  const optional = o.fields?.filter((f) => !f.required) ?? [];
  // The fields a person must fill first; the optional ones (the sandbox's settings) folded away.
  const form = o.fields
    ? html`<form class="stack" method="post" action="${action}" data-testid="credentials-form">
        ${csrf} ${o.fields.filter((f) => f.required).map(label)}
        ${
          optional.length > 0
            ? html`<details class="stack">
                <summary>More settings (optional)</summary>
                ${optional.map(label)}
              </details>`
            : ''
        }
        <div><button type="submit">Connect ${o.network.name}</button></div>
      </form>`
    : html`<p class="muted">You sign in on ${o.network.name} and allow access; you come back afterwards.</p>
        <form method="post" action="${action}">
          ${csrf}
          <button type="submit" data-testid="oauth-start">Continue to ${o.network.name}</button>
        </form>`;
  return hostedLayout(
    `Connect ${o.network.name}`,
    o.link.brandName,
    html`<div class="card narrow">
      <h1>Connect ${o.network.name}</h1>
      ${notice('error', o.error)} ${form}
      <p><a href="${hostedHref(o.token)}">Choose another network</a></p>
    </div>`,
  );
}

/** The accounts an authorization started from the link reaches: each one chosen becomes a channel. */
export function hostedChoosePage(o: {
  link: HostedLink;
  csrf: string;
  connectionId: string;
  network: string;
  targets: TargetChoice[];
}): Html {
  return hostedLayout(
    `Choose ${o.network} accounts`,
    o.link.brandName,
    html`<div class="card narrow">
      <h1>Choose ${o.network} accounts</h1>
      <p>You can publish as these accounts. Each one you choose is connected.</p>
      <form class="stack" method="post" action="/connect/choose/${o.connectionId}">
        <input type="hidden" name="_csrf" value="${o.csrf}" />
        <fieldset>
          <legend>Accounts</legend>
          ${o.targets.map(
            (t, i) =>
              html`<label class="check" data-testid="target-choice"
                ><input type="checkbox" name="targetIds" value="${t.id}" ${i === 0 ? html`checked` : ''} />
                ${t.name}
                <span class="muted">${t.kind === 'organization' ? 'page' : t.handle}</span></label
              >`,
          )}
        </fieldset>
        <div><button type="submit">Connect selected</button></div>
      </form>
    </div>`,
  );
}

/** A link that cannot be used (revoked, expired or unknown) or a refusal (403, 429): a page that says so. */
export function hostedMessagePage(title: string, message: string, brandName: string | null = null): Html {
  return hostedLayout(
    title,
    brandName,
    html`<div class="card narrow">
      <h1 data-testid="message-title">${title}</h1>
      <p>${message}</p>
    </div>`,
  );
}

const STATUS_BADGE: Record<ConnectLinkDto['status'], string> = { active: 'ok', expired: 'off', revoked: 'bad' };

/** The console's list of the workspace's connect links, each with its status and a revoke button. */
export function connectLinksPage(
  ctx: PageContext,
  o: { links: ConnectLinkDto[]; names: Map<string, string>; more: boolean; ok?: string },
): Html {
  const rows = o.links.map(
    (l) =>
      html`<tr data-testid="connect-link-row" data-id="${l.id}">
        <td>${l.brandName ?? html`<span class="muted">—</span>`}</td>
        <td class="wrap">${l.providers.map((p) => o.names.get(p) ?? p).join(', ')}</td>
        <td class="wrap"><code>${l.redirectUrl}</code></td>
        <td><span class="badge ${STATUS_BADGE[l.status]}" data-testid="link-status">${l.status}</span></td>
        <td>${when(l.createdAt)}</td>
        <td>${l.status === 'revoked' ? when(l.revokedAt) : when(l.expiresAt)}</td>
        <td>
          ${
            l.status === 'active'
              ? html`<a class="button danger" href="/console/connect-links/${l.id}/revoke" data-testid="revoke-link"
                  >Revoke</a
                >`
              : ''
          }
        </td>
      </tr>`,
  );
  return layout(
    ctx,
    'Connect links',
    html`<h1>Connect links</h1>
      ${notice('ok', o.ok)}
      <p class="muted">
        Pages where your customers connect their own accounts to this workspace without an account here. Make them with
        <code>POST /api/connect-links</code>; the link is shown only then.
      </p>
      ${
        o.links.length === 0
          ? html`<p data-testid="no-links">No connect link yet.</p>`
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Brand</th>
                    <th>Networks</th>
                    <th>Returns to</th>
                    <th>Status</th>
                    <th>Created</th>
                    <th>Expires / revoked</th>
                    <th><span class="vh">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>
            </div>`
      }
      ${o.more ? html`<p class="muted">Showing the newest ${o.links.length}.</p>` : ''}`,
  );
}

export function revokeConnectLinkPage(ctx: PageContext, link: ConnectLinkDto): Html {
  return confirmPage(ctx, {
    title: 'Revoke connect link',
    question: 'Revoke this connect link?',
    body: html`<p>
      Its page will say the link is no longer valid, and a connection started from it will not complete. Channels
      already connected through it stay connected.
    </p>`,
    action: `/console/connect-links/${link.id}/revoke`,
    button: 'Revoke link',
    cancelHref: '/console/connect-links',
  });
}
