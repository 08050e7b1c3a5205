// Before a replanned version runs, the user approves the steps that change
// the world: commands, file writes, requests other than GET, tools that may
// change things, AI agents allowed to call them.
import { Bot, FilePen, Globe, ShieldAlert, SquareTerminal, Wrench } from 'lucide-react';
import { useId } from 'react';
import type { SideEffect } from '../../types';
import { plural } from './format';
import './run.css';

const KIND: Record<string, { label: string; icon: typeof Wrench }> = {
  command: { label: 'runs a command', icon: SquareTerminal },
  file_write: { label: 'writes a file', icon: FilePen },
  request: { label: 'sends a request', icon: Globe },
  tool: { label: 'calls a tool', icon: Wrench },
  unknown_tool: { label: 'unknown tool', icon: Wrench },
  agent: { label: 'AI agent', icon: Bot },
};

export function ApprovalDialog({
  steps,
  changed,
  onApprove,
  onCancel,
}: {
  steps: SideEffect[];
  changed: string[];
  onApprove(): void;
  onCancel(): void;
}) {
  const titleId = useId();
  const isNew = new Set(changed);
  return (
    <div className="run-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div className="run-modal approval" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="approval-dialog">
        <header className="run-modal-head">
          <ShieldAlert size={16} className="esc-icon" />
          <div className="run-modal-titles">
            <h2 id={titleId}>Approve the replanned version</h2>
            <p className="muted">
              The planner made this version after a failure. Its {plural(steps.length, 'step')} below change things
              outside Weft; check them before it runs.
            </p>
          </div>
        </header>
        <div className="run-modal-body">
          <ul className="approval-list">
            {steps.map((s) => {
              const k = KIND[s.kind] ?? { label: s.kind, icon: Wrench };
              return (
                <li key={s.id} data-testid="approval-step" data-kind={s.kind}>
                  <k.icon size={14} className="approval-icon" />
                  <div className="approval-text">
                    <div className="approval-name">
                      <strong>{s.name || s.key}</strong> <code>{s.key}</code>
                      <span className="approval-kind">{k.label}</span>
                      {isNew.has(s.id) && <span className="approval-new">new in this plan</span>}
                    </div>
                    <div className="approval-detail">{s.detail}</div>
                  </div>
                </li>
              );
            })}
          </ul>
        </div>
        <footer className="run-modal-foot">
          <button type="button" className="btn primary" onClick={onApprove} data-testid="approve-run" autoFocus>
            Approve and run
          </button>
          <button type="button" className="btn" onClick={onCancel} data-testid="approve-cancel">
            Cancel
          </button>
        </footer>
      </div>
    </div>
  );
}
