import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ApprovalDialog } from './ApprovalDialog';
import { approvalStep } from './runFixtures';

// Bidi controls, zero-width characters and isolates, which a screen renders
// as nothing or as reordered text.
const HIDDEN = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]/;

// A step whose command, where these characters are rendered, reads
// `cp out/usage.log out/backup.log`; its display is what Go sends for it
// (approval.Display, escaped by package reveal).
const hostile = approvalStep({
  key: 'co\u200bpy',
  name: 'Back up\u2066 the log',
  arguments: { command: 'cp out/usage.log out/\u202egol.pukcab', 'env\u200b': { X: '\u2066y' } },
  content: '{\n  "params": {\n    "arguments": {\n      "command": "cp out/usage.log out/\u202egol.pukcab"\n    }\n  }\n}',
  display: {
    name: 'Back up\\u2066 the log',
    key: 'co\\u200Bpy',
    tool: 'run_command',
    reason: 'runs a shell command',
    arguments: [
      { name: 'command', value: 'cp out/usage.log out/\\u202Egol.pukcab', escaped: true },
      { name: 'env\\u200B', value: '{\n  "X": "\\u2066y"\n}', json: true, escaped: true },
    ],
    other: [{ name: 'params.condition', value: 'ok \\u2067|| true', escaped: true }],
    content: '{\n  "params": {\n    "arguments": {\n      "command": "cp out/usage.log out/\\u202Egol.pukcab"\n    }\n  }\n}',
    escaped: true,
    note: 'invisible characters are shown as \\u escapes',
  },
});

function show(steps = [hostile]) {
  render(<ApprovalDialog steps={steps} approved={[]} onApproveStep={vi.fn()} onApproveAll={vi.fn()} onCancel={vi.fn()} />);
  return screen.getByTestId('approval-dialog');
}

describe('ApprovalDialog', () => {
  it('shows what would not show as escapes, and says so', () => {
    const dlg = show();
    const text = dlg.textContent ?? '';
    expect(text).not.toMatch(HIDDEN);
    expect(within(dlg).getByTestId('approval-args').textContent).toContain('cp out/usage.log out/\\u202Egol.pukcab');
    expect(text).toContain('env\\u200B');
    expect(text).toContain('"X": "\\u2066y"');
    expect(text).toContain('Back up\\u2066 the log');
    expect(text).toContain('co\\u200Bpy');
    expect(within(dlg).getByTestId('approval-other').textContent).toContain('params.conditionok \\u2067|| true');
    expect(within(dlg).getByTestId('approval-content').textContent).toContain('out/\\u202Egol.pukcab');
    expect(within(dlg).getByTestId('approval-escaped').textContent).toContain('invisible characters are shown as \\u escapes');
  });

  it('says nothing of escapes when nothing was escaped', () => {
    const dlg = show([approvalStep()]);
    expect(within(dlg).getByTestId('approval-args').textContent).toContain('curl https://example.com');
    expect(within(dlg).queryByTestId('approval-escaped')).toBeNull();
  });
});
