// The palette: node types and the tools of the catalog (built-in and MCP),
// searchable by name. Click adds at the middle of the view (or after the
// selected node, connected to it); drag drops where released.
import { Search, X } from 'lucide-react';
import { useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { NodeSpec } from '../graph/edit';
import { typeMeta } from '../graph/nodeMeta';
import { NODE_WIDTH } from '../graph/toFlow';
import { useStore } from '../store';
import type { NodeType, Position, Tool } from '../types';
import { canvasBridge, PALETTE_MIME } from './canvasBridge';
import { NodeIcon } from './NodeIcon';

export interface PaletteEntry {
  id: string;
  spec: NodeSpec;
  label: string;
  description: string;
  group: string;
  /** extra words the search matches */
  keywords: string;
}

const TYPE_ENTRIES: { type: NodeType; description: string; keywords: string }[] = [
  { type: 'AiStep', description: 'Let the model work on a task, calling tools if allowed.', keywords: 'ai llm agent prompt' },
  { type: 'AiTransform', description: 'Summarize, extract or classify text with the model.', keywords: 'ai llm summarize extract classify' },
  { type: 'Workflow', description: 'Run another workflow file with inputs; its outputs are this step’s.', keywords: 'sub-workflow subflow call file child' },
  { type: 'If', description: 'Branch on a condition: true or false.', keywords: 'branch condition decide' },
  { type: 'Switch', description: 'Branch into named cases, with a default.', keywords: 'branch case route' },
  { type: 'Loop', description: 'Repeat a body until a condition holds (adds its EndLoop).', keywords: 'repeat iterate while' },
  { type: 'EndLoop', description: 'Close a loop body and go back to its Loop.', keywords: 'repeat end' },
  { type: 'Tool', description: 'Call a tool (pick it in the inspector).', keywords: 'tool call' },
];

export function paletteEntries(tools: Tool[]): PaletteEntry[] {
  const types = TYPE_ENTRIES.map((t) => ({
    id: `type:${t.type}`,
    spec: { type: t.type },
    label: typeMeta(t.type).label,
    description: t.description,
    group: 'Nodes',
    keywords: `${t.type} ${t.keywords}`,
  }));
  const toolEntries = tools.map((t) => ({
    id: `tool:${t.name}`,
    spec: { type: 'Tool' as const, tool: t.name },
    label: t.name,
    description: t.description,
    group: t.server ? `MCP: ${t.server}` : 'Built-in tools',
    keywords: `tool ${t.server ?? ''}`,
  }));
  return [...types, ...toolEntries];
}

/** searchEntries keeps the entries whose name (or description, keywords)
 * contains every word of q; name matches come first. */
export function searchEntries(entries: PaletteEntry[], q: string): PaletteEntry[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return entries;
  const scored: { e: PaletteEntry; score: number; i: number }[] = [];
  entries.forEach((e, i) => {
    const name = `${e.label} ${e.spec.tool ?? ''} ${e.spec.type}`.toLowerCase();
    const rest = `${e.description} ${e.keywords} ${e.group}`.toLowerCase();
    let score = 0;
    for (const w of words) {
      if (name.startsWith(w)) score += 3;
      else if (name.includes(w)) score += 2;
      else if (rest.includes(w)) score += 1;
      else return;
    }
    scored.push({ e, score, i });
  });
  return scored.sort((a, b) => b.score - a.score || a.i - b.i).map((x) => x.e);
}

/** addFromPalette adds an entry's node: after the one selected node
 * (connected when allowed), else in the middle of the view. */
export function addFromPalette(spec: NodeSpec): string[] {
  const s = useStore.getState();
  if (!s.doc) return [];
  const pending = s.pendingConnect;
  if (pending) {
    s.setPendingConnect(null);
    const has = (id: string) => s.doc!.nodes.some((n) => n.id === id);
    if ('source' in pending) {
      if (has(pending.source)) return s.addNode(spec, pending.position, { after: pending.source, handle: pending.sourceHandle });
    } else if ('target' in pending) {
      if (has(pending.target)) return s.addNode(spec, pending.position, { before: pending.target });
    } else if ('edge' in pending) {
      const ids = s.insertOnEdge(pending.edge, spec, pending.position);
      if (ids.length) return ids;
    } else {
      return s.addNode(spec, pending.position);
    }
  }
  const sel = s.selectedNodeIds.length === 1 ? s.doc.nodes.find((n) => n.id === s.selectedNodeIds[0]) : undefined;
  let pos: Position;
  if (sel?.position) {
    pos = s.direction === 'TB' ? { x: sel.position.x, y: sel.position.y + 170 } : { x: sel.position.x + NODE_WIDTH + 90, y: sel.position.y };
  } else {
    const c = canvasBridge.center() ?? { x: 0, y: 0 };
    pos = { x: c.x - NODE_WIDTH / 2, y: c.y - 46 };
  }
  // Do not drop exactly onto another node.
  const taken = (p: Position) => s.doc!.nodes.some((n) => n.position && Math.abs(n.position.x - p.x) < 40 && Math.abs(n.position.y - p.y) < 40);
  for (let k = 0; k < 20 && taken(pos); k++) pos = { x: pos.x + 30, y: pos.y + 30 };
  return s.addNode(spec, pos, sel ? { after: sel.id } : undefined);
}

export function Palette() {
  const tools = useStore((s) => s.tools);
  const hasDoc = useStore((s) => s.doc !== null);
  const pending = useStore((s) => s.pendingConnect);
  const setPending = useStore((s) => s.setPendingConnect);
  const [q, setQ] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const entries = useMemo(() => paletteEntries(tools), [tools]);
  const shown = useMemo(() => searchEntries(entries, q), [entries, q]);
  const groups = useMemo(() => {
    const m = new Map<string, PaletteEntry[]>();
    for (const e of shown) (m.get(e.group) ?? m.set(e.group, []).get(e.group)!).push(e);
    return [...m.entries()];
  }, [shown]);

  const add = (e: PaletteEntry) => {
    if (!hasDoc) return;
    addFromPalette(e.spec);
  };
  const onKey = (ev: KeyboardEvent) => {
    if (ev.key === 'ArrowDown') {
      ev.preventDefault();
      setActive((a) => Math.min(a + 1, shown.length - 1));
    } else if (ev.key === 'ArrowUp') {
      ev.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (ev.key === 'Enter' && shown[active]) {
      ev.preventDefault();
      add(shown[active]);
    } else if (ev.key === 'Escape') {
      setQ('');
      setPending(null);
      input.current?.blur();
    }
  };
  const onDragStart = (ev: DragEvent, e: PaletteEntry) => {
    ev.dataTransfer.setData(PALETTE_MIME, JSON.stringify(e.spec));
    ev.dataTransfer.setData('text/plain', e.label);
    ev.dataTransfer.effectAllowed = 'copy';
  };

  return (
    <aside className={`palette${pending ? ' pending' : ''}`} aria-label="Palette" data-testid="palette">
      {pending && (
        <div className="palette-pending" data-testid="palette-pending">
          <span>
            {'edge' in pending ? 'Pick a node to insert on the edge.' : 'source' in pending || 'target' in pending ? 'Pick a node to add and connect.' : 'Pick a node to add there.'}
          </span>
          <button type="button" className="icon" aria-label="Cancel" onClick={() => setPending(null)}>
            <X size={13} />
          </button>
        </div>
      )}
      <div className="palette-search">
        <Search size={14} aria-hidden="true" />
        <input
          ref={input}
          type="search"
          value={q}
          placeholder="Search nodes and tools"
          aria-label="Search nodes and tools"
          data-testid="palette-search"
          onChange={(e) => {
            setQ(e.target.value);
            setActive(0);
          }}
          onKeyDown={onKey}
        />
        {q && (
          <button type="button" className="icon" aria-label="Clear search" onClick={() => setQ('')}>
            <X size={13} />
          </button>
        )}
      </div>
      <div className="palette-list">
        {shown.length === 0 && <div className="muted palette-none">Nothing matches “{q}”.</div>}
        {groups.map(([g, list]) => (
          <section key={g} className="palette-group" aria-label={g}>
            <h3>{g}</h3>
            <ul className="palette-items">
              {list.map((e) => {
                const i = shown.indexOf(e);
                const meta = typeMeta(e.spec.type);
                return (
                  <li key={e.id}>
                    <button
                      type="button"
                      className={`palette-item family-${meta.family}${q && i === active ? ' active' : ''}`}
                      draggable={hasDoc}
                      disabled={!hasDoc}
                      onDragStart={(ev) => onDragStart(ev, e)}
                      onClick={() => add(e)}
                      title={`${e.description}\nClick to add, or drag onto the canvas.`}
                      data-testid={`palette-${e.id}`}
                    >
                      <span className="weft-node-icon">
                        <NodeIcon type={e.spec.type} size={14} />
                      </span>
                      <span className="palette-text">
                        <span className="palette-label">{e.label}</span>
                        <span className="palette-desc">{e.description}</span>
                      </span>
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      </div>
    </aside>
  );
}
