// Selecting cases and running them in batches, `jobs` batches at a time.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { selectCases, type Case } from './cases.ts';
import { runBatch, type Impl, type Outcome } from './runner.ts';
import { TARGETS } from '../../test-support/bad-input/targets.ts';
import { kernelLacks } from './kernel-gate.ts';

export interface SuiteOptions {
  readonly seed: number;
  readonly count?: number | undefined;
  readonly pluginDir: string;
  readonly plugins?: readonly string[] | undefined;
  readonly ids?: readonly string[];
  readonly jobs?: number;
  readonly batchSize?: number;
  readonly onFail?: (o: Outcome) => void;
  /** see Impl.lenientCheck */
  readonly lenientCheck?: boolean;
  readonly onControlNote?: Impl['onControlNote'];
  /** a target left out because the kernel lacks the link kind it makes, with the reason */
  readonly onKernelSkip?: (plugin: string, reason: string) => void;
}

export async function runSuite(o: SuiteOptions): Promise<Outcome[]> {
  // A plugin the directory does not have is left out (portmap on an old reference install).
  const present = TARGETS.filter((t) => (o.plugins === undefined || o.plugins.includes(t.plugin)) && existsSync(join(o.pluginDir, t.plugin)));
  // A plugin whose link kind this kernel lacks cannot pass its positive control: its cases run
  // in the kernel lab.
  const targets = [];
  for (const t of present) {
    const lacks = t.onlyWithLink === undefined ? undefined : await kernelLacks(t.onlyWithLink);
    if (lacks === undefined) targets.push(t);
    else o.onKernelSkip?.(t.plugin, lacks);
  }
  const cases = selectCases(targets, o.seed, { ...(o.count !== undefined && { count: o.count }), ...(o.ids && { ids: o.ids }) });
  const size = o.batchSize ?? 40;
  const batches: { t: (typeof targets)[number]; cases: Case[] }[] = [];
  for (const t of targets) {
    const mine = cases.filter((c) => c.plugin === t.plugin);
    for (let i = 0; i < mine.length; i += size) batches.push({ t, cases: mine.slice(i, i + size) });
  }
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const b = batches[next++] as (typeof batches)[number];
      let res: Outcome[];
      try {
        res = await runBatch(b.t, b.cases, {
          pluginDir: o.pluginDir,
          ...(o.lenientCheck !== undefined && { lenientCheck: o.lenientCheck }),
          ...(o.onControlNote && { onControlNote: o.onControlNote }),
        });
      } catch (err) {
        res = b.cases.map((c) => ({
          id: c.id,
          class: c.class,
          plugin: c.plugin,
          verb: c.verb,
          ok: false,
          problems: [(err as Error).message],
          answer: 'not run',
        }));
      }
      for (const r of res) if (!r.ok) o.onFail?.(r);
      outcomes.push(...res);
    }
  };
  await Promise.all(Array.from({ length: o.jobs ?? 2 }, worker));
  return outcomes;
}
