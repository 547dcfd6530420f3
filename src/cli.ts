import 'reflect-metadata';
import { CliError, RUN, parseArgs, required } from './cli/cli-args';
// The error class alone, not the errors index (whose exception filter loads Nest): help and argument
// mistakes are answered before the application's modules are loaded (src/cli-commands.ts).
import { AppError } from './common/errors/app-error';

/** Every command with its usage line and description; `help <command>` prints one of them. */
const COMMANDS: Record<string, { usage: string; about: string }> = {
  'keys:create': {
    usage:
      'keys:create --workspace <name-or-id> [--name <label>] [--environment production|development|local] [--expires-at <RFC 3339>] [--rate-limit <per-minute>] [--burst <n>] [--scopes <scope,scope,...>]',
    about:
      'Creates the workspace (by name) if needed and an API key in it; prints {"id","key","workspaceId","name","prefix","environment","scopes"}.\n' +
      'The key is shown this once. --rate-limit and --burst override the default limits for this key.\n' +
      '--scopes limits what the key may do (default *, every scope): posts:read, posts:write, posts:publish,\n' +
      'posts:approve, media:write, channels:read, channels:manage, webhooks:manage, analytics:read, keys:manage, events:read,\n' +
      'workspaces:manage.\n' +
      'Workspace "default" is the one of the key printed at first start and of the console\'s first owner.',
  },
  'keys:list': {
    usage: 'keys:list --workspace <name-or-id>',
    about: 'Lists the workspace\'s keys (never their secrets); prints {"workspaceId","data":[...]}.',
  },
  'keys:revoke': {
    usage: 'keys:revoke <key-id>',
    about: 'Revokes a key, effective from the next request; prints {"id","workspaceId","revokedAt"}.',
  },
  'users:create': {
    usage: 'users:create --email <email> --workspace <name-or-id> [--role owner|approver|member]',
    about:
      'Creates the workspace (by name) if needed and a console user in it; prints {"email","workspaceId","role","setupLink",...}:\n' +
      'a one-time link where the person sets a password (an existing account is added directly).',
  },
  'organizations:create': {
    usage: 'organizations:create --name <name>',
    about:
      'Creates an organization with one workspace of the same name and a key holding * in it; prints\n' +
      '{"organizationId","workspaceId","key"}. The key (shown this once) manages the organization\'s workspaces\n' +
      '(workspaces:manage): POST /api/workspaces, then X-Workspace-Id to act in each.',
  },
  help: { usage: 'help [<command>]', about: 'Prints this help, or the help of one command.' },
};

function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}`);
  return [
    `Usage: ${RUN} <command> [options]`,
    '',
    'Commands:',
    ...lines,
    '',
    `Run "${RUN} help <command>" for details. Output is one JSON document on stdout; errors are one`,
    'line on stderr with exit status 1. Configuration comes from the environment and ./.env.',
  ].join('\n');
}

function commandHelp(name: string): string {
  const c = COMMANDS[name];
  return `Usage: ${RUN} ${c.usage}\n\n${c.about}`;
}

async function main(): Promise<void> {
  const { command, positional, flags } = parseArgs(process.argv.slice(2));
  if (command === undefined || command === '--help' || command === '-h' || (command === 'help' && !positional[0])) {
    if (command === undefined) throw new CliError(`no command given (see "${RUN} --help")`);
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const topic = command === 'help' ? positional[0] : command;
  if (!(topic in COMMANDS) || topic === 'help') {
    throw new CliError(`unknown command "${topic}" (see "${RUN} --help")`);
  }
  if (command === 'help' || flags.help !== undefined || flags.h !== undefined) {
    process.stdout.write(`${commandHelp(topic)}\n`);
    return;
  }

  // The arguments a command cannot run without are checked before anything else is loaded.
  if (command === 'keys:create' || command === 'keys:list') required(flags.workspace, '--workspace', command);
  if (command === 'keys:revoke') required(positional[0], 'a key id', command);
  if (command === 'organizations:create') required(flags.name, '--name', command);

  const { runCommand } = await import('./cli-commands');
  const out = await runCommand({ command, positional, flags });
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** One line for any failure: our own message, the error code, or the first cause's message. */
function oneLineError(err: unknown): string {
  let message: string;
  if (err instanceof AppError) message = `${err.message} (${err.code})`;
  else if (err instanceof AggregateError && !err.message && err.errors.length > 0) {
    message = oneLineError(err.errors[0]);
  } else if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    message = err.message || (typeof code === 'string' ? code : err.name);
  } else message = String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

main()
  .then(() => process.exit(0))
  .catch((err: unknown) => {
    process.stderr.write(`error: ${oneLineError(err)}\n`);
    process.exit(1);
  });
