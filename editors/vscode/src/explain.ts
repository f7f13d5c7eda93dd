// Explain Panic Message: selection or input box -> the server's panic-lens.explainPanic ->
// a Markdown document shown in the preview.
import * as vscode from 'vscode';

interface RecordMatch {
  record_id: string;
  line_no: number;
  line: string;
  span: [number, number];
}

interface RuleMatch {
  rule: string;
  line_no: number;
  line: string;
  span: [number, number];
  record_ids: string[];
  note?: string;
}

export interface Explanation {
  markdown?: string;
  matches?: RecordMatch[];
  ruleMatches?: RuleMatch[];
}

export async function panicText(): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor && !editor.selection.isEmpty) {
    return editor.document.getText(editor.selection);
  }
  return vscode.window.showInputBox({
    title: 'panic-lens: Explain Panic Message',
    prompt: 'Paste a panic message, or a whole `cargo test` log',
    placeHolder: "thread 'main' panicked at ...",
    ignoreFocusOut: true,
  });
}

function code(text: string): string {
  // a fence longer than any backtick run inside keeps the line verbatim
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence} ${text} ${fence}`;
}

function quote(text: string, maxLines = 12): string {
  const lines = text.trim().split(/\r?\n/);
  const shown = lines.slice(0, maxLines).map((l) => `    ${l}`);
  if (lines.length > maxLines) {
    shown.push(`    … (${lines.length - maxLines} more lines)`);
  }
  return shown.join('\n');
}

export function renderExplanation(text: string, result: Explanation): string {
  if (typeof result.markdown === 'string') {
    return result.markdown;
  }
  const out = ['# panic-lens: Explain Panic Message', '', 'Text explained:', '', quote(text), ''];
  const matches = result.matches ?? [];
  const ruleMatches = result.ruleMatches ?? [];
  if (matches.length === 0 && ruleMatches.length === 0) {
    out.push('No record and no rule matches this text.');
    return out.join('\n') + '\n';
  }
  if (matches.length > 0) {
    out.push('## Matching records', '');
    for (const m of matches) {
      out.push(`- record **${m.record_id}**, line ${m.line_no}: ${code(m.line.trim())}`);
    }
    out.push('');
  }
  if (ruleMatches.length > 0) {
    out.push('## Known rule messages', '');
    for (const m of ruleMatches) {
      const records = m.record_ids.length ? `; records: ${m.record_ids.join(', ')}` : '';
      out.push(`- rule **${m.rule}**, line ${m.line_no}: ${code(m.line.trim())}${records}`);
      if (m.note) {
        out.push(`  ${m.note}`);
      }
    }
    out.push('');
  }
  return out.join('\n');
}

export async function showMarkdown(storage: vscode.Uri, name: string, markdown: string): Promise<vscode.Uri> {
  await vscode.workspace.fs.createDirectory(storage);
  const file = vscode.Uri.joinPath(storage, name);
  await vscode.workspace.fs.writeFile(file, Buffer.from(markdown, 'utf8'));
  await vscode.commands.executeCommand('markdown.showPreview', file);
  return file;
}
