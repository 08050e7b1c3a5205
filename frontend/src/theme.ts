// The colour theme: the OS's (prefers-color-scheme) unless the person
// picked light or dark with the toolbar's toggle. The pick is kept in
// localStorage like the sidebar's width (a per-machine look, not part of
// the settings file the CLI shares). The CSS variables of each theme are in
// styles.css; canvases drawn in script read them through cssColour.

export type ThemePref = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

const KEY = 'weft.theme';
const ORDER: ThemePref[] = ['system', 'light', 'dark'];

export function loadThemePref(): ThemePref {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' || v === 'system' ? v : 'system';
  } catch {
    return 'system';
  }
}

export function saveThemePref(p: ThemePref): void {
  try {
    if (p === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, p);
  } catch {
    // storage unavailable: the pick lasts this session
  }
}

/** nextThemePref is what the toggle picks after p. */
export function nextThemePref(p: ThemePref): ThemePref {
  return ORDER[(ORDER.indexOf(p) + 1) % ORDER.length];
}

function systemQuery(): MediaQueryList | null {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: light)') : null;
}

export function resolveTheme(p: ThemePref, prefersLight = !!systemQuery()?.matches): Theme {
  if (p === 'system') return prefersLight ? 'light' : 'dark';
  return p;
}

/** watchTheme applies the pick to the document now and whenever the OS's
 * preference changes; onTheme hears the resolved theme. It returns the
 * unsubscribe. */
export function watchTheme(p: ThemePref, onTheme: (t: Theme) => void): () => void {
  const apply = () => {
    const t = resolveTheme(p);
    document.documentElement.dataset.theme = t;
    onTheme(t);
  };
  apply();
  const q = systemQuery();
  if (p !== 'system' || !q) return () => {};
  q.addEventListener('change', apply);
  return () => q.removeEventListener('change', apply);
}

/** cssColour reads a colour variable of the current theme (fallback outside a browser). */
export function cssColour(name: string, fallback: string): string {
  if (typeof document === 'undefined') return fallback;
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** canvasColours are the colours the minimap and the overview draw with. */
export function canvasColours() {
  return {
    family: {
      tool: cssColour('--tool', '#4f8cff'),
      ai: cssColour('--ai', '#a77bff'),
      branch: cssColour('--branch', '#f0a34b'),
      loop: cssColour('--loop', '#2fbf9b'),
      unknown: cssColour('--unknown', '#8a8f98'),
    } as Record<string, string>,
    edge: {
      true: cssColour('--edge-true', '#3fae7a'),
      false: cssColour('--edge-false', '#c9656b'),
      case: cssColour('--edge-case', '#b98a4e'),
      default: cssColour('--edge-case', '#b98a4e'),
      body: cssColour('--edge-body', '#2fa388'),
      back: cssColour('--loop', '#2fbf9b'),
    } as Record<string, string>,
    edgeDefault: cssColour('--edge', '#5b6474'),
    panel: cssColour('--panel', '#161920'),
    border: cssColour('--border-strong', '#3a4150'),
    text: cssColour('--text', '#e6e8ee'),
    accent: cssColour('--accent', '#4f8cff'),
    error: cssColour('--error', '#f0525a'),
    warning: cssColour('--warning', '#f2b33d'),
    shade: cssColour('--bg', '#0f1115'),
    frame: cssColour('--edge-selected', '#c9d6f0'),
  };
}
