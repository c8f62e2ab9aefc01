// `cni-ts install` carried out: the target checked, the plan of tools/install/plan.ts made from
// what lies there, ownership recorded before a file lands, each step run and reported on one line.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PROGRAM_NAMES } from '../../plugins/registry.ts';
import type { Conflist } from './conflist.ts';
import {
  fail,
  InstallError,
  listTarget,
  MANIFEST,
  putCopy,
  putLink,
  putText,
  readManifest,
  remove,
  removePending,
  removeStale,
  sha256File,
  syncDir,
  writeManifest,
} from './files.ts';
import { planInstall, planUninstall, type InstallWhy, type Manifest, type Step } from './plan.ts';
import type { Source } from './source.ts';

export interface Target {
  readonly dir: string;
  readonly confDir: string;
}

export interface RunContext {
  readonly log: (line: string) => void;
  /** how long a binary the old starters exec by path outlives them (ms) */
  readonly graceMs: number;
  /** report only what changed (the --watch rounds after the first) */
  readonly quiet?: boolean;
}

const WHY: Record<InstallWhy, string> = {
  new: 'installed',
  upgrade: 'upgraded',
  missing: 'restored (was missing)',
  changed: 'restored (was changed)',
  'take-over': 'took over (was foreign)',
};

/**
 * A target we refuse rather than guess about: a symlink (in an init container a host path's
 * link would resolve inside the container's file system), anything but a directory.
 */
export function checkTarget(dir: string, create: boolean): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !create) fail('cannot use the target', dir, err);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
    } catch (e) {
      fail('cannot create the target', dir, e);
    }
    st = lstatSync(dir);
  }
  if (st.isSymbolicLink()) {
    let to = '?';
    try {
      to = readlinkSync(dir);
    } catch {
      // named without its destination then
    }
    throw new InstallError(`target ${dir} is a symlink (to ${to}): give the directory itself as --target`);
  }
  if (!st.isDirectory()) throw new InstallError(`target ${dir} is not a directory`);
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Runs the steps; `done` records each one that changed the directory, for the manifest on failure. */
async function runSteps(steps: readonly Step[], source: Source | undefined, t: Target & { ctx: RunContext; done: Set<string> }): Promise<number> {
  const { ctx, done } = t;
  const at = (name: string) => join(t.dir, name);
  let changed = 0;
  let graced = false;
  // A name holding the same bytes (put in this run, or unchanged): the next one is a hard link of it (the starter).
  const putBy = new Map<string, string>();
  for (const s of steps) {
    if ((s.op === 'install' || s.op === 'remove') && s.afterGrace && !graced) {
      syncDir(t.dir);
      ctx.log(`waiting ${ctx.graceMs} ms for starters that may still run the old ${s.name}`);
      await sleep(ctx.graceMs);
      graced = true;
    }
    switch (s.op) {
      case 'install': {
        const f = source?.files.find((x) => x.name === s.name);
        if (f === undefined) throw new InstallError(`internal: ${s.name} is not in the source`);
        const twin = putBy.get(f.sha256);
        if (twin !== undefined) putLink(t.dir, twin, s.name);
        else putCopy(f.path, t.dir, s.name);
        putBy.set(f.sha256, s.name);
        done.add(s.name);
        changed++;
        ctx.log(`${WHY[s.why]} ${at(s.name)}`);
        break;
      }
      case 'remove':
        remove(t.dir, s.name);
        done.add(s.name);
        changed++;
        ctx.log(`removed ${at(s.name)}`);
        break;
      case 'unchanged': {
        // A starter put back later in this run becomes a link of this one, as the build lays them out.
        const sha = source?.files.find((x) => x.name === s.name)?.sha256;
        if (sha !== undefined && !putBy.has(sha)) putBy.set(sha, s.name);
        if (s.adopted) changed++;
        if (!ctx.quiet || s.adopted) ctx.log(`${s.adopted ? 'adopted (already our bytes)' : 'unchanged'} ${at(s.name)}`);
        break;
      }
      case 'foreign':
        if (!ctx.quiet) ctx.log(`kept foreign ${at(s.name)} (${s.what} not installed by cni-ts; --take-over replaces it)`);
        break;
      case 'leave':
        if (!ctx.quiet) ctx.log(`left ${at(s.name)} (${s.what})`);
        break;
    }
  }
  return changed;
}

/** The conflist step: written when absent or different; the one we wrote before under another name removed. */
function putConflist(conf: Conflist | undefined, before: Manifest['conflist'], t: Target, ctx: RunContext): Manifest['conflist'] | null {
  if (conf === undefined) return before ?? null;
  const path = join(t.confDir, conf.file);
  const sha = sha256Text(conf.text);
  checkTarget(t.confDir, true);
  let current: string | undefined;
  try {
    current = lstatSync(path).isFile() ? sha256File(path) : 'not a file';
  } catch {
    // absent: written below
  }
  if (current !== sha) {
    putText(t.confDir, conf.file, conf.text);
    ctx.log(`${current === undefined ? 'wrote' : 'rewrote'} ${path}`);
  } else if (!ctx.quiet) ctx.log(`unchanged ${path}`);
  if (before !== undefined && before.path !== path) removeOurConflist(before, ctx);
  syncDir(t.confDir);
  return { path, sha256: sha };
}

function removeOurConflist(c: NonNullable<Manifest['conflist']>, ctx: RunContext): void {
  let sha: string | undefined;
  try {
    sha = lstatSync(c.path).isFile() ? sha256File(c.path) : undefined;
  } catch {
    return;
  }
  if (sha !== c.sha256) return ctx.log(`left ${c.path} (changed since we wrote it)`);
  remove(join(c.path, '..'), c.path.slice(c.path.lastIndexOf('/') + 1));
  ctx.log(`removed ${c.path}`);
}

const sha256Text = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface InstallRound {
  readonly source: Source;
  readonly conf: Conflist | undefined;
  readonly takeOver: boolean;
  /** the build's, recorded in the manifest */
  readonly version: string;
}

/** One install round; returns how many names it changed. */
export async function install({ source, conf, takeOver, version }: InstallRound, t: Target, ctx: RunContext): Promise<number> {
  checkTarget(t.dir, true);
  for (const f of removeStale(t.dir)) ctx.log(`removed ${join(t.dir, f)} (a temporary file of an installer that died)`);
  const manifest = readManifest(t.dir);
  const names = [...source.files.map((f) => f.name), ...Object.keys(manifest?.files ?? {})];
  const plan = planInstall({
    manifest,
    target: listTarget(t.dir, names),
    form: source.form,
    version,
    source: source.files,
    knownPrograms: new Set(PROGRAM_NAMES),
    takeOver,
  });
  const done = new Set<string>();
  const writes = plan.steps.some((s) => s.op === 'install' || s.op === 'remove' || (s.op === 'unchanged' && s.adopted));
  const sameManifest = manifest !== undefined && JSON.stringify(strip(manifest)) === JSON.stringify(strip(plan.manifestAfter));
  if (writes || !sameManifest) writeManifest(t.dir, plan.manifestBefore);
  let changed: number;
  try {
    changed = await runSteps(plan.steps, source, { ...t, ctx, done });
    if (changed > 0) syncDir(t.dir);
  } catch (err) {
    removePending();
    // What the directory holds now: the names we changed carry the new bytes (or are gone).
    recordPartial(t.dir, manifest, plan.manifestAfter, done);
    throw err;
  }
  const conflist = putConflist(conf, manifest?.conflist, t, ctx);
  const after: Manifest = { ...plan.manifestAfter, ...(conflist ? { conflist } : {}) };
  if (!sameManifest || writes || JSON.stringify(conflist ?? undefined) !== JSON.stringify(manifest?.conflist)) writeManifest(t.dir, after);
  return changed;
}

function strip(m: Manifest): Manifest {
  return { version: m.version, form: m.form, files: m.files, ...(m.conflist ? { conflist: m.conflist } : {}) };
}

function recordPartial(dir: string, before: Manifest | undefined, after: Manifest, done: ReadonlySet<string>): void {
  const files: Record<string, string> = { ...(before?.files ?? {}) };
  for (const n of done) {
    if (after.files[n] !== undefined) files[n] = after.files[n];
    else delete files[n];
  }
  try {
    writeManifest(dir, { ...(before ?? after), files });
  } catch {
    // The manifest written before the first step stays: it claims only names this run was entitled to.
  }
}

export async function uninstall(t: Target, ctx: RunContext): Promise<void> {
  checkTarget(t.dir, false);
  const manifest = readManifest(t.dir);
  if (manifest === undefined) throw new InstallError(`${t.dir} has no manifest (${MANIFEST}): cni-ts installed nothing there`);
  const plan = planUninstall(manifest, listTarget(t.dir, Object.keys(manifest.files)));
  const done = new Set<string>();
  try {
    await runSteps(plan.steps, undefined, { ...t, ctx, done });
  } catch (err) {
    recordPartial(t.dir, manifest, { ...manifest, files: {} }, done);
    throw err;
  }
  if (manifest.conflist) removeOurConflist(manifest.conflist, ctx);
  remove(t.dir, MANIFEST);
  syncDir(t.dir);
  ctx.log(`removed ${join(t.dir, MANIFEST)}`);
}
