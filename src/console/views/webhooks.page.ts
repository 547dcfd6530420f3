import type { WebhookDeliveryAttempt } from '../../webhooks/webhook-delivery-attempt.entity';
import type { Webhook } from '../../webhooks/webhook.entity';
import { Html, html, when } from './html';
import { PageContext, confirmPage, csrfField, layout, notice, oneTimeSecret } from './layout';

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
        <table class="rows">
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
                        <td class="wrap" data-label="URL">
                          <a href="/console/webhooks/${w.id}">${w.url}</a
                          >${w.description ? html`<br /><span class="muted">${w.description}</span>` : ''}
                        </td>
                        <td class="wrap" data-label="Events">${w.events.length ? w.events.join(', ') : 'all'}</td>
                        <td data-label="State">${state(w)}</td>
                        <td data-label="Created">${when(w.createdAt)}</td>
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
                            <a class="button secondary" href="/console/webhooks/${w.id}/rotate">Rotate secret</a>
                            <a class="button secondary" href="/console/webhooks/${w.id}">Deliveries</a>
                            <a
                              class="button danger"
                              href="/console/webhooks/${w.id}/delete"
                              aria-label="Delete webhook ${w.url}"
                              >Delete</a
                            >
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
        <table class="rows">
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
                        <td data-label="Time">${when(a.createdAt)}</td>
                        <td data-label="Event">${a.eventType}</td>
                        <td data-label="Attempt">${a.attempt}</td>
                        <td data-label="Status code">${a.statusCode ?? '—'}</td>
                        <td data-label="Duration">${a.durationMs} ms</td>
                        <td class="wrap" data-label="Result">
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

export function deleteWebhookPage(ctx: PageContext, webhook: Webhook): Html {
  return confirmPage(ctx, {
    title: 'Delete webhook',
    question: 'Delete this webhook?',
    body: html`<p>
        Endpoint <strong class="wrap">${webhook.url}</strong>${webhook.description ? ` (${webhook.description})` : ''}.
      </p>
      <p>
        No more events are sent to it, deliveries still pending are dropped, and its delivery log goes with it. This
        cannot be undone.
      </p>`,
    action: `/console/webhooks/${webhook.id}/delete`,
    button: 'Delete webhook',
    cancelHref: '/console/webhooks',
  });
}

export function rotateWebhookSecretPage(ctx: PageContext, webhook: Webhook): Html {
  return confirmPage(ctx, {
    title: 'Rotate signing secret',
    question: 'Rotate the signing secret?',
    body: html`<p>Endpoint <strong class="wrap">${webhook.url}</strong>.</p>
      <p>
        A new secret is shown once. Deliveries are signed with both secrets for 24 hours, then with the new one only:
        update your receiver within that time. A secret replaced earlier and still inside its 24 hours stops at once.
      </p>`,
    action: `/console/webhooks/${webhook.id}/rotate`,
    button: 'Rotate secret',
    cancelHref: '/console/webhooks',
  });
}
