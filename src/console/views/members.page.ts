import type { Role } from '../../users/membership.entity';
import type { UserLink } from '../../users/user-link.entity';
import type { MemberView } from '../../users/users.service';
import { Html, html, when } from './html';
import { PageContext, csrfField, layout, notice, oneTimeSecret } from './layout';

function roleSelect(current: Role): Html {
  return html`<select name="role">
    ${(['owner', 'member'] as const).map(
      (r) => html`<option value="${r}" ${r === current ? html`selected` : ''}>${r}</option>`,
    )}
  </select>`;
}

export function membersPage(
  ctx: PageContext,
  o: {
    members: MemberView[];
    invitations: UserLink[];
    inviteLink?: { url: string; email: string } | null;
    error?: string;
    ok?: string;
  },
): Html {
  return layout(
    ctx,
    'Members',
    html`<h1>Members</h1>
      ${notice('error', o.error)}${notice('ok', o.ok)}
      ${
        o.inviteLink
          ? oneTimeSecret(
              `Invitation link for ${o.inviteLink.email}`,
              o.inviteLink.url,
              'invitation-link',
              'Send this link to the person you invited. It works once and is shown only now.',
            )
          : ''
      }
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col"><span class="muted">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${o.members.map(
              (m) =>
                html`<tr data-testid="member-row">
                  <td class="wrap">
                    ${m.email}${m.userId === ctx.actor?.userId ? html` <span class="muted">(you)</span>` : ''}
                  </td>
                  <td>${m.role}</td>
                  <td>${when(m.joinedAt)}</td>
                  <td>
                    <div class="actions">
                      <form class="inline" method="post" action="/console/members/${m.userId}/role">
                        ${csrfField(ctx)}
                        <label class="inline-label"
                          ><span class="muted">Role of ${m.email}</span> ${roleSelect(m.role)}</label
                        >
                        <button class="secondary" type="submit">Change role</button>
                      </form>
                      <form class="inline" method="post" action="/console/members/${m.userId}/remove">
                        ${csrfField(ctx)}
                        <button class="danger" type="submit" aria-label="Remove ${m.email}">Remove</button>
                      </form>
                    </div>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <section class="card">
        <h2>Invite someone</h2>
        <form class="stack" method="post" action="/console/members/invite">
          ${csrfField(ctx)}
          <label>Email <input type="email" name="email" required /></label>
          <label>Role ${roleSelect('member')}</label>
          <div><button type="submit">Create invitation link</button></div>
        </form>
      </section>
      ${
        o.invitations.length
          ? html`<h2>Open invitations</h2>
              <ul>
                ${o.invitations.map((i) => html`<li>${i.email} as ${i.role}, valid until ${when(i.expiresAt)}</li>`)}
              </ul>`
          : ''
      }`,
  );
}
