// Drives real VS Code (code-server) in headless Debian Chromium with playwright-core and records
// what a user would see: the first start's progress, squiggle, hover, Problems panel, status bar,
// quick fix, Explain Panic, the notifications for a bad server command and a bad Python path,
// and a records file's coverage note.
// Input: env PANIC_LENS_E2E (JSON, see test_vscode.py). Output: JSON on the file `out`.
// The DOM selectors are VS Code internals, pinned by code-server 4.139.1 (VS Code 1.139.1).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const cfg = JSON.parse(process.env.PANIC_LENS_E2E);
const { chromium } = require(cfg.playwright);
const result = { steps: {} };
const t0 = Date.now();
const SQUIGGLE = '.monaco-editor .squiggly-error, .monaco-editor .squiggly-warning, .monaco-editor .squiggly-info';

function mark(step) {
  result.steps[step] = (Date.now() - t0) / 1000;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(cfg.shots, `${name}.png`) });
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15000 });
  await input.fill(`>${title}`);
  // click the command itself: Enter would run whichever match the palette put first
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout: 15000 });
  await row.click();
}

async function openFile(page, relative) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15000 });
  await input.fill(relative);
  // Enter before the list has the file opens nothing
  await page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(relative) }).first()
    .waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: path.basename(relative) }).waitFor({ timeout: 30000 });
}

async function goToLine(page, line) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15000 });
  await input.fill(`:${line}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: `line ${line}` }).first()
    .waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15000 });
}

async function statusText(page) {
  const item = page.locator('.statusbar-item', { hasText: 'panic-lens' }).first();
  await item.waitFor({ timeout: 30000 });
  return (await item.innerText()).trim();
}

async function waitForStatus(page, pattern, timeout) {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = await statusText(page);
    if (pattern.test(text)) return text;
    await page.waitForTimeout(250);
  }
  throw new Error(`status bar item stayed at ${JSON.stringify(text)}, expected ${pattern}`);
}

/** The squiggle drawn on the editor line that contains `text`, and that line's box. */
async function squiggleOn(page, text) {
  const line = page.locator('.monaco-editor .view-line', { hasText: text }).first();
  await line.waitFor({ timeout: 30000 });
  const deadline = Date.now() + 90000;
  while (Date.now() < deadline) {
    const lineBox = await line.boundingBox();
    for (const sq of await page.locator(SQUIGGLE).all()) {
      const box = await sq.boundingBox();
      if (box && lineBox && Math.abs(box.y + box.height / 2 - (lineBox.y + lineBox.height / 2)) < lineBox.height / 2) {
        return { box, lineBox, cls: await sq.getAttribute('class') };
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no squiggle on the line with ${JSON.stringify(text)}`);
}

async function hover(page, sq) {
  await page.mouse.move(sq.box.x + Math.min(20, sq.box.width / 2), sq.lineBox.y + sq.lineBox.height / 2);
  const widget = page.locator('.monaco-hover', { hasText: cfg.recordId }).first();
  await widget.waitFor({ timeout: 30000 });
  result.hover_text = await widget.innerText();
  await shot(page, 'vscode-hover');
  // into the hover (which keeps it open) and down to the records' knowledge
  const box = await widget.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
  for (let i = 0; i < 6; i++) {
    await page.mouse.wheel(0, 250);
    await page.waitForTimeout(150);
  }
  await shot(page, 'vscode-hover-records');
  await page.keyboard.press('Escape');
}

/** Problems panel collapsed to one row per file: {file name: number of problems}. */
async function problemsPerFile(page) {
  await page.locator('.part.panel .codicon-collapse-all').first().click();
  await page.waitForTimeout(300);
  const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
  const counts = {};
  for (const row of rows) {
    const lines = row.split('\n').map((l) => l.trim()).filter(Boolean);
    const file = lines[0].match(/^\S+?\.rs/);
    if (file && /^\d+$/.test(lines[lines.length - 1])) counts[file[0]] = Number(lines[lines.length - 1]);
  }
  return counts;
}

async function problems(page) {
  await page.keyboard.press('Control+Shift+M');
  const panel = page.locator('.markers-panel').first();
  await panel.locator('.monaco-list-row', { hasText: cfg.rule }).first().waitFor({ timeout: 30000 });
  result.problems_rows = await panel.locator('.monaco-list-row').allInnerTexts();
  await shot(page, 'vscode-problems');
  result.problems_per_file = await problemsPerFile(page);
}

async function quickFix(page, sq) {
  // caret onto the flagged call, then the Quick Fix menu as a user opens it
  await page.mouse.click(sq.box.x + 4, sq.lineBox.y + sq.lineBox.height / 2);
  const menu = page.locator('.action-widget').first();
  // on a loaded machine the first Ctrl+. can arrive before the editor has the caret: ask again
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+.');
    try {
      await menu.locator('.monaco-list-row').first().waitFor({ timeout: 10000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.keyboard.press('Escape');
      await page.mouse.click(sq.box.x + 4, sq.lineBox.y + sq.lineBox.height / 2);
    }
  }
  result.quickfix_menu = await menu.locator('.monaco-list-row').allInnerTexts();
  await shot(page, 'vscode-quickfix');
  // the user picks the rule's own fix from the menu (the server resolves its edit lazily)
  await menu.locator('.monaco-list-row', { hasText: cfg.fixTitle }).first().click();
  await page.locator('.monaco-editor .view-line', { hasText: cfg.flagged }).waitFor({ state: 'detached', timeout: 30000 });
  mark('fix_applied');
  result.status_after_fix = await waitForStatus(page, new RegExp(`panic-lens: ${cfg.findings - 1}$`), 30000);
  result.problems_per_file_after_fix = await problemsPerFile(page);
  result.editor_text_after_fix = await page.locator('.monaco-editor .view-lines').first().innerText();
  await shot(page, 'vscode-fixed');
}

async function explain(page) {
  await page.locator('.monaco-editor .view-lines').first().click();  // no selection: the input box
  await runCommand(page, 'panic-lens: Explain Panic Message');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15000 });
  await input.fill(cfg.panicText);
  await page.keyboard.press('Enter');
  await page.locator('.tab', { hasText: 'explain-panic.md' }).first().waitFor({ timeout: 30000 });
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline && !result.explain_text) {
    for (const frame of page.frames()) {
      const body = await frame.locator('body').innerText({ timeout: 1000 }).catch(() => '');
      if (body.includes('Explain Panic Message') && body.includes(cfg.explainRecordId)) {
        result.explain_text = body;
      }
    }
    await page.waitForTimeout(250);
  }
  if (!result.explain_text) throw new Error('the Markdown preview never showed the explanation');
  await shot(page, 'vscode-explain');
}

async function scan(page) {
  await runCommand(page, 'panic-lens: Scan Workspace');
  const toast = page.locator('.notification-toast', { hasText: 'panic-lens: scanned' }).first();
  await toast.waitFor({ timeout: 60000 });
  result.scan_toast = await toast.innerText();
}

/**
 * The notification containing `text`, from the notification center (the bell): VS Code shows
 * a new notification as a toast only while the toasts already shown leave room for it (the
 * language client's own "couldn't create connection" toast often does not), but every one is
 * listed in the center.
 */
async function notification(page, text) {
  await runCommand(page, 'Notifications: Show Notifications');
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  await item.waitFor({ timeout: 30000 });
  return item;
}

async function brokenServerCommand(page) {
  // a server argv that cannot start: the extension restarts on the change and says so
  fs.writeFileSync(cfg.machineSettings, JSON.stringify({ 'panicLens.server.command': [cfg.badCommand, 'serve'] }));
  result.bad_command_status = await waitForStatus(page, /panic-lens: failed$/, 60000);
  const item = await notification(page, 'did not start');
  result.bad_command_toast = await item.innerText();
  await shot(page, 'vscode-bad-command');
  // dismissed, as a user would
  await runCommand(page, 'Notifications: Clear All Notifications');
}

async function pythonPath(page) {
  // a panicLens.python.path that is no Python: the notification names it, and its button
  // opens the Settings editor on that setting
  fs.writeFileSync(cfg.machineSettings, JSON.stringify({ 'panicLens.python.path': cfg.badPython }));
  result.bad_python_status = await waitForStatus(page, /panic-lens: no server$/, 60000);
  const item = await notification(page, 'panicLens.python.path is');
  result.bad_python_toast = await item.innerText();
  await shot(page, 'vscode-bad-python');
  await item.locator('.monaco-button', { hasText: 'Set Python Path' }).first().click();
  const setting = page.locator('.settings-editor .setting-item-contents', { hasText: 'Python: Path' }).first();
  await setting.waitFor({ timeout: 30000 });
  result.settings_text = await setting.innerText();
  await shot(page, 'vscode-python-setting');
  await page.keyboard.press('Control+W');  // close the Settings editor
  // cleared: the extension restarts on the change and reuses the environment it made
  fs.writeFileSync(cfg.machineSettings, '{}');
  result.restarted_status = await waitForStatus(page, new RegExp(`panic-lens: ${cfg.findings - 1}$`), 60000);
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommand(page, 'panic-lens: Show Output');
  await page.locator('.part.panel .view-line', { hasText: 'created earlier' }).first().waitFor({ timeout: 15000 });
  // the output view wraps long lines: join the view lines back, with plain spaces
  const text = await page.locator('.part.panel .view-lines').first().innerText();
  result.output_text = text.replace(/\u00a0/g, ' ').replace(/\n/g, '');
  await shot(page, 'vscode-output');
}

async function turnRuleOff(page) {
  // a setting change, sent to the server as didChangeConfiguration: the rule's findings go.
  // code-server notices edits of its Machine (remote) settings file; the User one it caches
  fs.writeFileSync(cfg.machineSettings, JSON.stringify(cfg.settingsRuleOff, null, 2));
  result.rule_off_status = await waitForStatus(page, new RegExp(`panic-lens: ${cfg.findingsRuleOff}$`), 60000);
  await runCommand(page, 'Notifications: Clear All Notifications');  // the toasts cover the panel
  await page.keyboard.press('Control+Shift+M');
  result.problems_per_file_rule_off = await problemsPerFile(page);
  await shot(page, 'vscode-rule-off');
}

async function recordsFile(page) {
  // the records folder named in the settings: a JSON file in it gets each record's coverage as
  // an Information squiggle on its "id" line, which is no finding for the status bar
  fs.writeFileSync(cfg.machineSettings, JSON.stringify({ ...cfg.settingsRuleOff, 'panicLens.records': ['records'] }, null, 2));
  await openFile(page, cfg.recordsFile);
  const sq = await squiggleOn(page, cfg.recordIdLine);
  result.records_squiggle_class = sq.cls;
  await page.mouse.move(sq.box.x + Math.min(20, sq.box.width / 2), sq.lineBox.y + sq.lineBox.height / 2);
  // the diagnostic's message shows first; the server's hover (what `records derive` says)
  // joins it when it arrives: wait for both
  const widget = page
    .locator('.monaco-hover', { hasText: cfg.recordNote })
    .filter({ hasText: cfg.recordHover })
    .first();
  await widget.waitFor({ timeout: 30000 });
  result.records_hover_text = await widget.innerText();
  result.records_status = await statusText(page);
  await shot(page, 'vscode-records-file');
}

async function drive(page) {
  await page.goto(`${cfg.url}/?folder=${encodeURIComponent(cfg.folder)}`, { waitUntil: 'domcontentloaded' });
  // first start: the environment is made under a progress notification, watched from the start
  const progress = page.locator('.notification-toast', { hasText: 'setting up its Python environment' }).first();
  const seen = progress.waitFor({ timeout: 120000 }).then(async () => {
    result.progress_text = await progress.innerText().catch(() => 'setting up its Python environment');
    mark('progress');
    await shot(page, 'vscode-progress').catch(() => {});
  });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  mark('workbench');
  await openFile(page, cfg.file);
  await goToLine(page, cfg.flaggedLine);
  await seen;
  const sq = await squiggleOn(page, cfg.flagged);
  result.squiggle_class = sq.cls;
  mark('squiggle');
  result.status = await waitForStatus(page, new RegExp(`panic-lens: ${cfg.findings}$`), 60000);
  await shot(page, 'vscode-squiggle');
  await hover(page, sq);
  mark('hover');
  await problems(page);
  mark('problems');
  await quickFix(page, sq);
  await explain(page);
  mark('explain');
  await scan(page);
  mark('scan');
  await brokenServerCommand(page);
  mark('bad_command');
  await pythonPath(page);
  mark('python_path');
  await turnRuleOff(page);
  mark('rule_off');
  await recordsFile(page);
  mark('records_file');
}

(async () => {
  fs.mkdirSync(cfg.shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: cfg.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => (result.page_errors = (result.page_errors || []).concat(String(e).slice(0, 300))));
  try {
    await drive(page);
    result.ok = true;
  } catch (e) {
    result.ok = false;
    result.error = String(e).slice(0, 2000);
    result.status_at_error = await statusText(page).catch(() => null);
    await shot(page, 'vscode-error').catch(() => {});
    // what the notification center holds: a toast may be hidden behind another one
    await runCommand(page, 'Notifications: Show Notifications').catch(() => {});
    result.notifications_at_error = await page.locator('.notifications-center .notification-list-item')
      .allInnerTexts().catch(() => null);
  }
  result.total_s = (Date.now() - t0) / 1000;
  fs.writeFileSync(cfg.out, JSON.stringify(result, null, 2));
  await browser.close();
  process.exit(result.ok ? 0 : 1);
})();
