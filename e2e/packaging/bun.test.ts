// The Bun form (npm run build:bun): dist/bun/cni-ts and its links in dist/bun/bin, with the
// tests every multicall binary gets (e2e/helpers/multicall.ts).
import { multicallTests } from '../helpers/multicall.ts';

multicallTests({ label: 'Bun', dir: 'bun', build: 'npm run build:bun', tag: 'bun', subnet: 252 });
