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
