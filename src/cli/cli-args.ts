/** Minimal `--flag value` parser: positional arguments and flags, nothing clever. */
export interface ParsedArgs {
  command: string | undefined;
  positional: string[];
  flags: Record<string, string>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const [command, ...rest] = argv;
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq > 0) {
        flags[arg.slice(2, eq)] = arg.slice(eq + 1);
      } else {
        const next = rest[i + 1];
        if (next === undefined || next.startsWith('--')) flags[arg.slice(2)] = 'true';
        else {
          flags[arg.slice(2)] = next;
          i++;
        }
      }
    } else {
      positional.push(arg);
    }
  }
  return { command, positional, flags };
}

/** How the README tells people to run the command line. */
export const RUN = 'npm run -s cli --';

/** A user-facing failure: printed as one line, exit status 1. */
export class CliError extends Error {}

/** The value of a required argument, or a CliError naming it. */
export function required(value: string | undefined, what: string, command: string): string {
  if (value === undefined || value === '' || value === 'true') {
    throw new CliError(`${command} needs ${what} (see "${RUN} help ${command}")`);
  }
  return value;
}
