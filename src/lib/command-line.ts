// Command-line arguments as a person types them: options parsed strictly, every mistake reported in one line that
// names the command and, for a misspelt option or command, the closest known one. Shared by every `tolk` command.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * One `tolk` command: its help, its options and the function that runs it. Options are parsed strictly and the
 * positional arguments counted before `run` is called; a mistake `run` finds is a UsageError, printed with the
 * command's own synopsis.
 */
export interface Command {
  /** The synopsis line after `tolk ` ("key revoke KEY_ID"). */
  synopsis: string;
  summary: string;
  /** Options and their meaning, one per line, for the command's own help. */
  details?: string;
  options: CommandOptions;
  /** Positional arguments the command takes (0 = none). */
  positionals?: number;
  run(values: Record<string, unknown>, positionals: string[]): Promise<void>;
}

/** A mistake in the arguments of `command` (e.g. "key create"); the CLI prints it with that command's own usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Edit distance (insertions, deletions, substitutions), over two short strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name closest to `typed`, when it is close enough to be a slip (at most a third of it differs). */
export function closest(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(typed.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(typed.length / 3)) ? best : undefined;
}

/** `--name` for a long option, `-n` for a one-letter one. */
const flag = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

/** Every option `args` names, as typed (`--acount=x` → `--acount`); values and what follows a lone `--` excluded. */
function typedOptions(args: string[], options: CommandOptions): string[] {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  return tokens.flatMap((t) => (t.kind === 'option' ? [t.rawName] : []));
}

/**
 * Parses `args` against `options`; a mistake throws a UsageError of `command` in words a person can act on, instead
 * of parseArgs' own message (which quotes its advice unevenly).
 */
export function parseCommandArgs<const T extends CommandOptions>(
  command: string,
  args: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  const known = Object.entries(options).flatMap(([name, o]) => [flag(name), ...(o.short ? [flag(o.short)] : [])]);
  for (const typed of typedOptions(args, options)) {
    if (known.includes(typed)) continue;
    const suggestion = closest(typed, known.filter((k) => k.startsWith('--')));
    const hint = suggestion ? `did you mean ${suggestion}?` : known.length ? `its options: ${known.join(', ')}` : 'it takes no options';
    throw new UsageError(`unknown option ${typed} for tolk ${command} (${hint})`, command);
  }
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // "Option '--account <value>' argument missing", or a value given to a switch ("--json=yes")
      const name = /'(-[^' ]+)/.exec((err as Error).message)?.[1] ?? 'an option';
      const isSwitch = Object.entries(options).some(([n, o]) => flag(n) === name && o.type === 'boolean');
      throw new UsageError(isSwitch ? `${name} takes no value` : `${name} needs a value`, command);
    }
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(`bad arguments for tolk ${command}`, command);
    throw err;
  }
}
