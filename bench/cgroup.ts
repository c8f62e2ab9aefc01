// A throwaway cgroup that accounts a burst of processes as one: CPU time (user + sys) of every
// process in it and the peak of the memory charged to it, the figures a node operator sees for
// "40 pods at once". cgroup v2 (one directory: cpu.stat, memory.peak) or v1 (the cpuacct and
// memory hierarchies, each under this process's own group there, so it works inside a
// container whose cgroups are delegated below a path). A process joins by writing its pid to
// every `procs` file before it execs the measured program.
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup';

export interface BurstCgroup {
  /** the cgroup.procs files a process writes its pid to, to join */
  readonly procs: readonly string[];
  /** CPU time of everything that ran in the group, ms */
  cpuMs(): number;
  /** peak memory charged to the group, bytes */
  peakBytes(): number;
  /** removes the group (it must be empty: every member exited) */
  remove(): void;
}

/** This process's path in the v1 hierarchy that carries `controller`, from /proc/self/cgroup. */
function v1Path(controller: string): string {
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, path] = line.split(':');
    if (controllers?.split(',').includes(controller)) return path ?? '/';
  }
  throw new Error(`cgroup v1: no ${controller} hierarchy in /proc/self/cgroup`);
}

function mk(dir: string): string {
  mkdirSync(dir);
  return dir;
}

export function createBurstCgroup(name: string): BurstCgroup {
  if (existsSync(join(ROOT, 'cgroup.controllers'))) {
    // v2: the controllers must be on in the parent's subtree_control, which a delegated
    // systemd slice has; the bench creates its group at the top, as root.
    const dir = mk(join(ROOT, name));
    const stat = () => readFileSync(join(dir, 'cpu.stat'), 'utf8');
    return {
      procs: [join(dir, 'cgroup.procs')],
      cpuMs: () => Number(/usage_usec (\d+)/.exec(stat())?.[1] ?? Number.NaN) / 1000,
      peakBytes: () => Number(readFileSync(join(dir, 'memory.peak'), 'utf8')),
      remove: () => rmdirSync(dir),
    };
  }
  const cpu = mk(join(ROOT, 'cpuacct', v1Path('cpuacct'), name));
  const mem = mk(join(ROOT, 'memory', v1Path('memory'), name));
  return {
    procs: [join(cpu, 'cgroup.procs'), join(mem, 'cgroup.procs')],
    cpuMs: () => Number(readFileSync(join(cpu, 'cpuacct.usage'), 'utf8')) / 1e6,
    peakBytes: () => Number(readFileSync(join(mem, 'memory.max_usage_in_bytes'), 'utf8')),
    remove: () => {
      rmdirSync(cpu);
      rmdirSync(mem);
    },
  };
}
