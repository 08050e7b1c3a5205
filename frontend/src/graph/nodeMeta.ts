// Presentation facts about node types: family, accent colour, icon name and
// the one-line summary of a node's params shown on the canvas.
import type { NodeType, WorkflowNode } from '../types';

export type Family = 'tool' | 'ai' | 'branch' | 'loop' | 'unknown';

export interface TypeMeta {
  family: Family;
  label: string;
}

const META: Record<NodeType, TypeMeta> = {
  Tool: { family: 'tool', label: 'Tool' },
  AiStep: { family: 'ai', label: 'AI step' },
  AiTransform: { family: 'ai', label: 'AI transform' },
  Workflow: { family: 'tool', label: 'Sub-workflow' },
  If: { family: 'branch', label: 'If' },
  Switch: { family: 'branch', label: 'Switch' },
  Loop: { family: 'loop', label: 'Loop' },
  EndLoop: { family: 'loop', label: 'End loop' },
};

export function typeMeta(type: string): TypeMeta {
  return (META as Record<string, TypeMeta>)[type] ?? { family: 'unknown', label: type || 'Unknown' };
}

function oneLine(s: string | undefined, max = 80): string {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

function argValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? `[…${v.length}]` : '{…}';
}

/** summary is the one-line description of what a node does. */
export function summary(n: WorkflowNode, byId?: Map<string, WorkflowNode>): string {
  const p = n.params ?? {};
  switch (n.type) {
    case 'Tool': {
      const args = Object.entries(p.arguments ?? {})
        .map(([k, v]) => `${k}=${argValue(v)}`)
        .join(', ');
      return oneLine(`${p.tool || '(no tool)'}${args ? `(${args})` : '()'}`);
    }
    case 'AiStep':
      return oneLine(p.prompt) || '(no prompt)';
    case 'AiTransform': {
      const labels = p.labels?.length ? ` → ${p.labels.join(' | ')}` : '';
      return oneLine(`${p.kind || 'transform'}: ${p.input || '(no input)'}${labels}`);
    }
    case 'Workflow': {
      const args = Object.entries(p.inputs ?? {})
        .map(([k, v]) => `${k}=${argValue(v)}`)
        .join(', ');
      return oneLine(`${p.path || '(no file)'}${args ? `(${args})` : ''}`);
    }
    case 'If':
      return oneLine(p.condition) || '(no condition)';
    case 'Switch': {
      const cases = p.cases ?? [];
      return oneLine(`${cases.length} case${cases.length === 1 ? '' : 's'}: ${cases.map((c) => c.name).join(', ')}`);
    }
    case 'Loop': {
      const max = p.max_iterations ?? 100;
      return oneLine(p.exit_condition ? `until ${p.exit_condition} · max ${max}` : `max ${max} iterations`);
    }
    case 'EndLoop': {
      const loop = p.loop_id ? byId?.get(p.loop_id) : undefined;
      return `back to ${loop ? loop.name || loop.key : p.loop_id || '(no loop)'}`;
    }
    default:
      return '';
  }
}
