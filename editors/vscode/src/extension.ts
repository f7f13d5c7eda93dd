// panic-lens for VS Code: starts the panic-lens language server for Rust files (and records
// files: JSON in a records folder) and adds Restart Server, Explain Panic Message, Scan
// Workspace, Show Output, Open Settings and a status bar item.
import * as vscode from 'vscode';

import { PanicLens } from './client';
import { Explanation, panicText, renderExplanation, showMarkdown } from './explain';
import { Status } from './status';

let lens: PanicLens | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('panic-lens', { log: true });
  const status = new Status();
  lens = new PanicLens(output, status, context.extensionPath, context.globalStorageUri.fsPath);
  context.subscriptions.push(output, status, lens);
  const current = lens;
  const register = (id: string, run: (...args: unknown[]) => Promise<unknown>) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, (...args: unknown[]) => reportErrors(output, () => run(...args))),
    );
  register('panicLens.restartServer', () => current.restart());
  register('panicLens.openSettings', (key) => openSettings(typeof key === 'string' ? key : undefined));
  register('panicLens.showOutput', async () => output.show());
  register('panicLens.scanWorkspace', () => scanWorkspace(current));
  register('panicLens.explainPanic', () => explainPanic(current, context.globalStorageUri));
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('panicLens.server.command') || event.affectsConfiguration('panicLens.python.path')) {
        void current.restart();
      }
    }),
  );
  // not awaited: the first start may spend seconds making the environment (with its own
  // progress notification), and activation need not wait for it
  void current.restart();
}

export async function deactivate(): Promise<void> {
  await lens?.stop();
  lens = undefined;
}

async function reportErrors(output: vscode.LogOutputChannel, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (err) {
    output.error(`Command failed: ${String(err)}`);
    void vscode.window.showErrorMessage(`panic-lens: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The Settings editor filtered to one panic-lens setting (all of them without a key). In a remote
 * window (Remote SSH, containers, code-server) the extension runs remotely and its machine
 * settings (panicLens.server.command, panicLens.python.path) live in the Remote tab, which the
 * plain Open Settings command (the User tab) does not list.
 */
async function openSettings(key: string | undefined): Promise<void> {
  const query = key ?? '@ext:panic-lens.panic-lens';
  if (vscode.env.remoteName) {
    await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query });
  } else {
    await vscode.commands.executeCommand('workbench.action.openSettings', query);
  }
}

async function scanWorkspace(current: PanicLens): Promise<void> {
  const result = await current.execute<{ files: number; findings: number }>('panic-lens.scanWorkspace', []);
  if (result) {
    void vscode.window.showInformationMessage(
      `panic-lens: scanned ${result.files} files, ${result.findings} findings.`,
    );
  }
}

async function explainPanic(current: PanicLens, storage: vscode.Uri): Promise<void> {
  const text = await panicText();
  if (!text?.trim()) {
    return;
  }
  const result = await current.execute<Explanation>('panic-lens.explainPanic', [text]);
  if (result) {
    await showMarkdown(storage, 'explain-panic.md', renderExplanation(text, result));
  }
}
