// What other components may ask of the canvas (which lives inside its own
// React Flow provider): where the middle of the view is, and fitting.
import type { Position } from '../types';

/** The drag-and-drop type of a palette entry (its NodeSpec as JSON). */
export const PALETTE_MIME = 'application/x-weft-node';

export const canvasBridge: {
  /** the flow coordinates of the middle of the visible canvas, or null */
  center: () => Position | null;
  fitView: () => void;
} = {
  center: () => null,
  fitView: () => {},
};
