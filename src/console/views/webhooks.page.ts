import type { WebhookDeliveryAttempt } from '../../webhooks/webhook-delivery-attempt.entity';
import type { Webhook } from '../../webhooks/webhook.entity';
import { Html, html, when } from './html';
import { PageContext, csrfField, layout, notice, oneTimeSecret } from './layout';

function state(w: Webhook): Html {
  if (w.enabled) return html`<span class="badge ok">enabled</span>`;
  return w.disabledReason
    ? html`<span class="badge bad">disabled (${w.disabledReason})</span>`
    : html`<span class="badge off">paused</span>`;
}

export function webhooksPage(
  ctx: PageContext,
  o: {
    webhooks: Webhook[];
    eventTypes: readonly string[];
    secret?: { secret: string; url: string } | null;
    error?: string;
    ok?: string;
  },
): Html {
  return layout(
    ctx,
    'Webhooks',
    html`<h1>Webhooks</h1>
      ${notice('error', o.error)}${notice('ok', o.ok)}
      ${
        o.secret
          ? oneTimeSecret(
              `Signing secret for ${o.secret.url}`,
              o.secret.secret,
              'new-webhook-secret',
              'Copy this signing secret now: it is shown only once. Use it to verify the webhook-signature header (Standard Webhooks).',
            )
          : ''
      }
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col"><span class="muted">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${
              o.webhooks.length
                ? o.webhooks.map(
                    (w) =>
                      html`<tr data-testid="webhook-row">
                        <td class="wrap">
                          <a href="/console/webhooks/${w.id}">${w.url}</a
                          >${w.description ? html`<br /><span class="muted">${w.description}</span>` : ''}
                        </td>
                        <td>${w.events.length ? w.events.join(', ') : 'all'}</td>
                        <td>${state(w)}</td>
                        <td>${when(w.createdAt)}</td>
                        <td>
                          <div class="actions">
                            <form
                              class="inline"
                              method="post"
                              action="/console/webhooks/${w.id}/${w.enabled ? 'disable' : 'enable'}"
                            >
                              ${csrfField(ctx)}<button class="secondary" type="submit">
                                ${w.enabled ? 'Disable' : 'Enable'}
                              </button>
                            </form>
                            <form class="inline" method="post" action="/console/webhooks/${w.id}/test">
                              ${csrfField(ctx)}<button class="secondary" type="submit">Send test</button>
                            </form>
                            <form class="inline" method="post" action="/console/webhooks/${w.id}/rotate">
                              ${csrfField(ctx)}<button class="secondary" type="submit">Rotate secret</button>
                            </form>
                            <a class="button secondary" href="/console/webhooks/${w.id}">Deliveries</a>
                          </div>
                        </td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="5" class="muted">No webhooks yet.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      <section class="card">
        <h2>Add a webhook</h2>
        <form class="stack" method="post" action="/console/webhooks">
          ${csrfField(ctx)}
          <label
            >URL <span class="hint">https, on a public address.</span
            ><input type="url" name="url" required maxlength="2048" placeholder="https://example.com/hooks/social"
          /></label>
          <label>Description (optional)<input name="description" maxlength="500" /></label>
          <fieldset>
            <legend>Events (none selected: all, including future types)</legend>
            ${o.eventTypes.map((e) => html`<label><input type="checkbox" name="events" value="${e}" /> ${e}</label>`)}
          </fieldset>
          <div><button type="submit">Add webhook</button></div>
        </form>
      </section>`,
  );
}

export function webhookDeliveriesPage(
  ctx: PageContext,
  o: { webhook: Webhook; attempts: WebhookDeliveryAttempt[]; ok?: string },
): Html {
  return layout(
    ctx,
    'Webhook deliveries',
    html`<p><a href="/console/webhooks">← Webhooks</a></p>
      <h1>Deliveries to <span class="wrap">${o.webhook.url}</span></h1>
      ${notice('ok', o.ok)}
      <div class="actions">
        <form class="inline" method="post" action="/console/webhooks/${o.webhook.id}/test">
          ${csrfField(ctx)}<button class="secondary" type="submit">Send test</button>
        </form>
        <a class="button secondary" href="/console/webhooks/${o.webhook.id}">Refresh</a>
      </div>
      <h2>Delivery log (newest first)</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Attempt</th>
              <th scope="col">Status code</th>
              <th scope="col">Duration</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            ${
              o.attempts.length
                ? o.attempts.map(
                    (a) =>
                      html`<tr data-testid="delivery-row">
                        <td>${when(a.createdAt)}</td>
                        <td>${a.eventType}</td>
                        <td>${a.attempt}</td>
                        <td>${a.statusCode ?? '—'}</td>
                        <td>${a.durationMs} ms</td>
                        <td>
                          ${a.succeeded ? html`<span class="badge ok">delivered</span>` : html`<span class="badge bad">failed</span> <span class="muted">${a.error ?? ''}</span>`}
                        </td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="6" class="muted">No delivery attempts yet.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>`,
  );
}
