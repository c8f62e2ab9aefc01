// The daemon's command line, read as Go's flag package reads the reference's
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/main.go): `-name value`,
// `-name=value`, two dashes alike, booleans bare or `=true`/`=false`, durations in Go's syntax. Pure.

export interface DaemonFlags {
  pidfile: string;
  hostprefix: string;
  socketpath: string;
  broadcast: boolean;
  /** ms */
  timeout: number;
  resendmax: number;
  resendtimeout: number;
  /** ours: where leases are kept across restarts */
  statedir: string;
}

export const DEFAULT_FLAGS: DaemonFlags = {
  pidfile: '',
  hostprefix: '',
  socketpath: '',
  broadcast: false,
  timeout: 10_000,
  resendmax: 62_000,
  resendtimeout: 208_000,
  statedir: '/var/lib/cni/dhcp',
};

export const USAGE = `Usage of daemon:
  -broadcast
    \tbroadcast DHCP leases
  -hostprefix string
    \toptional prefix to host root
  -pidfile string
    \toptional path to write daemon PID to
  -resendmax duration
    \toptional dhcp client max resend delay between requests (default 1m2s)
  -resendtimeout duration
    \toptional dhcp client resend timeout, no more retries after this timeout (default 3m28s)
  -socketpath string
    \toptional dhcp server socketpath
  -statedir string
    \twhere leases are kept across restarts (default "/var/lib/cni/dhcp")
  -timeout duration
    \toptional dhcp client timeout duration for each request (default 10s)
`;

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, '\u00b5s': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration, in ms: "10s", "1m30s", "1.5h", "300ms", "0". */
export function parseGoDuration(text: string): number {
  if (text === '0') return 0;
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|ms|s|m|h))+$/.exec(text);
  if (!m) throw new FlagError(`time: invalid duration ${JSON.stringify(text)}`);
  let ms = 0;
  for (const part of text.slice(m[1]?.length ?? 0).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|ms|s|m|h)/g)) {
    ms += Number(part[1]) * (UNIT_MS[part[2] as string] as number);
  }
  return m[1] === '-' ? -ms : ms;
}

const BOOLS = new Set(['broadcast']);
const DURATIONS = new Set(['timeout', 'resendmax', 'resendtimeout']);
const STRINGS = new Set(['pidfile', 'hostprefix', 'socketpath', 'statedir']);

export function parseDaemonFlags(argv: readonly string[]): DaemonFlags {
  const flags: DaemonFlags = { ...DEFAULT_FLAGS };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // Go's flag stops at the first non-flag argument; the reference takes none.
    if (arg === '--' || !arg.startsWith('-') || arg === '-') break;
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    let value = eq < 0 ? undefined : body.slice(eq + 1);
    if (name === 'h' || name === 'help') throw new FlagError('help requested');
    if (BOOLS.has(name)) {
      if (value !== undefined && !['true', 'false', '1', '0', 't', 'f', 'TRUE', 'FALSE', 'True', 'False', 'T', 'F'].includes(value)) {
        throw new FlagError(`invalid boolean value ${JSON.stringify(value)} for -${name}: parse error`);
      }
      (flags as unknown as Record<string, boolean>)[name] = value === undefined || ['true', '1', 't', 'TRUE', 'True', 'T'].includes(value);
      continue;
    }
    if (!DURATIONS.has(name) && !STRINGS.has(name)) throw new FlagError(`flag provided but not defined: -${name}`);
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new FlagError(`flag needs an argument: -${name}`);
      value = argv[++i] ?? '';
    }
    if (DURATIONS.has(name)) {
      try {
        (flags as unknown as Record<string, number>)[name] = parseGoDuration(value);
      } catch {
        throw new FlagError(`invalid value ${JSON.stringify(value)} for flag -${name}: parse error`);
      }
    } else (flags as unknown as Record<string, string>)[name] = value;
  }
  return flags;
}
