// Import cycles among our own modules, for the lint gate: a cycle makes module evaluation order
// depend on which file is loaded first (a value read before its module ran is undefined).
// Type-only imports are erased before run time and do not count.
import { dirname, join, normalize } from 'node:path';

/** Relative modules a source imports or re-exports for their values, as paths from the repo root. */
export function valueImports(file: string, source: string): string[] {
  const found: string[] = [];
  const re = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of source.matchAll(re)) {
    if (m[2] !== undefined) continue;
    found.push(normalize(join(dirname(file), m[3] as string)));
  }
  return found;
}

/** Each cycle once, as the list of files around it, starting at its smallest name. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  // Iterative DFS: the graph can be as deep as the tree, and recursion depth should not depend on it.
  for (const start of [...graph.keys()].sort()) {
    if (state.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    state.set(start, 'open');
    stack.push(start);
    while (work.length > 0) {
      const top = work[work.length - 1] as { node: string; next: number };
      const deps = graph.get(top.node) ?? [];
      if (top.next >= deps.length) {
        state.set(top.node, 'done');
        stack.pop();
        work.pop();
        continue;
      }
      const dep = deps[top.next++] as string;
      if (!graph.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'open') {
        const cycle = stack.slice(stack.indexOf(dep));
        const min = cycle.indexOf([...cycle].sort()[0] as string);
        const canonical = [...cycle.slice(min), ...cycle.slice(0, min)];
        cycles.set(canonical.join(' → '), canonical);
      } else if (s === undefined) {
        state.set(dep, 'open');
        stack.push(dep);
        work.push({ node: dep, next: 0 });
      }
    }
  }
  return [...cycles.values()];
}
