import type { WorkspaceMembership } from '../../users/users.service';
import type { ConsoleActor } from '../../users/sessions.service';
import { Html, Renderable, html } from './html';

export interface PageContext {
  actor: ConsoleActor | null;
  /** The CSRF token every form of the page carries. */
  csrf: string;
  memberships?: WorkspaceMembership[];
  /** Which navigation entry is the current page. */
  current?:
    | 'keys'
    | 'agents'
    | 'channels'
    | 'connect-links'
    | 'webhooks'
    | 'posts'
    | 'calendar'
    | 'analytics'
    | 'approvals'
    | 'members'
    | 'organization';
}

export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;
}

const NAV: Array<{ id: NonNullable<PageContext['current']>; label: string; href: string; ownersOnly?: boolean }> = [
  { id: 'keys', label: 'API keys', href: '/console/keys' },
  { id: 'agents', label: 'Agents', href: '/console/agents' },
  { id: 'channels', label: 'Channels', href: '/console/channels' },
  { id: 'connect-links', label: 'Connect links', href: '/console/connect-links' },
  { id: 'webhooks', label: 'Webhooks', href: '/console/webhooks' },
  { id: 'posts', label: 'Posts', href: '/console/posts' },
  { id: 'calendar', label: 'Calendar', href: '/console/calendar' },
  { id: 'analytics', label: 'Analytics', href: '/console/analytics' },
  { id: 'approvals', label: 'Approvals', href: '/console/approvals' },
  { id: 'members', label: 'Members', href: '/console/members', ownersOnly: true },
  { id: 'organization', label: 'Organization', href: '/console/organization', ownersOnly: true },
];

function header(ctx: PageContext): Html {
  const actor = ctx.actor;
  if (!actor) return html`<header class="top"><a class="brand" href="/console">Social Publishing</a></header>`;
  const memberships = ctx.memberships ?? [];
  const current = memberships.find((m) => m.workspaceId === actor.workspaceId);
  const switcher =
    memberships.length > 1
      ? html`<form class="inline" method="post" action="/console/workspace">
          ${csrfField(ctx)}
          <label class="inline-label"
            ><span class="muted">Workspace</span>
            <select name="workspaceId">
              ${memberships.map(
                (m) =>
                  html`<option value="${m.workspaceId}" ${m.workspaceId === actor.workspaceId ? html`selected` : ''}>
                    ${m.workspaceName}
                  </option>`,
              )}
            </select>
          </label>
          <button class="secondary" type="submit">Switch</button>
        </form>`
      : current
        ? html`<span>Workspace <strong>${current.workspaceName}</strong></span>`
        : '';
  return html`<header class="top">
      <a class="brand" href="/console">Social Publishing</a>
      ${switcher}
      <div class="who">
        <span>${actor.email} (${actor.role})</span>
        <form class="inline" method="post" action="/console/logout">
          ${csrfField(ctx)}<button class="secondary" type="submit">Sign out</button>
        </form>
      </div>
    </header>
    <nav class="main" aria-label="Console">
      ${NAV.filter((n) => !n.ownersOnly || actor.role === 'owner').map(
        (n) => html`<a href="${n.href}" ${ctx.current === n.id ? html`aria-current="page"` : ''}>${n.label}</a>`,
      )}
    </nav>`;
}

/** The page shell: one stylesheet, one script, both same-origin files. */
export function layout(ctx: PageContext, title: string, body: Renderable): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Social Publishing console</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer></script>
      </head>
      <body>
        ${header(ctx)}
        <main id="main">${body}</main>
      </body>
    </html>`;
}

export function notice(kind: 'error' | 'ok' | 'warn', text: string | null | undefined): Html {
  return text
    ? html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`
    : html``;
}

/** A one-time secret with its copy button (the script copies the output's text) and a warning. */
export function oneTimeSecret(label: string, value: string, testId: string, warning: string): Html {
  return html`<section class="card" aria-labelledby="secret-title">
    <h2 id="secret-title">${label}</h2>
    <div class="notice warn">${warning}</div>
    <div class="secret">
      <output id="one-time-secret" data-testid="${testId}">${value}</output>
      <button type="button" class="secondary" data-copy-target="one-time-secret">Copy</button>
    </div>
  </section>`;
}

/**
 * The page between a destructive button and its effect: what will happen, a danger button that
 * posts the form, and Cancel. Every action that loses something (revoke, disconnect, remove,
 * delete, rotate) goes through one, so a stray click changes nothing.
 */
export function confirmPage(
  ctx: PageContext,
  o: {
    title: string;
    /** The question, as the page's heading. */
    question: string;
    /** What is affected and what follows, in a few sentences. */
    body: Renderable;
    action: string;
    button: string;
    cancelHref: string;
  },
): Html {
  return layout(
    ctx,
    o.title,
    html`<div class="card narrow">
      <h1>${o.question}</h1>
      ${o.body}
      <form method="post" action="${o.action}" class="actions">
        ${csrfField(ctx)}
        <button class="danger" type="submit" data-testid="confirm-action">${o.button}</button>
        <a class="button secondary" href="${o.cancelHref}">Cancel</a>
      </form>
    </div>`,
  );
}
