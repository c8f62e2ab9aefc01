// The SEA form (npm run build:sea): dist/sea/cni-ts and its links in dist/sea/bin, with the
// tests every multicall binary gets (e2e/helpers/multicall.ts).
import { multicallTests } from './helpers/multicall.ts';

multicallTests({ label: 'SEA', dir: 'sea', build: 'npm run build:sea', tag: 'sea', subnet: 253 });
