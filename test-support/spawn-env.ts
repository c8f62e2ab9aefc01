// Our child processes start as a runtime starts them: without tap's processinfo. tap loads
// @tapjs/processinfo into each test process through NODE_OPTIONS, and processinfo hooks every
// spawn (process-on-spawn) to keep it there for the child: each call of a bundle (node) then
// loaded it too, with its module hooks, and wrote a file under .tap/processinfo on exit, more
// than doubling the CPU a plugin call costs. processinfo serves coverage, which .taprc disables.
// Imported by sh.ts (which every e2e test loads), so it runs before a test spawns anything.
const hook = (globalThis as Record<symbol, { listeners?: unknown[] } | undefined>)[Symbol.for('process-on-spawn@*:singletonId')];
hook?.listeners?.splice(0);
const kept = (process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((o) => o !== '' && !o.includes('@tapjs/processinfo'));
if (kept.length > 0) process.env['NODE_OPTIONS'] = kept.join(' ');
else delete process.env['NODE_OPTIONS'];
