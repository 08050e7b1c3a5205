import { CornerDownLeft, HelpCircle, Repeat, Signpost, Sparkles, Split, WandSparkles, Workflow, Wrench, type LucideIcon } from 'lucide-react';

const ICONS: Record<string, LucideIcon> = {
  Tool: Wrench,
  AiStep: Sparkles,
  AiTransform: WandSparkles,
  Workflow: Workflow,
  If: Split,
  Switch: Signpost,
  Loop: Repeat,
  EndLoop: CornerDownLeft,
};

export function NodeIcon({ type, size = 15 }: { type: string; size?: number }) {
  const I = ICONS[type] ?? HelpCircle;
  return <I size={size} strokeWidth={2} aria-hidden="true" />;
}
