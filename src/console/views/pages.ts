import { Html, html } from './html';
import { PageContext, csrfField, layout, notice } from './layout';

export function errorPage(ctx: PageContext, title: string, message: string): Html {
  return layout(
    ctx,
    title,
    html`<div class="card narrow">
      <h1>${title}</h1>
      <p>${message}</p>
      <p>
        <a href="${ctx.actor ? '/console' : '/console/login'}"
          >${ctx.actor ? 'Back to the console' : 'Go to sign in'}</a
        >
      </p>
    </div>`,
  );
}

export function loginPage(ctx: PageContext, opts: { email?: string; error?: string; next?: string } = {}): Html {
  return layout(
    ctx,
    'Sign in',
    html`<div class="card narrow">
      <h1>Sign in</h1>
      ${notice('error', opts.error)} ${opts.next ? html`<p>Sign in to authorize the agent that sent you here.</p>` : ''}
      <form class="stack" method="post" action="/console/login">
        ${csrfField(ctx)}${opts.next ? html`<input type="hidden" name="next" value="${opts.next}" />` : ''}
        <label
          >Email <input type="email" name="email" autocomplete="username" required value="${opts.email ?? ''}"
        /></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required /></label>
        <button type="submit">Sign in</button>
      </form>
    </div>`,
  );
}

export interface LinkPageOptions {
  kind: 'setup' | 'invitation';
  action: string;
  token: string;
  /** The email the link is for; null lets the person type it (first owner). */
  email: string | null;
  workspaceName: string;
  role: string;
  error?: string;
  minPasswordLength: number;
}

export function acceptLinkPage(ctx: PageContext, o: LinkPageOptions): Html {
  const title = o.kind === 'setup' ? 'Create the first owner' : 'Join a workspace';
  return layout(
    ctx,
    title,
    html`<div class="card narrow">
      <h1>${title}</h1>
      <p>You will be <strong>${o.role}</strong> of workspace <strong>${o.workspaceName}</strong>.</p>
      ${notice('error', o.error)}
      <form class="stack" method="post" action="${o.action}">
        ${csrfField(ctx)}
        <input type="hidden" name="token" value="${o.token}" />
        ${
          o.email === null
            ? html`<label>Email <input type="email" name="email" autocomplete="username" required /></label>`
            : html`<label
                >Email <input type="email" name="email" autocomplete="username" value="${o.email}" readonly
              /></label>`
        }
        <label
          >Password
          <span class="hint"
            >At least ${o.minPasswordLength} characters. If this email already has an account, enter its password.</span
          >
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            minlength="${o.minPasswordLength}"
            required
          />
        </label>
        <button type="submit">${o.kind === 'setup' ? 'Create account' : 'Join'}</button>
      </form>
    </div>`,
  );
}
