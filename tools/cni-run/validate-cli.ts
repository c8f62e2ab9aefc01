// `cni-run validate PATH`: reads the file or the directory's files and reports on them
// (validate.ts judges; this only does the reading and the printing).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pluginConfFiles } from '../libcni/conf-dir.ts';
import { capabilityArgs, type CapabilityFlags } from './cap-flags.ts';
import { loadPluginChecks } from './plugin-checks.ts';
import { formatReport, summarize, validateFiles, type PluginFolder, type Report } from './validate.ts';

export interface ValidateCliOptions extends CapabilityFlags {
  readonly json?: boolean;
  readonly args?: string;
  readonly ifname: string;
}

function read(path: string): { file: string; text: string }[] {
  if (!statSync(path).isDirectory()) return [{ file: path, text: readFileSync(path, 'utf8') }];
  return readdirSync(path)
    .map((name) => join(path, name))
    .filter((f) => statSync(f).isFile())
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/** The *.conf files libcni would append to network `network` of `listFile` (libcni v1.3). */
function readPluginFolder(listFile: string, network: string): PluginFolder {
  const folder = join(dirname(listFile), network);
  try {
    return { folder, files: pluginConfFiles(folder).map((file) => ({ file, text: readFileSync(file, 'utf8') })) };
  } catch (err) {
    return { folder, files: [], error: (err as Error).message };
  }
}

export async function runValidate(path: string, o: ValidateCliOptions): Promise<{ text: string; valid: boolean }> {
  await loadPluginChecks();
  const { args, sources } = capabilityArgs(o);
  let report: Report;
  try {
    report = validateFiles(read(path), {
      capabilityArgs: args,
      capabilitySources: sources,
      ifname: o.ifname,
      readPluginFolder,
      ...(o.args !== undefined && { cniArgs: o.args }),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    report = summarize([{ file: path, findings: [{ severity: 'error', file: path, field: '', message: `cannot read: ${e.code ?? e.message}` }] }]);
  }
  const text = o.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report).join('\n')}\n`;
  return { text, valid: report.valid };
}
