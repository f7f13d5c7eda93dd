// Finds a Python interpreter for the bundled server: runs each candidate once and reads its
// version, so a `python3` that is too old (or a Store stub on Windows) is told apart from none.
import { execFile } from 'node:child_process';
import * as path from 'node:path';

import { which } from './which';

export interface Python {
  /** How it was run, e.g. ["/usr/bin/python3.11"] or ["py", "-3.12"]. */
  argv: string[];
  /** sys.executable: names the environment built from it. */
  executable: string;
  version: [number, number, number];
}

export interface Probe {
  argv: string[];
  python?: Python;
  /** Why this candidate cannot be used. */
  error?: string;
}

const REPORT = 'import json,sys;print(json.dumps([sys.executable,list(sys.version_info[:3])]))';

export function versionText(python: Python): string {
  return python.version.join('.');
}

/** Runs `argv -I -c REPORT`: the interpreter's path and version, or why it failed. */
export function probe(argv: string[]): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(argv[0], [...argv.slice(1), '-I', '-c', REPORT], { timeout: 20000 }, (err, stdout, stderr) => {
      if (err) {
        const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(stderr || err).trim();
        resolve({ argv, error: reason.split('\n').slice(-1)[0] });
        return;
      }
      try {
        const [executable, version] = JSON.parse(stdout.trim()) as [string, [number, number, number]];
        resolve({ argv, python: { argv, executable, version } });
      } catch {
        resolve({ argv, error: `not a Python interpreter (printed ${JSON.stringify(stdout.slice(0, 80))})` });
      }
    });
  });
}

/** Whether `python` is one of the versions the bundle carries wheels for ("3.11", ...). */
export function supported(python: Python, versions: readonly string[]): boolean {
  return versions.includes(`${python.version[0]}.${python.version[1]}`);
}

/** Newest first, so a machine with several Pythons gets the newest the bundle supports. */
export function candidates(versions: readonly string[], envPath = process.env.PATH ?? ''): string[][] {
  const newest = [...versions].reverse();
  if (process.platform === 'win32') {
    // the py launcher knows installs that are not on PATH
    const launcher = which('py', envPath);
    const out = launcher ? newest.map((v) => [launcher, `-${v}`]) : [];
    for (const name of ['python3', 'python']) {
      const found = which(name, envPath);
      if (found) {
        out.push([found]);
      }
    }
    return out;
  }
  const out: string[][] = [];
  for (const name of [...newest.map((v) => `python${v}`), 'python3', 'python']) {
    const found = which(name, envPath);
    if (found && !out.some(([seen]) => path.resolve(seen) === path.resolve(found))) {
      out.push([found]);
    }
  }
  return out;
}

/** The first candidate on PATH that runs and has a supported version, and every probe made. */
export async function findPython(
  versions: readonly string[],
  envPath = process.env.PATH ?? '',
): Promise<{ python?: Python; probes: Probe[] }> {
  const probes: Probe[] = [];
  for (const argv of candidates(versions, envPath)) {
    const result = await probe(argv);
    probes.push(result);
    if (result.python && supported(result.python, versions)) {
      return { python: result.python, probes };
    }
  }
  return { probes };
}

/** "python3 (3.9.2), python (no such file)": what was tried, for the user. */
export function describeProbes(probes: readonly Probe[]): string {
  return probes
    .map((p) => `${p.argv.join(' ')} (${p.python ? versionText(p.python) : p.error})`)
    .join(', ');
}
