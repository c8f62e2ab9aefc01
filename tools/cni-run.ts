// cni-run: a container runtime's side of CNI on the command line. It finds a network by name
// in the conf dir as libcni does, runs its plugins with capability args a Kubernetes runtime
// would pass, and keeps libcni's result cache, so it and cnitool act on each other's pods.
// Usage and exit status: docs/cni-run.md.
import { Command, CommanderError, Option } from 'commander';
import { ALL_VERSIONS } from '../lib/cni-spec/index.ts';
import { DEFAULT_CACHE_DIR } from './libcni/cache.ts';
import { DEFAULT_CONF_DIR } from './libcni/conf-dir.ts';
import { cmdAdd, cmdCheck, cmdDel, cmdGc, cmdStatus, type AttachOptions, type CommonOptions } from './cni-run/commands.ts';
import { describeError, EXIT } from './cni-run/report.ts';
import type { ValidateCliOptions } from './cni-run/validate-cli.ts';
import pkg from '../package.json' with { type: 'json' };

const say = (line: string): void => void process.stderr.write(`cni-run: ${line}\n`);

async function attempt(verb: string, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    const { lines, exit } = describeError(verb, err);
    process.stderr.write(lines.map((l, i) => (i === 0 ? `cni-run: ${l}\n` : `${l}\n`)).join(''));
    process.exitCode = exit;
  }
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

function commonOptions(cmd: Command): Command {
  const env = process.env;
  return cmd
    .addOption(
      new Option('--conf-dir <dir>', 'where networks are looked up by name').default(env['NETCONFPATH'] || DEFAULT_CONF_DIR, '$NETCONFPATH or /etc/cni/net.d'),
    )
    .addOption(new Option('--plugin-dir <dirs>', 'plugin directories, colon separated').default(env['CNI_PATH'] || '/opt/cni/bin', '$CNI_PATH or /opt/cni/bin'))
    .addOption(new Option('--cni-path <dirs>', 'the same as --plugin-dir').hideHelp())
    .option('--cache-dir <dir>', 'libcni result cache (results/ below it)', DEFAULT_CACHE_DIR);
}

function attachOptions(cmd: Command): Command {
  return commonOptions(cmd)
    .option('--ifname <name>', 'interface name in the container', process.env['CNI_IFNAME'] || 'eth0')
    .option('--container-id <id>', 'container id (default: derived from the netns path as cnitool does)')
    .option('--cap-args <json>', 'capability arguments as a JSON object, e.g. {"portMappings":[…]}; over the keys of $CAP_ARGS')
    .option('--port <spec>', 'hostPort mapping HOST:CONTAINER[/tcp|udp|sctp][@hostIP] (repeatable) → portMappings', collect)
    .option('--bandwidth <spec>', 'in=RATE,out=RATE[,inburst=BITS,outburst=BITS], rates in bits/s as Kubernetes quantities (10M, 1Gi) → bandwidth')
    .option('--ips <cidrs>', 'requested addresses CIDR[,CIDR] → ips')
    .option('--mac <mac>', 'requested MAC address → mac')
    .option('--args <pairs>', 'CNI_ARGS as K=V;K=V (default: $CNI_ARGS)');
}

/** --cni-path is the old name of --plugin-dir; an explicit one of either wins over the defaults. */
function resolved<T extends CommonOptions & { cniPath?: string }>(o: T): T {
  return o.cniPath !== undefined ? { ...o, pluginDir: o.cniPath } : o;
}

const NETWORK_HELP = 'network name, looked up in the conf dir; or the path of a .conflist/.conf/.json file, loaded directly';

const program = new Command('cni-run')
  .description('Run CNI networks like a container runtime: add, check, del, gc and status of a network by name; validate configs')
  .version(`cni-run ${pkg.version} (cni-ts)`, '-V, --version')
  .showHelpAfterError('(cni-run help <command> shows its options)')
  .exitOverride();

attachOptions(program.command('add').description('attach a container netns to the network; prints the result JSON'))
  .argument('<network>', NETWORK_HELP)
  .argument('<netns>', 'netns path, e.g. /run/netns/pod1 (a bare name is looked up in /run/netns)')
  .action(async (network: string, netns: string, o: AttachOptions) =>
    attempt('add', async () => {
      const result = await cmdAdd(network, netns, resolved(o), say);
      process.stdout.write(`${JSON.stringify(result, null, 4)}\n`);
    }),
  );

attachOptions(program.command('check').description('check an attachment made by add (or by cnitool) against its cached result'))
  .argument('<network>', NETWORK_HELP)
  .argument('<netns>', 'netns path')
  .action(async (network: string, netns: string, o: AttachOptions) => attempt('check', () => cmdCheck(network, netns, resolved(o), say)));

attachOptions(program.command('del').description('detach: DEL through every plugin in reverse order, then drop the cached result'))
  .argument('<network>', NETWORK_HELP)
  .argument('<netns>', 'netns path (it may be gone already)')
  .action(async (network: string, netns: string, o: AttachOptions) => attempt('del', () => cmdDel(network, netns, resolved(o), say)));

commonOptions(program.command('gc').description('delete cached attachments of the network that are not --valid, then GC every plugin (1.1.0 lists)'))
  .argument('<network>', NETWORK_HELP)
  .option('--valid <containerId:ifname>', 'an attachment that is still in use (repeatable); without any, none is', collect)
  .action(async (network: string, o: CommonOptions & { valid?: string[] }) => attempt('gc', () => cmdGc(network, o.valid, resolved(o), say)));

commonOptions(program.command('status').description('ask every plugin of the network whether it is ready (STATUS, 1.1.0 lists)'))
  .argument('<network>', NETWORK_HELP)
  .action(async (network: string, o: CommonOptions) =>
    attempt('status', async () => {
      process.stdout.write(`${await cmdStatus(network, resolved(o))}\n`);
    }),
  );

program
  .command('validate')
  .description(
    "check config files without running anything: each plugin's config by that plugin's own code, plus the list's rules; exit 0 when valid, 1 if not",
  )
  .argument('<path>', 'a config file, or a directory of them (*.conflist, *.conf, *.json) such as /etc/cni/net.d')
  .option('--json', 'print the report as JSON')
  .option('--port <spec>', 'also check that these capability args reach a plugin that accepts them (as for add)', collect)
  .option('--bandwidth <spec>', 'as for add')
  .option('--ips <cidrs>', 'as for add')
  .option('--mac <mac>', 'as for add')
  .option('--cap-args <json>', 'as for add')
  .option('--args <pairs>', 'CNI_ARGS as for add')
  .option('--ifname <name>', 'as for add', 'eth0')
  .action(async (path: string, o: ValidateCliOptions) =>
    attempt('validate', async () => {
      const { runValidate } = await import('./cni-run/validate-cli.ts');
      const { text, valid } = await runValidate(path, o);
      process.stdout.write(text);
      process.exitCode = valid ? EXIT.ok : EXIT.failed;
    }),
  );

program
  .command('version')
  .description('our version and the CNI spec versions we support')
  .action(() => {
    process.stdout.write(`cni-run ${pkg.version} (cni-ts)\nCNI spec versions: ${ALL_VERSIONS.join(', ')}\n`);
  });

async function main(): Promise<void> {
  try {
    await program.parseAsync();
  } catch (err) {
    // Help and --version end through here too, with exit code 0.
    if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    else throw err;
  }
}

void main();
