// Runs the extension's server lookup (editors/vscode/src/serverCommand.ts) outside VS Code on
// the cases a real window cannot easily reach: no Python on PATH, a bad panicLens.python.path,
// a .vsix built for another platform, and the environment made from the real bundle.
// Bundled by esbuild in test_vscode_bundle.py; input: env PANIC_LENS_RESOLVER (JSON); prints JSON.
import * as path from 'node:path';

import { Bundle, createEnvironment, envDir, readBundle } from '../../editors/vscode/src/environment';
import { Inputs, resolveServerCommand } from '../../editors/vscode/src/serverCommand';

interface Config {
  extensionPath: string;
  storage: string;
  systemPath: string;
  emptyPath: string;
  badPython: string;
}

const cfg = JSON.parse(process.env.PANIC_LENS_RESOLVER ?? '{}') as Config;

async function main(): Promise<void> {
  const bundle = readBundle(cfg.extensionPath);
  const lines: string[] = [];
  const reports: string[] = [];
  const inputs = (over: Partial<Inputs>): Inputs => ({
    serverSetting: [],
    pythonSetting: '',
    workspaceFolder: undefined,
    bundle,
    setUp: (b: Bundle, python) =>
      createEnvironment(b, python, envDir(cfg.storage, b, python), (m) => reports.push(m), (l) => lines.push(l)),
    log: (l) => lines.push(l),
    ...over,
  });
  const out: Record<string, unknown> = { bundle };
  out.noPython = await resolveServerCommand(inputs({ envPath: cfg.emptyPath }));
  out.badPython = await resolveServerCommand(inputs({ envPath: cfg.systemPath, pythonSetting: cfg.badPython }));
  out.otherPlatform = await resolveServerCommand(
    inputs({ envPath: cfg.emptyPath, bundle: 'this build carries the server for win32-arm64' }),
  );
  out.setting = await resolveServerCommand(inputs({ serverSetting: ['~/bin/x', 'serve'], envPath: cfg.systemPath }));
  out.bundled = await resolveServerCommand(inputs({ envPath: cfg.systemPath }));
  out.reports = reports;
  out.log = lines;
  out.envs = path.join(cfg.storage, 'envs');
  process.stdout.write(JSON.stringify(out, null, 2));
}

main().catch((err: unknown) => {
  process.stderr.write(String(err instanceof Error ? err.stack : err));
  process.exit(1);
});
