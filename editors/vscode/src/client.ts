// The language client's lifecycle: resolve the server argv (creating the bundled server's
// environment on first use, with progress), start, stop, restart, report state.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, State } from 'vscode-languageclient/node';

import { Bundle, createEnvironment, envDir, existingEnvironment, readBundle } from './environment';
import { Python, versionText } from './python';
import { Action, ACTIONS, describe, resolveServerCommand, ServerCommand } from './serverCommand';
import { Status } from './status';

const SERVER_KEYS = ['severity', 'records', 'scope', 'ctcCapacity', 'logLevel'] as const;

/** The keys of server/panic_lens/settings.py, as the server reads them. */
export function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('panicLens');
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    out[key] = config.get(key);
  }
  return out;
}

export class PanicLens implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private restarting: Promise<void> = Promise.resolve();

  constructor(
    readonly output: vscode.LogOutputChannel,
    private readonly status: Status,
    private readonly extensionPath: string,
    private readonly storagePath: string,
  ) {}

  async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const config = vscode.workspace.getConfiguration('panicLens');
    this.output.debug(`panicLens.server.command: ${JSON.stringify(config.inspect('server.command'))}`);
    const found = await resolveServerCommand({
      serverSetting: config.get<string[]>('server.command') ?? [],
      pythonSetting: config.get<string>('python.path') ?? '',
      workspaceFolder: folder,
      bundle: readBundle(this.extensionPath),
      setUp: (bundle, python) => this.setUp(bundle, python),
      log: (line) => this.output.info(line),
    });
    if ('kind' in found) {
      this.status.set(found.kind, found.message);
      this.output.error(found.message);
      void this.offer(found.message, found.actions);
      return;
    }
    this.output.info(`Starting ${describe(found)}`);
    this.status.set('starting', describe(found));
    this.client = this.createClient(found);
    try {
      await this.client.start();
    } catch (err) {
      this.status.set('failed', `${describe(found)}: ${String(err)}`);
      const [hint, actions] =
        found.origin === 'setting'
          ? ['Check panicLens.server.command.', [ACTIONS.serverSetting, ACTIONS.output]]
          : ['Show Output has its log; Restart Server tries again.', [ACTIONS.output, ACTIONS.restart]];
      void this.offer(`panic-lens: the server ${describe(found)} did not start: ${String(err)}. ${hint}`, actions);
    }
  }

  /** The private environment for this bundle and Python, created on first use with progress. */
  private async setUp(bundle: Bundle, python: Python): Promise<string> {
    const dir = envDir(this.storagePath, bundle, python);
    const existing = existingEnvironment(dir);
    if (existing) {
      this.output.info(`Using the environment ${dir} (Python ${versionText(python)}, created earlier)`);
      return existing;
    }
    this.output.info(`Creating the environment ${dir} with ${python.executable} (Python ${versionText(python)})`);
    this.status.set('starting', 'setting up its Python environment');
    const started = Date.now();
    const made = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'panic-lens: setting up its Python environment' },
      (progress) =>
        createEnvironment(
          bundle,
          python,
          dir,
          (message) => {
            this.output.info(`Environment: ${message}`);
            progress.report({ message });
          },
          (line) => this.output.debug(line),
        ),
    );
    this.output.info(`Environment ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${made}`);
    return made;
  }

  private createClient(command: ServerCommand): LanguageClient {
    const clientOptions: LanguageClientOptions = {
      // Rust, and JSON / JSON Lines files on disk whatever their language id (json, jsonc,
      // jsonl, or plaintext when another extension claims them): the server shows record
      // coverage on those in a records folder in use and leaves every other one alone
      documentSelector: [
        { scheme: 'file', language: 'rust' },
        { scheme: 'file', pattern: '**/*.{json,jsonl}' },
      ],
      // didChangeConfiguration for the panicLens section; the server then pulls it
      synchronize: { configurationSection: 'panicLens' },
      initializationOptions: serverSettings(),
      outputChannel: this.output,
      diagnosticCollectionName: 'panic-lens',
    };
    // no transport option: the argv is used exactly as given, talking LSP on stdio
    const serverOptions = { command: command.argv[0], args: command.argv.slice(1) };
    const client = new LanguageClient('panicLens', 'panic-lens', serverOptions, clientOptions);
    client.onDidChangeState(({ newState }) => {
      const state = newState === State.Running ? 'running' : newState === State.Starting ? 'starting' : 'stopped';
      this.status.set(state, describe(command));
    });
    return client;
  }

  /** An error notification whose buttons run the actions' commands. */
  private async offer(message: string, actions: Action[]): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, ...actions.map((a) => a.title));
    const action = actions.find((a) => a.title === choice);
    if (action) {
      await vscode.commands.executeCommand(action.command, ...(action.args ?? []));
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // a client whose start failed has nothing to stop
    if (client?.needsStop()) {
      await client.stop().catch((err: unknown) => this.output.warn(`Stopping the server: ${String(err)}`));
    }
  }

  /** One restart at a time: a setting changed while the environment is being made waits. */
  restart(): Promise<void> {
    this.restarting = this.restarting.then(async () => {
      await this.stop();
      await this.start();
    });
    return this.restarting;
  }

  /** Runs one of the server's workspace/executeCommand commands; undefined when not running. */
  async execute<T>(command: string, args: unknown[]): Promise<T | undefined> {
    if (!this.client?.isRunning()) {
      void this.offer('panic-lens: the server is not running. Restart Server starts it; Show Output has its log.', [
        ACTIONS.restart,
        ACTIONS.output,
      ]);
      return undefined;
    }
    return (await this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  dispose(): void {
    void this.stop();
  }
}
