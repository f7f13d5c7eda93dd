// The language client's lifecycle: resolve the server argv, start, stop, restart, report state.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, State } from 'vscode-languageclient/node';

import { describe, INSTALL_HINT, resolveServerCommand, ServerCommand } from './serverCommand';
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
  private command: ServerCommand | undefined;

  constructor(
    readonly output: vscode.LogOutputChannel,
    private readonly status: Status,
  ) {}

  async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const config = vscode.workspace.getConfiguration('panicLens');
    const setting = config.get<string[]>('server.command') ?? [];
    this.output.debug(`panicLens.server.command: ${JSON.stringify(config.inspect('server.command'))}`);
    this.command = await resolveServerCommand(setting, folder);
    if (!this.command) {
      this.status.set('missing', INSTALL_HINT);
      this.output.info(`No panic-lens server found. ${INSTALL_HINT}`);
      void this.offerHelp(`panic-lens: no server found. ${INSTALL_HINT}`);
      return;
    }
    this.output.info(`Starting ${describe(this.command)}`);
    this.status.set('starting', describe(this.command));
    this.client = this.createClient(this.command);
    try {
      await this.client.start();
    } catch (err) {
      this.status.set('failed', `${describe(this.command)}: ${String(err)}`);
      const hint = this.command.origin === 'setting' ? 'Check panicLens.server.command.' : INSTALL_HINT;
      void this.offerHelp(`panic-lens: the server ${describe(this.command)} did not start: ${String(err)}. ${hint}`);
    }
  }

  private createClient(command: ServerCommand): LanguageClient {
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'rust' }],
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

  private async offerHelp(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'panicLens.server.command');
    } else if (choice === 'Show Output') {
      this.output.show();
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

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Runs one of the server's workspace/executeCommand commands; undefined when not running. */
  async execute<T>(command: string, args: unknown[]): Promise<T | undefined> {
    if (!this.client?.isRunning()) {
      void this.offerHelp('panic-lens: the server is not running. Restart it or see the output.');
      return undefined;
    }
    return (await this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  dispose(): void {
    void this.stop();
  }
}
