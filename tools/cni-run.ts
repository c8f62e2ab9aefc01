// cni-run: runs a conflist through CNI plugins the way a container runtime does
// (like the reference's cnitool, but taking the conflist file directly).
//
//   cni-run add|check|del|gc|status <conflist> [netns] [--ifname eth0] [--cni-path DIRS]
//           [--cap-args JSON] [--args K=V;K=V] [--container-id ID] [--cache-dir DIR]
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { addNetworkList, checkNetworkList, delNetworkList, gcNetworkList, statusNetworkList, type RuntimeConf } from './libcni/api.ts';
import { DEFAULT_CACHE_DIR, deleteResult, loadResult, saveResult } from './libcni/cache.ts';
import { parseConflist } from './libcni/conflist.ts';
import { PluginError } from './libcni/invoke.ts';

interface Opts {
  ifname: string;
  cniPath: string;
  capArgs?: string;
  args?: string;
  containerId?: string;
  cacheDir: string;
  valid?: string;
}

// cnitool's container id: a hash of the netns path, so add and del agree.
function defaultContainerId(netns: string): string {
  return `cnitool-${createHash('sha512').update(resolve(netns)).digest('hex').slice(0, 20)}`;
}

function parseArgsOption(s: string | undefined): [string, string][] {
  if (!s) return [];
  return s.split(';').map((pair) => {
    const [k, v, ...rest] = pair.split('=');
    if (!k || v === undefined || v === '' || rest.length > 0) throw new Error(`invalid CNI_ARGS pair ${JSON.stringify(pair)}`);
    return [k, v];
  });
}

async function run(verb: string, file: string, netns: string | undefined, o: Opts): Promise<void> {
  const bytes = readFileSync(file);
  const list = parseConflist(bytes);
  const rt = { cniPath: o.cniPath.split(':').filter(Boolean), baseEnv: { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' } };
  if (verb === 'status') return statusNetworkList(rt, list);
  if (verb === 'gc') return gcNetworkList(rt, list, o.valid ? (JSON.parse(o.valid) as { containerID: string; ifname: string }[]) : []);
  if (!netns) throw new Error(`${verb} needs a netns path`);
  const conf: RuntimeConf = {
    containerId: o.containerId ?? defaultContainerId(netns),
    netns: resolve(netns),
    ifname: o.ifname,
    args: parseArgsOption(o.args),
    ...(o.capArgs !== undefined && { capabilityArgs: JSON.parse(o.capArgs) as Record<string, unknown> }),
  };
  if (verb === 'add') {
    const result = await addNetworkList(rt, list, conf);
    saveResult(o.cacheDir, conf, { network: list.name, configBytes: bytes, result });
    process.stdout.write(`${JSON.stringify(result, null, 4)}\n`);
  } else if (verb === 'check') {
    await checkNetworkList(rt, list, conf, loadResult(o.cacheDir, list.name, conf));
  } else if (verb === 'del') {
    await delNetworkList(rt, list, conf, loadResult(o.cacheDir, list.name, conf));
    deleteResult(o.cacheDir, list.name, conf);
  } else {
    throw new Error(`unknown command ${verb}`);
  }
}

const program = new Command('cni-run')
  .argument('<command>', 'add | check | del | gc | status')
  .argument('<conflist>', 'path of a .conflist file')
  .argument('[netns]', 'path of the network namespace (add, check, del)')
  .option('--ifname <name>', 'interface name in the container', 'eth0')
  .option('--cni-path <dirs>', 'plugin directories, colon separated', process.env['CNI_PATH'] ?? '/opt/cni/bin')
  .option('--cap-args <json>', 'capability arguments, a JSON object')
  .option('--args <pairs>', 'CNI_ARGS, K=V;K=V')
  .option('--container-id <id>', 'container id (default: derived from the netns path)')
  .option('--cache-dir <dir>', 'result cache directory', DEFAULT_CACHE_DIR)
  .option('--valid <json>', 'gc: the valid attachments, a JSON list of {containerID, ifname}')
  .action(async (verb: string, file: string, netns: string | undefined, o: Opts) => {
    try {
      await run(verb.toLowerCase(), file, netns, o);
    } catch (err) {
      const code = err instanceof PluginError && err.code !== undefined ? ` (code ${err.code})` : '';
      process.stderr.write(`cni-run: ${(err as Error).message}${code}\n`);
      process.exitCode = 1;
    }
  });

await program.parseAsync();
