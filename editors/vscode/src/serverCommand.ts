// Finds the server's argv: the panicLens.server.command setting, else `panic-lens` on PATH,
// else `python3 -m panic_lens` when that module imports.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

export type Origin = 'setting' | 'path' | 'python';

export interface ServerCommand {
  argv: string[];
  origin: Origin;
}

export const INSTALL_HINT =
  'Install the panic-lens Python package (Python 3.11 or newer) from a clone of its ' +
  'repository: `pipx install ./panic-lens` or `python3 -m pip install --user ./panic-lens`, ' +
  'so that `panic-lens` is on PATH; or set `panicLens.server.command` to the server argv, ' +
  'e.g. ["/path/to/.venv/bin/panic-lens", "serve"].';

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

/** The first executable called `name` on `PATH`, or undefined. */
export function which(name: string, envPath: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) {
        return candidate;
      }
    } catch {
      // not here: keep looking
    }
  }
  return undefined;
}

function pythonHasPanicLens(python: string): Promise<boolean> {
  // a failed import means `python3 -m panic_lens` would exit at once: treat it as absent
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import panic_lens'], { timeout: 15000 }, (err) => resolve(!err));
  });
}

export async function resolveServerCommand(
  setting: readonly string[],
  workspaceFolder: string | undefined,
): Promise<ServerCommand | undefined> {
  const configured = setting.filter((arg) => arg.trim() !== '');
  if (configured.length > 0) {
    return { argv: expandArgv(configured, workspaceFolder), origin: 'setting' };
  }
  const onPath = which('panic-lens');
  if (onPath) {
    return { argv: [onPath, 'serve'], origin: 'path' };
  }
  const python = which('python3');
  if (python && (await pythonHasPanicLens(python))) {
    return { argv: [python, '-m', 'panic_lens', 'serve'], origin: 'python' };
  }
  return undefined;
}

export function describe(command: ServerCommand): string {
  const from = {
    setting: 'from panicLens.server.command',
    path: 'found on PATH',
    python: 'python3 -m panic_lens',
  }[command.origin];
  return `${JSON.stringify(command.argv)} (${from})`;
}
