import { ROLES, type Role } from '../../users/membership.entity';
import type { UserLink } from '../../users/user-link.entity';
import type { MemberView } from '../../users/users.service';
import { Html, html, when } from './html';
import { PageContext, confirmPage, csrfField, layout, notice, oneTimeSecret } from './layout';

function roleSelect(current: Role): Html {
  return html`<select name="role">
    ${ROLES.map((r) => html`<option value="${r}" ${r === current ? html`selected` : ''}>${r}</option>`)}
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
        <table class="rows">
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
                  <td class="wrap" data-label="Email">
                    ${m.email}${m.userId === ctx.actor?.userId ? html` <span class="muted">(you)</span>` : ''}
                  </td>
                  <td data-label="Role">${m.role}</td>
                  <td data-label="Joined">${when(m.joinedAt)}</td>
                  <td>
                    <div class="actions">
                      <form class="inline" method="post" action="/console/members/${m.userId}/role">
                        ${csrfField(ctx)}
                        <label class="inline-label"
                          ><span class="muted">Role<span class="vh"> of ${m.email}</span></span>
                          ${roleSelect(m.role)}</label
                        >
                        <button class="secondary" type="submit">Change role</button>
                      </form>
                      <a class="button danger" href="/console/members/${m.userId}/remove" aria-label="Remove ${m.email}"
                        >Remove</a
                      >
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
              <div class="table-wrap">
                <table class="rows">
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">Role</th>
                      <th scope="col">Valid until</th>
                      <th scope="col"><span class="muted">Action</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${o.invitations.map(
                      (i) =>
                        html`<tr data-testid="invitation-row">
                          <td class="wrap" data-label="Email">${i.email}</td>
                          <td data-label="Role">${i.role}</td>
                          <td data-label="Valid until">${when(i.expiresAt)}</td>
                          <td>
                            <a
                              class="button danger"
                              href="/console/members/invitations/${i.id}/revoke"
                              aria-label="Revoke the invitation of ${i.email ?? ''}"
                              >Revoke</a
                            >
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
          : ''
      }`,
  );
}

export function removeMemberPage(ctx: PageContext, member: MemberView): Html {
  return confirmPage(ctx, {
    title: 'Remove member',
    question: 'Remove this member?',
    body: html`<p><strong class="wrap">${member.email}</strong> (${member.role}) leaves this workspace.</p>
      <p>
        Their console sessions in this workspace end at once. Their account stays; invite them again to bring them back.
      </p>`,
    action: `/console/members/${member.userId}/remove`,
    button: 'Remove member',
    cancelHref: '/console/members',
  });
}

export function revokeInvitationPage(ctx: PageContext, invitation: UserLink): Html {
  return confirmPage(ctx, {
    title: 'Revoke invitation',
    question: 'Revoke this invitation?',
    body: html`<p>
        The invitation of <strong class="wrap">${invitation.email ?? ''}</strong> as ${invitation.role}, valid until
        ${when(invitation.expiresAt)}.
      </p>
      <p>Its link stops working at once. You can invite the same person again later.</p>`,
    action: `/console/members/invitations/${invitation.id}/revoke`,
    button: 'Revoke invitation',
    cancelHref: '/console/members',
  });
}
