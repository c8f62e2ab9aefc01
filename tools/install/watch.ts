// `cni-ts install --watch`: after the first round, stays running and repairs. A change in the
// target dir or the conf dir (inotify, through fs.watch) starts a round soon after; a full round
// also runs every interval, for what inotify misses (a watch lost with a remounted directory).
// SIGTERM and SIGINT end it after the round in progress: every step is atomic, but a round cut
// short would leave its temporary files.
import { watch, type FSWatcher } from 'node:fs';

export interface WatchOptions {
  readonly dirs: readonly string[];
  readonly intervalMs: number;
  /** one round; its errors are reported and the watch goes on */
  readonly round: () => Promise<void>;
  readonly onError: (err: unknown) => void;
  readonly log: (line: string) => void;
}

const SETTLE_MS = 200;

export async function watchAndRepair(o: WatchOptions): Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;

  const run = (): void => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = o
      .round()
      .catch(o.onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(run, SETTLE_MS);
  };

  const watchers: FSWatcher[] = [];
  for (const d of o.dirs) {
    try {
      const w = watch(d, { persistent: true }, soon);
      w.on('error', (err) => o.onError(err));
      watchers.push(w);
    } catch (err) {
      o.log(`cannot watch ${d} (${(err as Error).message}): the periodic check still runs`);
    }
  }
  const every = setInterval(run, o.intervalMs);
  o.log(`watching ${o.dirs.join(' and ')} (full check every ${o.intervalMs / 1000} s)`);

  await new Promise<void>((resolve) => {
    const stop = (sig: string) => {
      if (stopping) return;
      stopping = true;
      clearTimeout(timer);
      clearInterval(every);
      for (const w of watchers) w.close();
      void (running ?? Promise.resolve()).then(() => {
        o.log(`${sig}: stopped watching`);
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
