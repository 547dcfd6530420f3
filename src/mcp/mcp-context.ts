/**
 * The MCP resources and prompts: data, like the tool table (mcp-tools.ts), so the remote server
 * (mcp.service.ts) and the stdio package (packages/mcp, through its generated tools file) serve the
 * same ones, declared once. A resource is the answer of a read-only tool; a prompt is a template whose
 * `{{argument}}` places take the argument, or its `fallback` when the agent gives none.
 */
import type { McpToolName } from './mcp-tools';

export interface McpResourceSpec {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: 'application/json';
  /** The read-only tool whose answer the resource is, and its arguments. */
  tool: McpToolName;
  args: Record<string, unknown>;
}

export interface McpPromptArgument {
  name: string;
  description: string;
  required: boolean;
  /** What the template says where the argument was not given. */
  fallback?: string;
}

export interface McpPromptSpec {
  name: string;
  title: string;
  description: string;
  arguments: McpPromptArgument[];
  /** The user message, with `{{name}}` for each argument. */
  template: string;
}

/** Read-only context an agent can attach: the channels and the networks' limits. */
export const MCP_RESOURCES: readonly McpResourceSpec[] = [
  {
    name: 'channels',
    uri: 'channels://list',
    title: 'Connected channels',
    description: 'The connected channels of the workspace (first 100) with their ids, status and limits.',
    mimeType: 'application/json',
    tool: 'list_channels',
    args: { limit: 100 },
  },
  {
    name: 'providers',
    uri: 'providers://limits',
    title: 'Networks and their limits',
    description:
      'Every network this server can post to, with its limits (characters, media, video) and options schema.',
    mimeType: 'application/json',
    tool: 'list_providers',
    args: {},
  },
];

export const MCP_PROMPTS: readonly McpPromptSpec[] = [
  {
    name: 'draft_post',
    title: 'Draft a post for my channels',
    description: 'Writes a post within every chosen network’s limits, validates it and saves it as a draft.',
    arguments: [
      { name: 'brief', description: 'What the post is about', required: true },
      {
        name: 'channels',
        description: 'Channel names or ids to post to (default: ask me)',
        required: false,
        fallback: 'list them with list_channels and ask me which to use',
      },
    ],
    template:
      'Draft a social media post about: {{brief}}\n' +
      'Channels: {{channels}}.\n' +
      'Read the limits of each channel (list_channels, `limits`) and keep within the strictest one, or use ' +
      'per-channel `targets` overrides. Call validate_post and fix every problem it names, then create_post ' +
      'without scheduledAt (a draft) with an idempotencyKey, and show me the result.',
  },
  {
    name: 'schedule_week',
    title: 'Plan a week of posts',
    description: 'Plans several posts across the coming week, validated and queued into the posting slots.',
    arguments: [{ name: 'theme', description: 'The theme or campaign of the week', required: true }],
    template:
      'Plan five posts for the coming week on: {{theme}}.\n' +
      'List my channels, respect each network’s limits, validate each post with validate_post, then ' +
      'create each with create_post and `queue: true` (the next free posting slot) or a `scheduledAt`, ' +
      'each with its own idempotencyKey. Summarise what was scheduled (or is pending approval).',
  },
];

/** The prompt's text for these arguments; a required argument missing is an error naming it. */
export function renderPrompt(prompt: McpPromptSpec, args: Record<string, string | undefined>): string {
  for (const a of prompt.arguments) {
    if (a.required && !args[a.name]) throw new Error(`The prompt ${prompt.name} needs the argument ${a.name}`);
  }
  return prompt.template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = args[name];
    return value ? value : (prompt.arguments.find((a) => a.name === name)?.fallback ?? '');
  });
}
