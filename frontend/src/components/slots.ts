// Panels other parts of the app provide, picked up when their files exist:
// the Assistant tab (assistant/AssistantPanel.tsx, export AssistantPanel),
// the Run tab (run/RunPanel.tsx, export RunPanel) and the Preferences dialog
// (preferences/PreferencesDialog.tsx, export PreferencesDialog, props
// { onClose }). import.meta.glob with eager: true is a static import at
// build time (a dynamic import() never resolves in the built WebKitGTK app)
// and simply finds nothing while a file does not exist yet.
import type { ComponentType } from 'react';

function pick<P>(mods: Record<string, unknown>, name: string): ComponentType<P> | null {
  for (const m of Object.values(mods) as Record<string, unknown>[]) {
    const c = m[name] ?? m.default;
    // Components are functions, or objects for memo/forwardRef ones.
    if (typeof c === 'function' || (c && typeof c === 'object' && '$$typeof' in c)) return c as ComponentType<P>;
  }
  return null;
}

export const AssistantPanel = pick<Record<string, never>>(
  import.meta.glob('./assistant/AssistantPanel.tsx', { eager: true }),
  'AssistantPanel',
);
export const RunPanel = pick<Record<string, never>>(import.meta.glob('./run/RunPanel.tsx', { eager: true }), 'RunPanel');
export const PreferencesDialog = pick<{ onClose: () => void }>(
  import.meta.glob('./preferences/PreferencesDialog.tsx', { eager: true }),
  'PreferencesDialog',
);
