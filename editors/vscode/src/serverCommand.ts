// Finds the server's argv: the panicLens.server.command setting; else the server this .vsix
// carries, in its private environment (made with panicLens.python.path or a Python 3.11+ from
// PATH); else `panic-lens` on PATH or `python3 -m panic_lens`. When none works: a Problem whose
// actions are commands that fix it.
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';

import { Bundle } from './environment';
import { describeProbes, findPython, probe, Python, supported, versionText } from './python';
import { which } from './which';

export type Origin = 'setting' | 'bundled' | 'path' | 'python';

export interface ServerCommand {
  argv: string[];
  origin: Origin;
}

/** A button of a notification: a VS Code command and its arguments. */
export interface Action {
  title: string;
  command: string;
  args?: unknown[];
}

export interface Problem {
  kind: 'missing' | 'failed';
  message: string;
  actions: Action[];
}

export const ACTIONS = {
  serverSetting: { title: 'Open Settings', command: 'panicLens.openSettings', args: ['panicLens.server.command'] },
  pythonSetting: { title: 'Set Python Path', command: 'panicLens.openSettings', args: ['panicLens.python.path'] },
  restart: { title: 'Restart Server', command: 'panicLens.restartServer' },
  output: { title: 'Show Output', command: 'panicLens.showOutput' },
} satisfies Record<string, Action>;

export interface Inputs {
  serverSetting: readonly string[];
  pythonSetting: string;
  workspaceFolder: string | undefined;
  /** The bundled server, or why this .vsix has none for this machine. */
  bundle: Bundle | string;
  /** Makes (or reuses) the private environment; returns its interpreter. */
  setUp(bundle: Bundle, python: Python): Promise<string>;
  log(line: string): void;
  envPath?: string;
}

/** Expands `~` and `${workspaceFolder}` so a setting can point into a project venv. */
export function expandArgv(argv: readonly string[], workspaceFolder: string | undefined): string[] {
  return argv.map((arg) => {
    let out = arg.replace(/^~(?=$|\/)/, homedir());
    if (workspaceFolder !== undefined) {
      out = out.split('${workspaceFolder}').join(workspaceFolder);
    }
    return out;
  });
}

function pythonHasPanicLens(python: string): Promise<boolean> {
  // a failed import means `python3 -m panic_lens` would exit at once: treat it as absent
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import panic_lens'], { timeout: 15000 }, (err) => resolve(!err));
  });
}

function range(versions: readonly string[]): string {
  return versions.length > 1 ? `${versions[0]} to ${versions[versions.length - 1]}` : versions.join('');
}

/** The interpreter for the bundled server: the setting's (no fallback when set), else PATH's. */
async function choosePython(inputs: Inputs, bundle: Bundle): Promise<Python | Problem | undefined> {
  const versions = bundle.manifest.pythonVersions;
  const configured = inputs.pythonSetting.trim();
  if (configured) {
    const [path] = expandArgv([configured], inputs.workspaceFolder);
    const result = await probe([path]);
    if (result.python && supported(result.python, versions)) {
      return result.python;
    }
    const what = result.python ? `Python ${versionText(result.python)}` : result.error;
    return {
      kind: 'missing',
      message:
        `panic-lens: panicLens.python.path is ${path} (${what}), but the server this extension ` +
        `carries needs Python ${range(versions)}. Set panicLens.python.path to such an ` +
        'interpreter, or clear it to use one from PATH.',
      actions: [ACTIONS.pythonSetting, ACTIONS.output],
    };
  }
  const found = await findPython(versions, inputs.envPath);
  inputs.log(`Python interpreters tried: ${describeProbes(found.probes) || 'none on PATH'}`);
  return found.python;
}

export async function resolveServerCommand(inputs: Inputs): Promise<ServerCommand | Problem> {
  const configured = inputs.serverSetting.filter((arg) => arg.trim() !== '');
  if (configured.length > 0) {
    return { argv: expandArgv(configured, inputs.workspaceFolder), origin: 'setting' };
  }
  const bundle = inputs.bundle;
  if (typeof bundle === 'string') {
    inputs.log(`No bundled server: ${bundle}.`);
  } else {
    const python = await choosePython(inputs, bundle);
    if (python && 'kind' in python) {
      return python;
    }
    if (python) {
      try {
        const envPython = await inputs.setUp(bundle, python);
        // -I: the user's PYTHONPATH and the workspace folder cannot shadow the server's modules
        return { argv: [envPython, '-I', '-m', 'panic_lens', 'serve'], origin: 'bundled' };
      } catch (err) {
        return {
          kind: 'failed',
          message:
            `panic-lens could not set up its Python environment with ${python.executable}: ` +
            `${err instanceof Error ? err.message : String(err)}. Show Output has the details; ` +
            'Restart Server tries again; panicLens.python.path picks another Python.',
          actions: [ACTIONS.output, ACTIONS.restart, ACTIONS.pythonSetting],
        };
      }
    }
  }
  const onPath = which('panic-lens', inputs.envPath);
  if (onPath) {
    return { argv: [onPath, 'serve'], origin: 'path' };
  }
  const python = which('python3', inputs.envPath);
  if (python && (await pythonHasPanicLens(python))) {
    return { argv: [python, '-m', 'panic_lens', 'serve'], origin: 'python' };
  }
  if (typeof bundle !== 'string') {
    const versions = range(bundle.manifest.pythonVersions);
    return {
      kind: 'missing',
      message:
        `panic-lens needs Python ${versions} to run its server and found none on PATH. ` +
        'Install one (from python.org or your system\'s package manager), then click Restart ' +
        'Server; or set panicLens.python.path to its interpreter.',
      actions: [ACTIONS.restart, ACTIONS.pythonSetting, ACTIONS.output],
    };
  }
  return {
    kind: 'missing',
    message:
      `panic-lens: no server to start (${bundle}). Install the panic-lens .vsix built for this ` +
      'platform, or set panicLens.server.command to the argv of a panic-lens server ' +
      '(e.g. ["/path/to/venv/bin/panic-lens", "serve"]).',
    actions: [ACTIONS.serverSetting, ACTIONS.output],
  };
}

export function describe(command: ServerCommand): string {
  const from = {
    setting: 'from panicLens.server.command',
    bundled: 'the bundled server',
    path: 'found on PATH',
    python: 'python3 -m panic_lens',
  }[command.origin];
  return `${JSON.stringify(command.argv)} (${from})`;
}
