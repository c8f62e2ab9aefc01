// What the tests read from an installer command line in deploy/'s manifests (`cni-ts install`'s
// options: tools/install/), and the template filled as the installer fills it.
import { fillPlaceholders, parseSet } from '../tools/install/conflist.ts';

export interface InstallArgs {
  readonly target?: string;
  readonly confDir?: string;
  readonly conflist?: string;
  readonly set: Readonly<Record<string, string>>;
  readonly watch: boolean;
}

const VALUED: Record<string, keyof InstallArgs | undefined> = { '--target': 'target', '--conf-dir': 'confDir', '--conflist': 'conflist' };

/** The options the tests look at; the installer itself judges the whole line when it runs. */
export function installArgs(args: readonly string[]): InstallArgs {
  const out: { target?: string; confDir?: string; conflist?: string } = {};
  const sets: string[] = [];
  let watch = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const key = VALUED[a];
    if (key !== undefined) out[key as 'target'] = args[++i] as string;
    else if (a === '--set') sets.push(args[++i] as string);
    else if (a === '--watch') watch = true;
  }
  return { ...out, set: parseSet(sets), watch };
}

/** `template` (a conflist's text) with its {{KEY}} placeholders filled from `set`, as JSON text; a key left unset throws. */
export function fillTemplate(template: string, set: Readonly<Record<string, string>>): string {
  const unset = new Set<string>();
  const filled = fillPlaceholders(JSON.parse(template), set, unset);
  if (unset.size > 0) throw new Error(`no value for ${[...unset].join(', ')}`);
  return JSON.stringify(filled, null, 2);
}
