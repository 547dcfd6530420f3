#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer } from './server';

/**
 * `social-publishing-mcp`: the MCP server on stdin/stdout, for desktop agents. Configured by
 * SOCIAL_PUBLISHING_API_KEY and SOCIAL_PUBLISHING_BASE_URL (default http://localhost:3000); with
 * SOCIAL_PUBLISHING_WORKSPACE_ID, it acts in that workspace of the key's organization (X-Workspace-Id).
 * Diagnostics go to stderr: stdout carries the protocol only.
 */
async function main(): Promise<void> {
  const apiKey = process.env.SOCIAL_PUBLISHING_API_KEY;
  if (!apiKey) {
    process.stderr.write('social-publishing-mcp: set SOCIAL_PUBLISHING_API_KEY to an API key of your workspace\n');
    process.exit(1);
  }
  const baseUrl = process.env.SOCIAL_PUBLISHING_BASE_URL ?? 'http://localhost:3000';
  const workspaceId = process.env.SOCIAL_PUBLISHING_WORKSPACE_ID || undefined;
  const server = createServer({ apiKey, baseUrl, ...(workspaceId ? { workspaceId } : {}) });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`social-publishing-mcp: serving ${baseUrl} over stdio\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`social-publishing-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
