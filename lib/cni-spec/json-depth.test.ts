import t from 'tap';
import { decodeConfig } from './config.ts';
import { excessNesting } from './json-depth.ts';

// depth counts the outer object: {"a":[[…]]} with n-1 arrays is n levels.
const nested = (n: number, open = '[', close = ']') => `{"a":${open.repeat(n - 1)}${close.repeat(n - 1)}}`;

t.test("Go's limit: 10,000 levels pass, 10,001 are refused with Go's text", async (t) => {
  t.equal(excessNesting(nested(10_000)), undefined);
  t.equal(excessNesting(nested(10_001)), "invalid character '[' exceeded max depth");
  t.equal(excessNesting(`{"a":${'{"b":'.repeat(10_000)}1${'}'.repeat(10_000)}}`), "invalid character '{' exceeded max depth");
  t.equal(excessNesting(`{"s":"${'['.repeat(20_000)}"}`), undefined, 'brackets inside strings do not count');
  t.equal(excessNesting(`{"s":"\\"${'['.repeat(20_000)}"}`), undefined, 'an escaped quote does not end the string');
  t.equal(excessNesting(`[[]][[]]`, 2), undefined, 'siblings do not add up');
});

t.test('decodeConfig: too deep is code 6, and nothing recursive runs on it', async (t) => {
  t.throws(() => decodeConfig(nested(10_001)), { code: 6, msg: "error unmarshall network config: invalid character '[' exceeded max depth" });
  t.throws(() => decodeConfig(nested(1_000_000)), { code: 6 }, 'a million levels: same answer, no stack overflow');
  t.ok(decodeConfig(nested(10_000)));
});
