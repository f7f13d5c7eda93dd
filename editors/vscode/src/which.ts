// `which`: the first executable of a name on PATH (with Windows' .exe/.cmd suffixes).
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

export function which(name: string, envPath: string = process.env.PATH ?? ''): string | undefined {
  const suffixes = process.platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    for (const suffix of suffixes) {
      const candidate = path.join(dir, name + suffix);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) {
          return candidate;
        }
      } catch {
        // not here: keep looking
      }
    }
  }
  return undefined;
}
