import type { Channel } from '../../channels/channel.entity';
import { Html, html } from './html';
import { PageContext, csrfField, layout, notice } from './layout';
import { MediaPreview, mediaPreviews } from './post-parts';

/** What the composer's form holds (as posted back, or the draft being edited). */
export interface ComposerValues {
  content: string;
  channelIds: string[];
  mediaIds: string[];
  firstComment: string;
  /** `YYYY-MM-DDTHH:MM`, in UTC. */
  scheduledAt: string;
  /** Options by channel id, then field name, as typed. */
  options: Record<string, Record<string, string>>;
}

/** A scalar setting of a network's optionsSchema the form can hold. */
export interface OptionField {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  enum?: string[];
  description?: string;
}

/** One channel's line of counters: its text length as its network counts it, and its limit. */
export interface CharacterCount {
  channelId: string;
  count: number;
  max: number;
}

/** The form field a problem belongs to (`content`, `channels`, `media`, `schedule`, `opt:<channel>:<name>`), else `form`. */
export type FieldProblems = Map<string, string[]>;

/** The name of an option's form field. */
export function optionFieldName(channelId: string, name: string): string {
  return `opt:${channelId}:${name}`;
}

function problemsAt(problems: FieldProblems, key: string): Html | string {
  const list = problems.get(key);
  if (!list?.length) return '';
  return html`<ul
    class="field-problems"
    id="problems-${key.replace(/[^a-z0-9-]/gi, '-')}"
    data-testid="field-problem"
    data-field="${key}"
  >
    ${list.map((m) => html`<li>${m}</li>`)}
  </ul>`;
}

function describedBy(problems: FieldProblems, key: string): Html | string {
  return problems.get(key)?.length ? html`aria-describedby="problems-${key.replace(/[^a-z0-9-]/gi, '-')}"` : '';
}

function optionInput(channelId: string, f: OptionField, value: string, problems: FieldProblems): Html {
  const name = optionFieldName(channelId, f.name);
  const hint = f.description ? html`<span class="hint">${f.description}</span>` : '';
  let input: Html;
  if (f.type === 'boolean') {
    input = html`<select name="${name}" ${describedBy(problems, name)}>
      <option value="">default</option>
      <option value="true" ${value === 'true' ? html`selected` : ''}>yes</option>
      <option value="false" ${value === 'false' ? html`selected` : ''}>no</option>
    </select>`;
  } else if (f.enum) {
    input = html`<select name="${name}" ${describedBy(problems, name)}>
      <option value="">default</option>
      ${f.enum.map((v) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${v}</option>`)}
    </select>`;
  } else {
    input = html`<input
      name="${name}"
      value="${value}"
      ${f.type === 'string' ? '' : html`type="number" ${f.type === 'integer' ? html`step="1"` : html`step="any"`}`}
      ${describedBy(problems, name)}
    />`;
  }
  return html`<label>${f.name} ${hint} ${input}</label>${problemsAt(problems, name)}`;
}

/**
 * The composer (GET /console/posts/new, and /console/posts/{id}/edit for a draft): text with each
 * chosen network's count as its validation counts it, channels, media uploaded in the browser (the
 * script; chunked, with progress), each network's options from its optionsSchema, and what to do with
 * the post. Without script it posts the form (text posts), and the counts come back with the answer.
 */
export function composerPage(
  ctx: PageContext,
  o: {
    editing: string | null;
    values: ComposerValues;
    channels: Channel[];
    networks: Map<string, string>;
    optionFields: Map<string, OptionField[]>;
    counts: CharacterCount[];
    media: Map<string, MediaPreview>;
    problems: FieldProblems;
    error?: string;
  },
): Html {
  const v = o.values;
  const action = o.editing ? `/console/posts/${o.editing}/edit` : '/console/posts/new';
  const counts = new Map(o.counts.map((c) => [c.channelId, c]));
  const nameOf = (c: Channel) => `${o.networks.get(c.provider) ?? c.provider} · ${c.handle}`;
  return layout(
    ctx,
    o.editing ? 'Edit draft' : 'New post',
    html`<p><a href="/console/posts">← Posts</a></p>
      <h1>${o.editing ? 'Edit draft' : 'New post'}</h1>
      ${notice('error', o.error)} ${problemsAt(o.problems, 'form')}
      <form class="stack composer" method="post" action="${action}" data-composer data-testid="composer">
        ${csrfField(ctx)}
        <label for="composer-content">Text</label>
        <textarea id="composer-content" name="content" rows="6" data-count-source ${describedBy(o.problems, 'content')}>
${v.content}</textarea>
        ${problemsAt(o.problems, 'content')}
        <fieldset ${describedBy(o.problems, 'channels')}>
          <legend>Channels</legend>
          ${
            o.channels.length
              ? o.channels.map((c) => {
                  const n = counts.get(c.id);
                  const over = n && n.count > n.max;
                  return html`<label class="check"
                    ><input
                      type="checkbox"
                      name="channelIds"
                      value="${c.id}"
                      ${v.channelIds.includes(c.id) ? html`checked` : ''}
                    />
                    <span class="check-text"
                      >${nameOf(c)}
                      <output class="count${over ? ' over' : ''}" data-count-for="${c.id}" data-testid="char-count"
                        >${n ? `${n.count} / ${n.max}` : `${[...v.content].length} / ${c.limits.maxCharacters}`}</output
                      ></span
                    ></label
                  >`;
                })
              : html`<p class="muted">No channels yet: <a href="/console/channels">connect one</a>.</p>`
          }
        </fieldset>
        ${problemsAt(o.problems, 'channels')}
        <fieldset>
          <legend>Media</legend>
          <div data-media-list>
            ${v.mediaIds.map((id) => html`<input type="hidden" name="mediaIds" value="${id}" />`)}
            ${mediaPreviews(v.mediaIds, o.media)}
          </div>
          <label class="js-only" hidden
            >Add images or videos
            <input type="file" accept="image/*,video/*" multiple data-upload data-testid="media-file" />
          </label>
          <progress
            class="js-only"
            hidden
            max="100"
            value="0"
            data-upload-progress
            data-testid="upload-progress"
          ></progress>
          <p class="muted" data-upload-status role="status"></p>
          <noscript><p class="muted">Uploading media needs script; text posts work without.</p></noscript>
        </fieldset>
        ${problemsAt(o.problems, 'media')}
        <label
          >First comment (optional)
          <textarea name="firstComment" rows="2" ${describedBy(o.problems, 'firstComment')}>${v.firstComment}</textarea>
        </label>
        ${problemsAt(o.problems, 'firstComment')}
        ${o.channels
          .filter((c) => (o.optionFields.get(c.provider) ?? []).length > 0)
          .map(
            (c) =>
              html`<details
                ${Object.keys(v.options[c.id] ?? {}).length || [...o.problems.keys()].some((k) => k.startsWith(`opt:${c.id}:`)) ? html`open` : ''}
              >
                <summary>Options for ${nameOf(c)}</summary>
                <div class="stack">
                  ${(o.optionFields.get(c.provider) ?? []).map((f) =>
                    optionInput(c.id, f, v.options[c.id]?.[f.name] ?? '', o.problems),
                  )}
                </div>
              </details>`,
          )}
        ${problemsAt(o.problems, 'options')}
        <label
          >Publish at (UTC, for Schedule)
          <input
            type="datetime-local"
            name="scheduledAt"
            value="${v.scheduledAt}"
            ${describedBy(o.problems, 'schedule')}
          />
        </label>
        ${problemsAt(o.problems, 'schedule')}
        <div class="actions">
          <button type="submit" name="action" value="schedule">Schedule</button>
          <button type="submit" name="action" value="queue" class="secondary">Add to queue</button>
          <button type="submit" name="action" value="now" class="secondary">Publish now</button>
          <button type="submit" name="action" value="draft" class="secondary">Save draft</button>
        </div>
      </form>`,
  );
}
