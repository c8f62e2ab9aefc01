// The programs of the Bun multicall binary (scripts/build-bun.ts), by the name it is invoked
// as: each entry imports the module a stand-alone executable runs, whose top level runs the
// program. One line adds a program; scripts/programs.test.ts checks that every plugin is here.
export const PROGRAMS = {
  bandwidth: () => import('../plugins/bandwidth/main.ts'),
  bridge: () => import('../plugins/bridge/main.ts'),
  firewall: () => import('../plugins/firewall/main.ts'),
  'cni-run': () => import('../tools/cni-run.ts'),
  'host-local': () => import('../plugins/host-local/main.ts'),
  loopback: () => import('../plugins/loopback/main.ts'),
  portmap: () => import('../plugins/portmap/main.ts'),
  ptp: () => import('../plugins/ptp/main.ts'),
  static: () => import('../plugins/static/main.ts'),
  tuning: () => import('../plugins/tuning/main.ts'),
} satisfies Record<string, () => Promise<unknown>>;

export type ProgramName = keyof typeof PROGRAMS;

export const PROGRAM_NAMES = Object.keys(PROGRAMS).sort() as ProgramName[];

export function isProgramName(name: string): name is ProgramName {
  return Object.hasOwn(PROGRAMS, name);
}
