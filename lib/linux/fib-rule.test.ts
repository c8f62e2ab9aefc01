import t from 'tap';
import { encodeRule, parseRule } from './fib-rule.ts';

// Payloads (after the 16-byte nlmsghdr) captured with `strace -xx` from iproute2 6.1:
//   ip rule add from 10.1.2.3/32 table 100
//   ip rule del from 10.1.2.3/32 table 100
//   ip -6 rule add from fd00::5/128 table 1000
const IP_RULE_ADD_V4 = '02002000640000010000000008000200 0a010203';
const IP_RULE_DEL_V4 = '02002000640000000000000008000200 0a010203';
const IP_RULE_ADD_V6 = '0a008000000000010000000014000200 fd000000000000000000000000000005 08000f00e8030000';
const hex = (s: string): string => s.replace(/ /g, '');

t.test('NEWRULE and DELRULE payloads are the bytes iproute2 sends', async (t) => {
  t.equal(encodeRule({ src: '10.1.2.3/32', table: 100 }, 'add').toString('hex'), hex(IP_RULE_ADD_V4));
  t.equal(encodeRule({ src: '10.1.2.3/32', table: 100 }, 'del').toString('hex'), hex(IP_RULE_DEL_V4));
  t.equal(encodeRule({ src: 'fd00::5/128', table: 1000 }, 'add').toString('hex'), hex(IP_RULE_ADD_V6), 'a table above 255 only in FRA_TABLE');
});

t.test('a bad source is refused before anything is sent', async (t) => {
  t.throws(() => encodeRule({ src: '10.1.2.300/32', table: 100 }, 'add'), TypeError);
  t.throws(() => encodeRule({ src: '10.1.2.3/33', table: 100 }, 'add'), TypeError);
});

t.test('a dumped rule is read back: source, table (header or FRA_TABLE), priority', async (t) => {
  // `ip rule` dump entry for "32765: from 10.1.2.3 lookup 100": header, FRA_TABLE 100, FRA_PRIORITY 32765, FRA_SRC
  const dumped = Buffer.from('020020006400000100000000' + '08000f0064000000' + '08000600fd7f0000' + '080002000a010203', 'hex');
  t.same(parseRule(dumped), { family: 4, src: '10.1.2.3/32', table: 100, priority: 32765 });
  t.same(parseRule(Buffer.from(hex(IP_RULE_ADD_V6), 'hex')), { family: 6, src: 'fd00::5/128', table: 1000 });
  // "0: from all lookup local": no FRA_SRC
  t.same(parseRule(Buffer.from('02000000ff00000100000000' + '08000f00ff000000', 'hex')), { family: 4, table: 255 });
  t.equal(parseRule(Buffer.from('0700', 'hex')), undefined, 'truncated');
});
