// The status bar item: server state and the number of panic-lens findings in the workspace.
import * as vscode from 'vscode';

export type ServerState = 'starting' | 'running' | 'stopped' | 'missing' | 'failed';

const SOURCE = 'panic-lens';
// the Information notes on a records file's records (which rule checks each): not findings
const NOTES = new Set(['record-coverage']);

function codeOf(d: vscode.Diagnostic): string | number | undefined {
  return typeof d.code === 'object' ? d.code.value : d.code;
}

export function countFindings(): { findings: number; files: number } {
  let findings = 0;
  let files = 0;
  for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
    const ours = diagnostics.filter((d) => d.source === SOURCE && !NOTES.has(String(codeOf(d)))).length;
    findings += ours;
    files += ours > 0 ? 1 : 0;
  }
  return { findings, files };
}

export class Status implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly listener: vscode.Disposable;
  private state: ServerState = 'starting';
  private detail = '';

  constructor() {
    this.item = vscode.window.createStatusBarItem('panicLens.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'panic-lens';
    this.listener = vscode.languages.onDidChangeDiagnostics(() => this.render());
    this.render();
    this.item.show();
  }

  set(state: ServerState, detail = ''): void {
    this.state = state;
    this.detail = detail;
    this.render();
  }

  private render(): void {
    const { findings, files } = countFindings();
    const item = this.item;
    item.backgroundColor = undefined;
    item.command = 'panicLens.showOutput';
    switch (this.state) {
      case 'starting':
        item.text = '$(sync~spin) panic-lens';
        break;
      case 'running':
        item.text = findings > 0 ? `$(warning) panic-lens: ${findings}` : '$(check) panic-lens: 0';
        item.command = 'workbench.actions.view.problems';
        break;
      case 'stopped':
        item.text = '$(circle-slash) panic-lens: stopped';
        break;
      case 'missing':
      case 'failed':
        item.text = this.state === 'missing' ? '$(error) panic-lens: no server' : '$(error) panic-lens: failed';
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
    }
    const counts = `${findings} finding${findings === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}`;
    item.tooltip = `panic-lens server: ${this.state}${this.detail ? `\n${this.detail}` : ''}\n${counts}`;
  }

  dispose(): void {
    this.listener.dispose();
    this.item.dispose();
  }
}
