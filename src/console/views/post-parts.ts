import type { PostCreator } from '../../posts/post.entity';
import { Html, html } from './html';

const KIND_WORDS: Record<PostCreator['kind'], string> = {
  api_key: 'API key',
  oauth_client: 'agent',
  user: 'console user',
};

/** Who asked for a post, in words: `API key "cms"`, `agent "Claude Desktop"`, `console user ann@example.com`. */
export function createdByLine(createdBy: PostCreator | null): Html {
  if (!createdBy) return html`<span class="muted" data-testid="created-by">asked by: not recorded</span>`;
  return html`<span data-testid="created-by"
    >asked by ${KIND_WORDS[createdBy.kind]} <strong class="wrap">${createdBy.name}</strong></span
  >`;
}

/** A media item as the console previews it: its signed URLs once ready (null before, or for none). */
export interface MediaPreview {
  id: string;
  mimeType: string;
  altText: string | null;
  status: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  /** Signed URL of the bytes. */
  url: string | null;
  /** Signed URL of a video's poster frame. */
  posterUrl: string | null;
}

/** A problem of validation, as PostsService.limitProblems gives them. */
export interface LimitProblem {
  channelId: string | null;
  field: string;
  message: string;
}

const MEDIUM_FIELD = /^(?:targets\[\d+\]\.)?mediaIds\[(\d+)\]$/;
const MEDIA_FIELD = /^(?:targets\[\d+\]\.)?mediaIds$/;

/** Problems of `channelId` (every channel's when undefined) about the medium at `index` of the post's first part. */
function problemsOfMedium(problems: LimitProblem[], index: number, channelId?: string): LimitProblem[] {
  return problems.filter((p) => {
    if (channelId !== undefined && p.channelId !== channelId) return false;
    const m = MEDIUM_FIELD.exec(p.field);
    return m !== null && Number(m[1]) === index;
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One medium: a thumbnail, or a video with its poster and a player; its alt text; the limits it breaks. */
function mediumPreview(id: string, m: MediaPreview | undefined, broken: LimitProblem[]): Html {
  const limits = broken.length
    ? html`<ul class="limit-problems" data-testid="limit-problem">
        ${broken.map((p) => html`<li>${p.message}</li>`)}
      </ul>`
    : '';
  if (!m || !m.url) {
    return html`<li class="medium${broken.length ? ' breaks-limit' : ''}" data-testid="media-preview">
      <span class="muted">media <span class="mono wrap">${id}</span> ${m ? `(${m.status})` : '(not available)'}</span
      >${limits}
    </li>`;
  }
  const alt = m.altText ?? '';
  const visual = m.mimeType.startsWith('image/')
    ? html`<img class="preview" src="${m.url}" alt="${alt}" loading="lazy" data-testid="image-preview" />`
    : m.mimeType.startsWith('video/')
      ? html`<video
          class="preview"
          controls
          preload="none"
          playsinline
          ${m.posterUrl ? html`poster="${m.posterUrl}"` : ''}
          aria-label="${alt || `Video ${id}`}"
          data-testid="video-preview"
        >
          <source src="${m.url}" type="${m.mimeType}" />
          <a href="${m.url}">Download the video</a>
        </video>`
      : html`<a href="${m.url}" rel="noopener noreferrer">${m.mimeType}</a>`;
  const facts = [
    m.width && m.height ? `${m.width}×${m.height}` : null,
    m.durationMs !== null ? seconds(m.durationMs) : null,
  ].filter(Boolean);
  return html`<li class="medium${broken.length ? ' breaks-limit' : ''}" data-testid="media-preview">
    <figure>
      ${visual}
      <figcaption>
        ${
          alt
            ? html`<span data-testid="alt-text"><span class="muted">Alt:</span> ${alt}</span>`
            : html`<span class="muted" data-testid="alt-text">No alt text</span>`
        }
        ${facts.length ? html`<span class="muted"> · ${facts.join(' · ')}</span>` : ''}
      </figcaption>
    </figure>
    ${limits}
  </li>`;
}

/**
 * The previews of a list of media (a post's, or one channel's), each with the limits it breaks: of
 * `channelId` when given, else of any of the post's channels; problems of the list as a whole after it.
 */
export function mediaPreviews(
  ids: readonly string[],
  media: Map<string, MediaPreview>,
  problems: LimitProblem[] = [],
  channelId?: string,
): Html | string {
  if (!ids.length) return '';
  const whole = problems.filter(
    (p) => MEDIA_FIELD.test(p.field) && (channelId === undefined || p.channelId === channelId),
  );
  return html`<ul class="media-previews">
      ${ids.map((id, i) => mediumPreview(id, media.get(id), problemsOfMedium(problems, i, channelId)))}
    </ul>
    ${
      whole.length
        ? html`<ul class="limit-problems" data-testid="limit-problem">
            ${whole.map((p) => html`<li>${p.message}</li>`)}
          </ul>`
        : ''
    }`;
}

/** The content problems (too long for a network, say) of a channel's text, or of any channel's. */
export function textProblems(problems: LimitProblem[], channelId?: string): Html | string {
  const found = problems.filter(
    (p) => /^(?:targets\[\d+\]\.)?content$/.test(p.field) && (channelId === undefined || p.channelId === channelId),
  );
  return found.length
    ? html`<ul class="limit-problems" data-testid="limit-problem">
        ${found.map((p) => html`<li>${p.message}</li>`)}
      </ul>`
    : '';
}

/** A channel's problems with the post's media (any medium, or the list), as a list. */
export function mediaLimitProblems(problems: LimitProblem[], channelId: string): Html | string {
  const found = problems.filter(
    (p) => p.channelId === channelId && (MEDIUM_FIELD.test(p.field) || MEDIA_FIELD.test(p.field)),
  );
  return found.length
    ? html`<ul class="limit-problems" data-testid="limit-problem">
        ${found.map((p) => html`<li>${p.message}</li>`)}
      </ul>`
    : '';
}
