// The server this .vsix carries (bundled/, filled by `make vsix`) and the private environment
// made from it: a venv in the extension's global storage, created with the user's Python from
// the bundled wheels alone (pip --no-index), once per bundle and interpreter.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Python, versionText } from './python';

/** bundled/manifest.json, written by editors/vscode/bundle/bundle.sh. */
export interface Manifest {
  target: string;
  pythonVersions: string[];
  panicLensVersion: string;
  pip: string;
  wheels: string[];
  id: string;
}

export interface Bundle {
  dir: string;
  manifest: Manifest;
}

const MARKER = 'panic-lens-env.json';

/** VS Code's platform target (vsce --target) of this machine, e.g. linux-x64. */
export function platformTarget(): string {
  return `${process.platform}-${process.arch}`;
}

/** The bundled server for this machine, or why there is none. */
export function readBundle(extensionPath: string): Bundle | string {
  const dir = path.join(extensionPath, 'bundled');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return 'this build of the extension carries no server';
  }
  if (manifest.target !== platformTarget()) {
    return `this build carries the server for ${manifest.target}, and this machine is ${platformTarget()}`;
  }
  return { dir, manifest };
}

export function envPython(envDir: string): string {
  return process.platform === 'win32'
    ? path.join(envDir, 'Scripts', 'python.exe')
    : path.join(envDir, 'bin', 'python');
}

/** One environment per bundle and interpreter: a new .vsix or another Python gets its own. */
export function envDir(storage: string, bundle: Bundle, python: Python): string {
  const key = createHash('sha256')
    .update(JSON.stringify([bundle.manifest.id, python.executable, python.version]))
    .digest('hex')
    .slice(0, 12);
  return path.join(storage, 'envs', key);
}

/** The environment's interpreter when it was completed earlier (its marker is written last). */
export function existingEnvironment(dir: string): string | undefined {
  return fs.existsSync(path.join(dir, MARKER)) ? envPython(dir) : undefined;
}

/** The user's pip configuration and PYTHON* variables must not steer an offline install. */
function installEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(PIP_|PYTHON|VIRTUAL_ENV$)/.test(key)) {
      env[key] = value;
    }
  }
  env.PIP_CONFIG_FILE = os.devNull; // pip then reads no configuration file at all
  env.PYTHONNOUSERSITE = '1';
  return env;
}

function run(file: string, args: string[], log: (line: string) => void): Promise<void> {
  log(`$ ${[file, ...args].join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: installEnv(), timeout: 300000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      for (const line of `${stdout}\n${stderr}`.split('\n')) {
        if (line.trim()) {
          log(`  ${line}`);
        }
      }
      if (err) {
        const last = stderr.trim().split('\n').slice(-1)[0] || String(err);
        reject(new Error(`${path.basename(file)} failed: ${last}`));
      } else {
        resolve();
      }
    });
  });
}

/**
 * Creates the environment in a temporary folder and renames it into place when complete, so
 * an interrupted start or a second window never sees half an environment.
 */
export async function createEnvironment(
  bundle: Bundle,
  python: Python,
  dir: string,
  report: (message: string) => void,
  log: (line: string) => void,
): Promise<string> {
  const { manifest } = bundle;
  fs.rmSync(dir, { recursive: true, force: true }); // a leftover without its marker
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    report(`creating a virtual environment with ${python.executable} (${versionText(python)})`);
    await run(python.argv[0], [...python.argv.slice(1), '-I', '-m', 'venv', '--without-pip', tmp], log);
    const py = envPython(tmp);
    report(`installing panic-lens ${manifest.panicLensVersion} from ${manifest.wheels.length} bundled wheels`);
    // pip runs straight from its wheel (a zip on sys.path), so the venv needs no pip of its own
    const pip = path.join(bundle.dir, 'pip', manifest.pip, 'pip');
    const wheels = path.join(bundle.dir, 'wheels');
    await run(
      py,
      [pip, 'install', '--no-index', '--find-links', wheels, '--only-binary', ':all:', '--no-input',
        '--disable-pip-version-check', '--no-warn-script-location', `panic-lens==${manifest.panicLensVersion}`],
      log,
    );
    report('checking the server');
    await run(py, ['-I', '-m', 'panic_lens', '--version'], log);
    const marker = { bundle: manifest.id, python: python.executable, version: versionText(python) };
    fs.writeFileSync(path.join(tmp, MARKER), JSON.stringify(marker, null, 2) + '\n');
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      if (!existingEnvironment(dir)) {
        throw err;
      }
      // another window completed the same environment first: use that one
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  removeStale(path.dirname(dir), manifest.id, log);
  return envPython(dir);
}

/**
 * Environments of earlier bundles (an updated extension). Those of this bundle with another
 * interpreter stay: a window whose panicLens.python.path differs may be running from one.
 */
function removeStale(envs: string, bundleId: string, log: (line: string) => void): void {
  for (const name of fs.readdirSync(envs)) {
    const full = path.join(envs, name);
    let bundle: string | undefined;
    try {
      bundle = (JSON.parse(fs.readFileSync(path.join(full, MARKER), 'utf8')) as { bundle?: string }).bundle;
    } catch {
      continue; // being created by another window, or not ours
    }
    if (bundle === bundleId) {
      continue;
    }
    try {
      fs.rmSync(full, { recursive: true, force: true });
      log(`Removed the environment of an earlier bundle: ${full}`);
    } catch (err) {
      log(`Could not remove ${full}: ${String(err)}`);
    }
  }
}
