import type { Channel } from '../../channels/channel.entity';
import type { ProviderDto } from '../../providers/dto/provider.dto';
import type { SandboxPostDto } from '../../sandbox/dto/sandbox-post.dto';
import type { CredentialField } from '../credential-fields';
import { scheduleHref } from './schedule.page';
import { Html, html, when } from './html';
import { PageContext, confirmPage, csrfField, layout, notice } from './layout';
import { MediaPreview, mediaPreviews } from './post-parts';

/** One account of a pending connection, for the choice. */
export interface TargetChoice {
  id: string;
  kind: 'personal' | 'organization';
  name: string;
  handle: string;
  channelId: string | null;
}

/** The console page where a network is connected. */
export const connectHref = (providerId: string) => `/console/channels/connect/${encodeURIComponent(providerId)}`;

/** A sandbox channel's timeline in the console; `#post-<id>` is one item on it. */
export const timelineHref = (channelId: string, postId?: string | null) =>
  `/console/channels/${channelId}/timeline${postId ? `#post-${postId}` : ''}`;

/**
 * The networks as tiles, one link each to its connect page: those this server can connect first,
 * then the rest, each group in the registry's order. A grid, so 8 or 30 networks fit any width.
 */
export function networkTiles(networks: ProviderDto[]): Html {
  const ordered = [...networks.filter((n) => n.enabled), ...networks.filter((n) => !n.enabled)];
  return html`<ul class="tiles" aria-label="Networks">
    ${ordered.map(
      (n) =>
        html`<li>
          <a
            class="tile${n.enabled ? '' : ' off'}"
            href="${connectHref(n.id)}"
            data-testid="network-tile"
            data-network="${n.id}"
            data-enabled="${String(n.enabled)}"
          >
            <span class="name">${n.name}</span>
            <span class="muted"
              >${!n.enabled ? 'Not enabled on this server' : n.connect === 'oauth' ? 'Sign in on the network' : 'Connect with a form'}</span
            >
          </a>
        </li>`,
    )}
  </ul>`;
}

export function channelsPage(
  ctx: PageContext,
  o: { channels: Channel[]; networks: ProviderDto[]; error?: string; ok?: string },
): Html {
  const names = new Map(o.networks.map((n) => [n.id, n.name]));
  return layout(
    ctx,
    'Channels',
    html`<h1>Channels</h1>
      ${notice('error', o.error)}${notice('ok', o.ok)}
      <div class="table-wrap">
        <table class="rows">
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Account</th>
              <th scope="col">Status</th>
              <th scope="col">Connected</th>
              <th scope="col"><span class="muted">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${
              o.channels.length
                ? o.channels.map(
                    (c) =>
                      html`<tr data-testid="channel-row">
                        <td data-label="Network">${names.get(c.provider) ?? c.provider}</td>
                        <td class="wrap" data-label="Account">${c.name}<br /><span class="muted">${c.handle}</span></td>
                        <td data-label="Status">
                          ${
                            c.status === 'active'
                              ? html`<span class="badge ok">active</span>`
                              : html`<span class="badge bad">disconnected</span><br /><span class="muted"
                                    >${c.disconnectReason ?? ''}${c.disconnectedAt ? ` · ${when(c.disconnectedAt)}` : ''}</span
                                  >`
                          }
                        </td>
                        <td data-label="Connected">${when(c.connectedAt)}</td>
                        <td>
                          <div class="actions">
                            <a
                              class="button secondary"
                              href="${scheduleHref(c.id)}"
                              aria-label="Posting schedule of ${c.name}"
                              >Schedule</a
                            >
                            ${
                              c.provider === 'sandbox'
                                ? html`<a
                                    class="button secondary"
                                    href="${timelineHref(c.id)}"
                                    aria-label="Timeline of ${c.name}"
                                    >Timeline</a
                                  >`
                                : ''
                            }
                            ${
                              c.status === 'active'
                                ? html`<a
                                    class="button danger"
                                    href="/console/channels/${c.id}/disconnect"
                                    aria-label="Disconnect ${c.name}"
                                    >Disconnect</a
                                  >`
                                : ''
                            }
                          </div>
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
      <h2>Connect a network</h2>
      ${networkTiles(o.networks)}`,
  );
}

/** The input of one credentials field (shared with the hosted connect page). */
export function credentialInput(f: CredentialField): Html {
  if (f.type === 'boolean') {
    return html`<select name="credentials.${f.name}" ${f.required ? html`required` : ''}>
      ${f.required ? '' : html`<option value="">Default</option>`}
      <option value="true">Yes</option>
      <option value="false">No</option>
    </select>`;
  }
  if (f.type === 'list') {
    return html`<textarea
      name="credentials.${f.name}"
      rows="3"
      ${f.required ? html`required` : ''}
      placeholder="${f.placeholder ? `${f.placeholder} (one per line)` : 'one per line'}"
    ></textarea>`;
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

function credentialsForm(ctx: PageContext, network: ProviderDto, fields: CredentialField[]): Html {
  return html`<form class="stack" method="post" action="/console/channels/connect">
    ${csrfField(ctx)}
    <input type="hidden" name="provider" value="${network.id}" />
    ${fields.map(
      (f) =>
        html`<label
          >${f.label}${f.required ? '' : html` <span class="hint">(optional)</span>`}
          ${f.hint ? html`<span class="hint">${f.hint}</span>` : ''} ${credentialInput(f)}</label
        >`,
    )}
    <div><button type="submit">Connect ${network.name}</button></div>
  </form>`;
}

/** `appSettings`: the variables that enable the network (its plugin declares them). */
function oauthStart(ctx: PageContext, network: ProviderDto, appSettings: string[]): Html {
  return network.enabled
    ? html`<p class="muted">You sign in on ${network.name} and allow access; you come back here afterwards.</p>
        <form method="post" action="/console/channels/oauth/${network.id}">
          ${csrfField(ctx)}
          <button type="submit">Connect ${network.name}</button>
        </form>`
    : html`<p data-testid="oauth-disabled">
        ${network.name} is not enabled on this server: its app credentials are not configured. The operator registers an
        app with ${network.name} and sets
        ${appSettings.map((name, i) => html`${i > 0 ? ' and ' : ''}<code>${name}</code>`)} (see the configuration
        section of the guide).
      </p>`;
}

/** One network's connect page: its credentials form, or the button that starts its authorization. */
export function connectPage(
  ctx: PageContext,
  o: { network: ProviderDto; fields: CredentialField[] | null; appSettings: string[]; error?: string },
): Html {
  return layout(
    ctx,
    `Connect ${o.network.name}`,
    html`<p><a href="/console/channels">← Channels</a></p>
      <h1>Connect ${o.network.name}</h1>
      ${notice('error', o.error)}
      <section class="card">
        ${o.fields ? credentialsForm(ctx, o.network, o.fields) : oauthStart(ctx, o.network, o.appSettings)}
      </section>`,
  );
}

export function disconnectChannelPage(ctx: PageContext, channel: Channel, network: string): Html {
  return confirmPage(ctx, {
    title: 'Disconnect channel',
    question: 'Disconnect this channel?',
    body: html`<p>${network} account <strong>${channel.name}</strong> (<span class="wrap">${channel.handle}</span>).</p>
      <p>
        Its credentials are deleted from this service, and posts scheduled to it fail instead of publishing. To publish
        there again, connect the account anew.
      </p>`,
    action: `/console/channels/${channel.id}/disconnect`,
    button: 'Disconnect channel',
    cancelHref: '/console/channels',
  });
}

/** A sandbox channel's timeline: what the sandbox network received, newest first. */
export function sandboxTimelinePage(
  ctx: PageContext,
  o: { channel: Channel; posts: SandboxPostDto[]; more: boolean; media?: Map<string, MediaPreview> },
): Html {
  return layout(
    ctx,
    `Timeline of ${o.channel.name}`,
    html`<p>
        <a href="/console/channels">← Channels</a> · <a href="/console/posts?channelId=${o.channel.id}">Posts</a>
      </p>
      <h1>Sandbox timeline of <span class="wrap">${o.channel.name}</span></h1>
      <p class="muted">
        What the sandbox network received from this channel, newest first (the API's
        <code>GET /api/channels/${o.channel.id}/sandbox/posts</code>).
      </p>
      ${
        o.posts.length
          ? html`<ol class="timeline">
              ${o.posts.map(
                (p) =>
                  html`<li class="card timeline-item" id="post-${p.id}" data-testid="timeline-item">
                    ${p.options.contentWarning ? html`<p class="badge" data-testid="content-warning">CW: ${p.options.contentWarning}</p>` : ''}
                    <p class="content">${p.content}</p>
                    ${mediaPreviews(
                      p.media.map((m) => m.id),
                      o.media ?? new Map<string, MediaPreview>(),
                    )}
                    <p class="muted">
                      ${when(p.createdAt)}${p.options.visibility !== 'public' ? ` · ${p.options.visibility}` : ''}${p.media.length ? ` · ${p.media.length} media` : ''}${
                        p.inReplyTo ? html` · reply to <a href="#post-${p.inReplyTo}">an earlier post</a>` : ''
                      }
                      · <span class="mono wrap">${p.id}</span>
                    </p>
                  </li>`,
              )}
            </ol>`
          : html`<p class="muted">Nothing published on this channel yet.</p>`
      }
      ${o.more ? html`<p class="muted">Showing the 100 newest posts.</p>` : ''}`,
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
