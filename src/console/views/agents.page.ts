import { SCOPES, SCOPE_DESCRIPTIONS, type Scope, holdsScope } from '../../auth/scopes.format';
import type { AuthorizedAgent } from '../../oauth-server/oauth-server.service';
import type { WorkspaceMembership } from '../../users/users.service';
import { Html, html, when } from './html';
import { PageContext, confirmPage, csrfField, layout, notice } from './layout';

/** The authorization request the consent form carries back (hidden fields, checked again on POST). */
export const AUTHORIZATION_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'scope',
] as const;

export interface ConsentView {
  clientName: string;
  clientUri: string | null;
  /** Where the browser goes back to (shown so the person can tell an impostor). */
  redirectHost: string;
  params: Record<string, string>;
  memberships: WorkspaceMembership[];
  workspaceId: string;
  /** What the signed-in person may grant in each workspace. */
  heldByWorkspace: Map<string, readonly string[]>;
  /** The scopes ticked when the page opens. */
  ticked: readonly Scope[];
  error?: string;
}

/**
 * The consent page of an agent's authorization (docs/adr/0043): who asks, which workspace, which
 * scopes (a subset of what the person may do there), approve or deny.
 */
export function consentPage(ctx: PageContext, o: ConsentView): Html {
  const held = o.heldByWorkspace.get(o.workspaceId) ?? [];
  return layout(
    ctx,
    'Authorize an agent',
    html`<div class="card narrow">
      <h1>Authorize ${o.clientName}?</h1>
      <p>
        <strong>${o.clientName}</strong>${o.clientUri ? html` (<span class="muted">${o.clientUri}</span>)` : ''} asks to
        act in a workspace on your behalf through this service’s API and MCP server. You will be sent back to
        <code>${o.redirectHost}</code>.
      </p>
      ${notice('error', o.error)}
      <form class="stack" method="post" action="/console/oauth/authorize">
        ${csrfField(ctx)}
        ${AUTHORIZATION_FIELDS.map((f) => html`<input type="hidden" name="${f}" value="${o.params[f] ?? ''}" />`)}
        <label
          >Workspace
          <select name="workspaceId">
            ${o.memberships.map(
              (m) =>
                html`<option value="${m.workspaceId}" ${m.workspaceId === o.workspaceId ? html`selected` : ''}>
                  ${m.workspaceName} (${m.role})
                </option>`,
            )}
          </select></label
        >
        <fieldset class="scopes">
          <legend>What the agent may do</legend>
          ${SCOPES.map(
            (s) =>
              html`<label class="check"
                ><input
                  type="checkbox"
                  name="scopes"
                  value="${s}"
                  ${o.ticked.includes(s) && holdsScope(held, s) ? html`checked` : ''}
                />
                <span class="check-text">${SCOPE_DESCRIPTIONS[s]} <code>${s}</code></span></label
              >`,
          )}
          <span class="hint"
            >You can grant only what your role lets you do in the chosen workspace. Without posts:publish, what the
            agent schedules waits for an approval.</span
          >
        </fieldset>
        <div class="actions">
          <button type="submit" name="decision" value="approve">Approve</button>
          <button class="secondary" type="submit" name="decision" value="deny">Deny</button>
        </div>
      </form>
    </div>`,
  );
}

/** Account settings -> Authorized agents: the workspace's OAuth grants, each with a revoke button. */
export function agentsPage(ctx: PageContext, o: { agents: AuthorizedAgent[]; ok?: string }): Html {
  return layout(
    ctx,
    'Authorized agents',
    html`<h1>Account settings · Authorized agents</h1>
      ${notice('ok', o.ok)}
      <p class="muted">
        AI agents connected to this workspace through OAuth (for example a remote MCP client). Each holds short-lived
        tokens with the permissions granted; revoking one refuses its next call.
      </p>
      <div class="table-wrap">
        <table class="rows">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Scopes</th>
              <th scope="col">Authorized</th>
              <th scope="col">Last used</th>
              <th scope="col"><span class="muted">Action</span></th>
            </tr>
          </thead>
          <tbody>
            ${
              o.agents.length
                ? o.agents.map(
                    (a) =>
                      html`<tr data-testid="agent-row">
                        <td class="wrap" data-label="Agent">${a.clientName}</td>
                        <td class="wrap" data-label="Scopes">${a.scopes.join(', ')}</td>
                        <td data-label="Authorized">${when(a.createdAt)}</td>
                        <td data-label="Last used">${a.lastUsedAt ? when(a.lastUsedAt) : 'never'}</td>
                        <td>
                          <a
                            class="button danger"
                            href="/console/agents/${a.id}/revoke"
                            aria-label="Revoke agent ${a.clientName}"
                            >Revoke</a
                          >
                        </td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="5" class="muted">No agent is authorized.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>`,
  );
}

export function revokeAgentPage(ctx: PageContext, agent: AuthorizedAgent): Html {
  return confirmPage(ctx, {
    title: 'Revoke agent',
    question: 'Revoke this agent?',
    body: html`<p>Agent <strong>${agent.clientName}</strong> (${agent.scopes.join(', ')}).</p>
      <p>Its tokens are refused from its next call on; it must be authorized again to come back.</p>`,
    action: `/console/agents/${agent.id}/revoke`,
    button: 'Revoke agent',
    cancelHref: '/console/agents',
  });
}
