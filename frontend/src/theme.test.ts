import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadThemePref, nextThemePref, resolveTheme, saveThemePref, watchTheme } from './theme';

let listeners: ((e: unknown) => void)[] = [];
let prefersLight = false;

beforeEach(() => {
  localStorage.clear();
  listeners = [];
  prefersLight = false;
  vi.stubGlobal('matchMedia', (q: string) => ({
    get matches() {
      return q.includes('light') && prefersLight;
    },
    media: q,
    addEventListener: (_: string, f: (e: unknown) => void) => listeners.push(f),
    removeEventListener: (_: string, f: (e: unknown) => void) => (listeners = listeners.filter((x) => x !== f)),
  }));
});

afterEach(() => {
  vi.unstubAllGlobals();
  delete document.documentElement.dataset.theme;
});

describe('theme', () => {
  it('remembers the pick; system is the default and is not stored', () => {
    expect(loadThemePref()).toBe('system');
    saveThemePref('light');
    expect(loadThemePref()).toBe('light');
    saveThemePref('system');
    expect(localStorage.getItem('weft.theme')).toBeNull();
    localStorage.setItem('weft.theme', 'purple');
    expect(loadThemePref()).toBe('system');
  });

  it('cycles system, light, dark', () => {
    expect([nextThemePref('system'), nextThemePref('light'), nextThemePref('dark')]).toEqual(['light', 'dark', 'system']);
  });

  it('resolves system from the OS', () => {
    expect(resolveTheme('system', true)).toBe('light');
    expect(resolveTheme('system', false)).toBe('dark');
    expect(resolveTheme('dark', true)).toBe('dark');
  });

  it('follows the OS while on system, and stops when unsubscribed', () => {
    const seen: string[] = [];
    const stop = watchTheme('system', (t) => seen.push(t));
    expect(document.documentElement.dataset.theme).toBe('dark');
    prefersLight = true;
    listeners.forEach((f) => f({}));
    expect(document.documentElement.dataset.theme).toBe('light');
    stop();
    expect(listeners).toHaveLength(0);
    expect(seen).toEqual(['dark', 'light']);
  });

  it('a pick ignores the OS', () => {
    prefersLight = true;
    watchTheme('dark', () => {});
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(listeners).toHaveLength(0);
  });
});
