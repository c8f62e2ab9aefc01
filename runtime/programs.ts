// The programs of the Bun multicall binary (scripts/build/build-bun.ts), by the name it is invoked
// as: each entry imports the module a stand-alone executable runs, whose top level runs the
// program. The list is plugins/registry.ts; only the tools' imports are here, because the
// registry (below the tools in the layers) names their modules without importing them.
import { BINARY_PROGRAM, isProgramName, PROGRAM_NAMES, REGISTRY, type PluginName, type ProgramName } from '../plugins/registry.ts';

export { BINARY_PROGRAM, isProgramName, PROGRAM_NAMES, type ProgramName };

type ToolName = Exclude<ProgramName, PluginName>;

/** runtime/programs.test.ts checks each is the registry's module of that tool. */
export const TOOL_RUNS: Record<ToolName, () => Promise<unknown>> = {
  'cni-run': () => import('../tools/cni-run.ts'),
  'cni-ts': () => import('../tools/cni-ts.ts'),
};

/** Imports (so runs) the program `name`. */
export function runProgram(name: ProgramName): Promise<unknown> {
  const e = REGISTRY[name];
  return e.kind === 'tool' ? TOOL_RUNS[name as ToolName]() : e.main();
}
