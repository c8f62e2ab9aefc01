// What `cni-ts install` does to a plugin directory, decided before anything is touched: from the
// manifest of what we own there, what lies in the directory now and what the source holds, the
// steps in the order they must run. Pure: tools/install/apply.ts carries the steps out.
//
// Ownership (docs/install.md): a name is ours when the manifest lists it. A name we do not own
// is foreign and left alone unless the caller takes it over; a file that already has our bytes
// is adopted without being written. A name we own stays ours: missing or changed, it is put back
// (a runtime must find our plugin there), until --uninstall, which removes only files that still
// hold the bytes we wrote.

export type Form = 'bun' | 'bundle';

/** The program the Bun form's starters exec by path (runtime/bun-starter.c). */
export const BUN_BINARY = 'cni-ts';

export interface Manifest {
  /** the build that wrote the owned files */
  readonly version: string;
  readonly form: Form;
  /** name in the target dir → sha256 of the bytes we put there */
  readonly files: Readonly<Record<string, string>>;
  /** the conflist we wrote into the conf dir, if any */
  readonly conflist?: { readonly path: string; readonly sha256: string };
}

/** What lies at a name in the target dir. */
export type Present = { readonly kind: 'file'; readonly sha256: string } | { readonly kind: 'symlink' } | { readonly kind: 'other'; readonly what: string };

export interface SourceFile {
  readonly name: string;
  readonly sha256: string;
}

export interface InstallInput {
  readonly manifest: Manifest | undefined;
  /** the names of interest (the source's and the manifest's) that exist in the target dir */
  readonly target: ReadonlyMap<string, Present>;
  readonly form: Form;
  readonly version: string;
  /** in the order they must land (the Bun form: the binary first, so every starter finds it) */
  readonly source: readonly SourceFile[];
  /** every program of the build, selected or not: an owned name outside it is obsolete */
  readonly knownPrograms: ReadonlySet<string>;
  readonly takeOver: boolean;
}

export type InstallWhy = 'new' | 'upgrade' | 'missing' | 'changed' | 'take-over';

export type Step =
  /** `afterGrace`: only once the starters that ran the file by path are gone, and a grace period later */
  | { readonly op: 'install'; readonly name: string; readonly why: InstallWhy; readonly afterGrace: boolean }
  | { readonly op: 'unchanged'; readonly name: string; readonly adopted: boolean }
  | { readonly op: 'foreign'; readonly name: string; readonly what: string }
  | { readonly op: 'remove'; readonly name: string; readonly afterGrace: boolean }
  /** an owned file that is not ours any more to remove: someone changed it, or it is no file */
  | { readonly op: 'leave'; readonly name: string; readonly what: string };

export interface InstallPlan {
  readonly steps: readonly Step[];
  /** recorded before any file lands: every name this run may put there is already ours */
  readonly manifestBefore: Manifest;
  /** recorded when every step ran */
  readonly manifestAfter: Manifest;
}

function describe(p: Present): string {
  return p.kind === 'symlink' ? 'a symlink' : p.kind === 'other' ? p.what : 'a file';
}

/**
 * A switch from the Bun form to the bundles: the old starters run `cni-ts` by path, so the
 * binary under that name must outlive every starter (replaced last, after a grace period).
 */
const binaryOutlivesStarters = (manifest: Manifest | undefined, form: Form): boolean =>
  manifest !== undefined && manifest.form === 'bun' && form !== 'bun' && BUN_BINARY in manifest.files;

export function planInstall(input: InstallInput): InstallPlan {
  const { manifest, target, form, source, takeOver } = input;
  const owned = manifest?.files ?? {};
  const late = binaryOutlivesStarters(manifest, form);
  const steps: Step[] = [];
  const after: Record<string, string> = {};
  const early: Step[] = [];
  const last: Step[] = [];

  for (const f of source) {
    const here = target.get(f.name);
    const ours = Object.hasOwn(owned, f.name);
    const afterGrace = late && f.name === BUN_BINARY;
    const put = (why: InstallWhy) => {
      after[f.name] = f.sha256;
      (afterGrace ? last : early).push({ op: 'install', name: f.name, why, afterGrace });
    };
    if (here === undefined) {
      put(ours ? 'missing' : 'new');
    } else if (here.kind === 'other') {
      // Nothing replaces a directory (or a device...) by rename; it is not ours either way.
      early.push({ op: 'foreign', name: f.name, what: here.what });
    } else if (here.kind === 'file' && here.sha256 === f.sha256) {
      after[f.name] = f.sha256;
      early.push({ op: 'unchanged', name: f.name, adopted: !ours });
    } else if (ours) {
      put(here.kind === 'file' && here.sha256 === owned[f.name] ? 'upgrade' : 'changed');
    } else if (takeOver) {
      put('take-over');
    } else {
      early.push({ op: 'foreign', name: f.name, what: describe(here) });
    }
  }

  // Owned names this source does not install: those of the other form (after a switch) or of a
  // program the build no longer has go; the rest (a program left out by --programs) stay ours.
  const sourceNames = new Set(source.map((f) => f.name));
  const formChanged = manifest !== undefined && manifest.form !== form;
  for (const [name, sha] of Object.entries(owned)) {
    if (sourceNames.has(name)) continue;
    const here = target.get(name);
    const obsolete = formChanged || !input.knownPrograms.has(name);
    if (!obsolete) {
      if (here !== undefined) after[name] = sha;
      continue;
    }
    if (here === undefined) continue;
    const afterGrace = late && name === BUN_BINARY;
    if (here.kind === 'file' && here.sha256 === sha) (afterGrace ? last : early).push({ op: 'remove', name, afterGrace });
    else early.push({ op: 'leave', name, what: `${describe(here)} changed since we installed it` });
  }
  // Removals after every install: a name we drop is never needed by one we put.
  const order = (s: Step) => (s.op === 'remove' ? 1 : 0);
  steps.push(...early.sort((a, b) => order(a) - order(b)), ...last.sort((a, b) => order(a) - order(b)));

  const conflist = manifest?.conflist;
  const manifestAfter: Manifest = { version: input.version, form, files: sortedRecord(after), ...(conflist ? { conflist } : {}) };
  const manifestBefore: Manifest = { ...manifestAfter, files: sortedRecord({ ...owned, ...after }) };
  return { steps, manifestBefore, manifestAfter };
}

export interface UninstallPlan {
  readonly steps: readonly Step[];
}

/**
 * Removes what the manifest says we own and that still holds our bytes. The Bun form's binary
 * goes last, after a grace period: a starter exec'd just before its removal still runs it.
 */
export function planUninstall(manifest: Manifest, target: ReadonlyMap<string, Present>): UninstallPlan {
  const first: Step[] = [];
  const last: Step[] = [];
  for (const [name, sha] of Object.entries(manifest.files)) {
    const here = target.get(name);
    if (here === undefined) continue;
    const afterGrace = manifest.form === 'bun' && name === BUN_BINARY && Object.keys(manifest.files).length > 1;
    if (here.kind === 'file' && here.sha256 === sha) (afterGrace ? last : first).push({ op: 'remove', name, afterGrace });
    else first.push({ op: 'leave', name, what: `${describe(here)} changed since we installed it` });
  }
  return { steps: [...first, ...last] };
}

function sortedRecord(r: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
