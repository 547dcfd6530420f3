import type { ConnectLinkDto } from '../../connect-links/dto/connect-link.dto';
import type { OrganizationOverview } from '../../platform/organization-overview.service';
import { Html, html, when } from './html';
import { PageContext, layout, notice } from './layout';

/** The windows the organization page offers, in days. */
export const OVERVIEW_WINDOWS = [7, 30, 90] as const;

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** The newest connect links of one workspace, and whether it has older ones. */
export interface WorkspaceLinks {
  links: ConnectLinkDto[];
  more: boolean;
}

const LINK_BADGE: Record<ConnectLinkDto['status'], string> = { active: 'ok', expired: 'off', revoked: 'bad' };

/** One workspace's connect links: status, networks and expiry (or revocation); revoking is on its own page. */
function workspaceLinks(name: string, id: string, entry: WorkspaceLinks | undefined, names: Map<string, string>): Html {
  const links = entry?.links ?? [];
  return html`<section class="org-links" data-testid="workspace-links" data-workspace-id="${id}">
    <h3>${name}</h3>
    ${
      links.length === 0
        ? html`<p class="muted">No connect link.</p>`
        : html`<div class="table-wrap">
            <table class="rows">
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Networks</th>
                  <th scope="col">Brand</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires / revoked</th>
                </tr>
              </thead>
              <tbody>
                ${links.map(
                  (l) =>
                    html`<tr data-testid="org-connect-link" data-id="${l.id}">
                      <td data-label="Status">
                        <span class="badge ${LINK_BADGE[l.status]}" data-testid="link-status">${l.status}</span>
                      </td>
                      <td class="wrap" data-label="Networks">
                        ${l.providers.map((p) => names.get(p) ?? p).join(', ')}
                      </td>
                      <td class="wrap" data-label="Brand">${l.brandName ?? html`<span class="muted">—</span>`}</td>
                      <td data-label="Created">${when(l.createdAt)}</td>
                      <td data-label="${l.status === 'revoked' ? 'Revoked' : 'Expires'}" data-testid="link-until">
                        ${l.status === 'revoked' ? when(l.revokedAt) : when(l.expiresAt)}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${entry?.more ? html`<p class="muted">The newest ${String(links.length)}; the workspace's Connect links page lists every one.</p>` : ''}
  </section>`;
}

/** The organization's workspaces, their usage and their connect links (owners of the organization's first workspace). */
export function organizationPage(
  ctx: PageContext,
  o: {
    overview: OrganizationOverview | null;
    days: number;
    links: Map<string, WorkspaceLinks>;
    names: Map<string, string>;
  },
): Html {
  const v = o.overview;
  if (!v) {
    return layout(
      ctx,
      'Organization',
      html`<h1>Organization</h1>
        ${notice(
          'warn',
          "Only the owners of the organization's first workspace see its workspaces. Switch to that workspace if you are one of them.",
        )}`,
    );
  }
  return layout(
    ctx,
    'Organization',
    html`<h1>${v.organization.name}</h1>
      <p class="muted">
        ${v.workspaces.length} workspace${v.workspaces.length === 1 ? '' : 's'}; usage from ${when(v.from)} to
        ${when(v.to)}.
      </p>
      <form class="inline" method="get" action="/console/organization">
        <label class="inline-label"
          ><span class="muted">Window</span>
          <select name="days">
            ${OVERVIEW_WINDOWS.map(
              (d) =>
                html`<option value="${String(d)}" ${d === o.days ? html`selected` : ''}>
                  Last ${String(d)} days
                </option>`,
            )}
          </select></label
        >
        <button class="secondary" type="submit">Show</button>
      </form>
      <div class="table-wrap">
        <table class="rows">
          <thead>
            <tr>
              <th scope="col">Workspace</th>
              <th scope="col">External id</th>
              <th scope="col">Posts created</th>
              <th scope="col">Published</th>
              <th scope="col">Failed</th>
              <th scope="col">By network</th>
              <th scope="col">Media stored</th>
            </tr>
          </thead>
          <tbody>
            ${v.workspaces.map(
              ({ workspace: w, usage: u }) =>
                html`<tr data-testid="workspace-row">
                  <td class="wrap" data-label="Workspace">
                    ${w.name}${w.id === ctx.actor?.workspaceId ? html` <span class="muted">(this one)</span>` : ''}
                  </td>
                  <td class="wrap" data-label="External id">
                    ${w.externalId ?? html`<span class="muted">none</span>`}
                  </td>
                  <td data-label="Posts">${String(u.postsCreated)}</td>
                  <td data-label="Published">${String(u.targetsPublished)}</td>
                  <td data-label="Failed">${String(u.targetsFailed)}</td>
                  <td class="wrap" data-label="By network">
                    ${
                      Object.entries(u.byNetwork).length
                        ? Object.entries(u.byNetwork).map(
                            ([network, n]) =>
                              html`<span>${network}: ${String(n.published)}/${String(n.failed)} </span>`,
                          )
                        : html`<span class="muted">none</span>`
                    }
                  </td>
                  <td data-label="Media stored">${bytes(u.mediaBytes)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <p class="muted">
        By network: published/failed. Workspaces are created and erased through the API (/api/workspaces).
      </p>
      <h2>Connect links</h2>
      <p class="muted">
        The links made in each workspace (<code>POST /api/connect-links</code> with <code>X-Workspace-Id</code>), newest
        first. Revoke one on that workspace's <strong>Connect links</strong> page.
      </p>
      ${v.workspaces.map(({ workspace: w }) => workspaceLinks(w.name, w.id, o.links.get(w.id), o.names))}`,
  );
}
