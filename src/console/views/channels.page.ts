import type { Channel } from '../../channels/channel.entity';
import type { CredentialField } from '../credential-fields';
import { Html, html, when } from './html';
import { PageContext, csrfField, layout, notice } from './layout';

export interface ProviderForm {
  id: string;
  fields: CredentialField[];
}

function providerForm(ctx: PageContext, p: ProviderForm): Html {
  return html`<section class="card">
    <h2>Connect ${p.id}</h2>
    <form class="stack" method="post" action="/console/channels/connect">
      ${csrfField(ctx)}
      <input type="hidden" name="provider" value="${p.id}" />
      ${p.fields.map(
        (f) =>
          html`<label
            >${f.label}${f.required ? '' : html` <span class="hint">(optional)</span>`}
            ${f.hint ? html`<span class="hint">${f.hint}</span>` : ''}
            <input
              name="credentials.${f.name}"
              type="${f.type}"
              ${f.required ? html`required` : ''}
              ${f.placeholder ? html`placeholder="${f.placeholder}"` : ''}
              autocomplete="off"
          /></label>`,
      )}
      <div><button type="submit">Connect ${p.id}</button></div>
    </form>
  </section>`;
}

export function channelsPage(
  ctx: PageContext,
  o: { channels: Channel[]; providers: ProviderForm[]; error?: string; ok?: string },
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
      ${o.providers.map((p) => providerForm(ctx, p))}`,
  );
}
