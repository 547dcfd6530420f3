import type { Channel } from '../../channels/channel.entity';
import type { CredentialField } from '../credential-fields';
import { Html, html, when } from './html';
import { PageContext, csrfField, layout, notice } from './layout';

export interface ProviderForm {
  id: string;
  /** The network's name for people. */
  name: string;
  fields: CredentialField[];
}

/** A network connected by OAuth: a button that starts the authorization, when enabled on this server. */
export interface OAuthButton {
  id: string;
  name: string;
  enabled: boolean;
}

/** One account of a pending connection, for the choice. */
export interface TargetChoice {
  id: string;
  kind: 'personal' | 'organization';
  name: string;
  handle: string;
  channelId: string | null;
}

function oauthCard(ctx: PageContext, o: OAuthButton): Html {
  return html`<section class="card">
    <h2>Connect ${o.name}</h2>
    ${
      o.enabled
        ? html`<p class="muted">You sign in on ${o.name} and allow access; you come back here afterwards.</p>
            <form method="post" action="/console/channels/oauth/${o.id}">
              ${csrfField(ctx)}
              <button type="submit">Connect ${o.name}</button>
            </form>`
        : html`<p class="muted" data-testid="oauth-disabled">
            ${o.name} is not enabled on this server: its app credentials are not configured.
          </p>`
    }
  </section>`;
}

function credentialInput(f: CredentialField): Html {
  if (f.type === 'boolean') {
    return html`<select name="credentials.${f.name}" ${f.required ? html`required` : ''}>
      ${f.required ? '' : html`<option value="">Default</option>`}
      <option value="true">Yes</option>
      <option value="false">No</option>
    </select>`;
  }
  return html`<input
    name="credentials.${f.name}"
    type="${f.type}"
    ${f.type === 'number' ? html`inputmode="numeric" step="1"` : ''}
    ${f.required ? html`required` : ''}
    ${f.placeholder ? html`placeholder="${f.placeholder}"` : ''}
    autocomplete="off"
  />`;
}

function providerForm(ctx: PageContext, p: ProviderForm): Html {
  return html`<section class="card">
    <h2>Connect ${p.name}</h2>
    <form class="stack" method="post" action="/console/channels/connect">
      ${csrfField(ctx)}
      <input type="hidden" name="provider" value="${p.id}" />
      ${p.fields.map(
        (f) =>
          html`<label
            >${f.label}${f.required ? '' : html` <span class="hint">(optional)</span>`}
            ${f.hint ? html`<span class="hint">${f.hint}</span>` : ''} ${credentialInput(f)}</label
          >`,
      )}
      <div><button type="submit">Connect ${p.name}</button></div>
    </form>
  </section>`;
}

export function channelsPage(
  ctx: PageContext,
  o: { channels: Channel[]; providers: ProviderForm[]; oauth: OAuthButton[]; error?: string; ok?: string },
): Html {
  return layout(
    ctx,
    'Channels',
    html`<h1>Channels</h1>
      ${notice('error', o.error)}${notice('ok', o.ok)}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Account</th>
              <th scope="col">Status</th>
              <th scope="col">Connected</th>
              <th scope="col"><span class="muted">Action</span></th>
            </tr>
          </thead>
          <tbody>
            ${
              o.channels.length
                ? o.channels.map(
                    (c) =>
                      html`<tr data-testid="channel-row">
                        <td>${c.provider}</td>
                        <td class="wrap">${c.name}<br /><span class="muted">${c.handle}</span></td>
                        <td>
                          ${
                            c.status === 'active'
                              ? html`<span class="badge ok">active</span>`
                              : html`<span class="badge bad">disconnected</span><br /><span class="muted"
                                    >${c.disconnectReason ?? ''}${c.disconnectedAt ? ` · ${when(c.disconnectedAt)}` : ''}</span
                                  >`
                          }
                        </td>
                        <td>${when(c.connectedAt)}</td>
                        <td>
                          ${
                            c.status === 'active'
                              ? html`<form class="inline" method="post" action="/console/channels/${c.id}/disconnect">
                                  ${csrfField(ctx)}<button
                                    class="danger"
                                    type="submit"
                                    aria-label="Disconnect ${c.name}"
                                  >
                                    Disconnect
                                  </button>
                                </form>`
                              : ''
                          }
                        </td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="5" class="muted">No channels yet: connect one below.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      ${o.oauth.map((p) => oauthCard(ctx, p))} ${o.providers.map((p) => providerForm(ctx, p))}`,
  );
}

/** After an authorization that reaches several accounts: which become channels. */
export function chooseTargetsPage(
  ctx: PageContext,
  o: { connectionId: string; network: string; targets: TargetChoice[]; expiresAt: Date; error?: string },
): Html {
  return layout(
    ctx,
    `Choose ${o.network} accounts`,
    html`<h1>Choose ${o.network} accounts</h1>
      ${notice('error', o.error)}
      <section class="card">
        <p>Your ${o.network} authorization can publish as these accounts. Each one you choose becomes a channel.</p>
        <form class="stack" method="post" action="/console/channels/connections/${o.connectionId}">
          ${csrfField(ctx)}
          <fieldset>
            <legend>Accounts</legend>
            ${o.targets.map(
              (t) =>
                html`<label data-testid="target-choice"
                  ><input type="checkbox" name="targetIds" value="${t.id}" />
                  ${t.name}
                  <span class="muted"
                    >${t.kind === 'organization' ? 'page' : 'personal profile'}${
                      t.channelId ? ' · already connected: reconnects it' : ''
                    }</span
                  ></label
                >`,
            )}
          </fieldset>
          <p class="hint">Choose before ${when(o.expiresAt)}.</p>
          <div><button type="submit">Connect selected</button></div>
        </form>
      </section>`,
  );
}
