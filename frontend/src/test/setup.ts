// jsdom lacks the layout APIs React Flow uses; these stubs give it fixed
// sizes so nodes, handles and edges render in unit tests.
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

afterEach(() => cleanup());

// The machine running the suite is often busy; rendering React Flow under
// jsdom can take seconds then.
vi.setConfig({ testTimeout: 30_000 });

class ResizeObserverStub {
  private cb: ResizeObserverCallback;
  constructor(cb: ResizeObserverCallback) {
    this.cb = cb;
  }
  observe(target: Element) {
    this.cb([{ target } as ResizeObserverEntry], this);
  }
  unobserve() {}
  disconnect() {}
}

class DOMMatrixReadOnlyStub {
  m22: number;
  constructor(transform?: string) {
    const scale = transform?.match(/scale\(([1-9.])\)/)?.[1];
    this.m22 = scale !== undefined ? +scale : 1;
  }
}

const g = globalThis as unknown as Record<string, unknown>;
g.ResizeObserver ??= ResizeObserverStub;
g.DOMMatrixReadOnly ??= DOMMatrixReadOnlyStub;

// Pixel sizes in the style count; anything else (100%, auto) is a 1200×800 box.
const px = (v: string, dflt: number) => (v.endsWith('px') ? parseFloat(v) : dflt);

Object.defineProperties(HTMLElement.prototype, {
  offsetHeight: {
    configurable: true,
    get() {
      return px((this as HTMLElement).style.height, 800);
    },
  },
  offsetWidth: {
    configurable: true,
    get() {
      return px((this as HTMLElement).style.width, 1200);
    },
  },
});

(SVGElement.prototype as unknown as { getBBox: () => DOMRect }).getBBox = () =>
  ({ x: 0, y: 0, width: 40, height: 16 }) as DOMRect;

// jsdom has no canvas; the minimap draws nothing in tests.
HTMLCanvasElement.prototype.getContext = () => null;
