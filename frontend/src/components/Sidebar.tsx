// The right sidebar: tabs for the Inspector, the Assistant, the Run panel
// and the Tests panel. The Assistant and Run panels come from their own folders
// (slots.ts); a tab whose panel does not exist yet says so. Its width can be
// dragged and is remembered.
import { ChevronsRight, FlaskConical, Play, SlidersHorizontal, Sparkles, type LucideIcon } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type ComponentType, type PointerEvent } from 'react';
import { useStore } from '../store';
import type { SidebarTab } from '../store/uiSlice';
import { Inspector } from './inspector/Inspector';
import { AssistantPanel, RunPanel } from './slots';
import { TestsPanel } from './tests/TestsPanel';

export interface SidebarTabDef {
  id: SidebarTab;
  label: string;
  icon: LucideIcon;
  Panel: ComponentType<Record<string, never>> | null;
  /** what the tab says while its panel does not exist */
  missing: string;
}

export const sidebarTabs: SidebarTabDef[] = [
  { id: 'inspector', label: 'Inspector', icon: SlidersHorizontal, Panel: Inspector, missing: '' },
  { id: 'assistant', label: 'Assistant', icon: Sparkles, Panel: AssistantPanel, missing: 'The assistant is not part of this build yet.' },
  { id: 'run', label: 'Run', icon: Play, Panel: RunPanel, missing: 'Running workflows from the editor is coming; use `weft run FILE` meanwhile.' },
  { id: 'tests', label: 'Tests', icon: FlaskConical, Panel: TestsPanel, missing: '' },
];

const WIDTH_KEY = 'weft.sidebarWidth';
const MIN_W = 280;
const MAX_W = 640;

function savedWidth(): number {
  try {
    const w = Number(localStorage.getItem(WIDTH_KEY));
    if (w >= MIN_W && w <= MAX_W) return w;
  } catch {
    // no storage
  }
  return 340;
}

export function Sidebar() {
  const open = useStore((s) => s.sidebarOpen);
  const tab = useStore((s) => s.sidebarTab);
  const setTab = useStore((s) => s.setSidebarTab);
  const setOpen = useStore((s) => s.setSidebarOpen);
  const [width, setWidth] = useState(savedWidth);
  const drag = useRef<{ x: number; w: number } | null>(null);

  useEffect(() => {
    try {
      localStorage.setItem(WIDTH_KEY, String(width));
    } catch {
      // no storage
    }
  }, [width]);

  const onDown = useCallback(
    (e: PointerEvent) => {
      drag.current = { x: e.clientX, w: width };
      (e.target as HTMLElement).setPointerCapture?.(e.pointerId);
    },
    [width],
  );
  const onMove = useCallback((e: PointerEvent) => {
    if (!drag.current) return;
    setWidth(Math.min(MAX_W, Math.max(MIN_W, drag.current.w + drag.current.x - e.clientX)));
  }, []);
  const onUp = useCallback(() => {
    drag.current = null;
  }, []);

  if (!open) {
    return (
      <nav className="sidebar-rail" aria-label="Sidebar">
        {sidebarTabs.map((t) => (
          <button key={t.id} type="button" className="icon" title={t.label} aria-label={`Open ${t.label}`} onClick={() => setTab(t.id)}>
            <t.icon size={16} />
          </button>
        ))}
      </nav>
    );
  }
  const current = sidebarTabs.find((t) => t.id === tab) ?? sidebarTabs[0];
  return (
    <aside className="sidebar" style={{ width }} data-testid="sidebar" aria-label="Sidebar">
      <div className="sidebar-resize" onPointerDown={onDown} onPointerMove={onMove} onPointerUp={onUp} title="Drag to resize" />
      <div className="sidebar-tabs">
        <div className="sidebar-tablist" role="tablist" aria-label="Sidebar panels">
          {sidebarTabs.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={t.id === current.id}
              className={`sidebar-tab${t.id === current.id ? ' active' : ''}`}
              onClick={() => setTab(t.id)}
              data-testid={`tab-${t.id}`}
            >
              <t.icon size={14} /> <span className="sidebar-tab-label">{t.label}</span>
            </button>
          ))}
        </div>
        <button type="button" className="icon sidebar-close" title="Hide the sidebar" aria-label="Hide the sidebar" onClick={() => setOpen(false)}>
          <ChevronsRight size={15} />
        </button>
      </div>
      <div className="sidebar-body" role="tabpanel" data-testid={`panel-${current.id}`}>
        {current.Panel ? <current.Panel /> : <div className="sidebar-missing muted">{current.missing}</div>}
      </div>
    </aside>
  );
}
