import { describe, expect, it } from 'vitest';
import { lineDiff, type DiffLine } from './lineDiff';

const kept = (ls: DiffLine[]) => ls.filter((l) => !l.changed).map((l) => l.text);
const texts = (ls: DiffLine[]) => ls.map((l) => l.text);

/** The LCS length by the textbook recursion (small inputs only). */
function lcsLength(x: string[], y: string[]): number {
  const memo = new Map<string, number>();
  const f = (i: number, j: number): number => {
    if (i === x.length || j === y.length) return 0;
    const k = `${i},${j}`;
    if (!memo.has(k)) memo.set(k, x[i] === y[j] ? 1 + f(i + 1, j + 1) : Math.max(f(i + 1, j), f(i, j + 1)));
    return memo.get(k)!;
  };
  return f(0, 0);
}

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

describe('lineDiff', () => {
  it('marks the line that changed, on each side, and nothing else', () => {
    const was = '{\n  "command": "echo one",\n  "next": []\n}';
    const now = '{\n  "command": "echo two",\n  "next": []\n}';
    const d = lineDiff(was, now);
    expect(d.was.filter((l) => l.changed).map((l) => l.text)).toEqual(['  "command": "echo one",']);
    expect(d.now.filter((l) => l.changed).map((l) => l.text)).toEqual(['  "command": "echo two",']);
  });

  it('marks nothing for the same text, and everything for texts with no line in common', () => {
    expect(lineDiff('a\nb', 'a\nb').now.some((l) => l.changed)).toBe(false);
    const d = lineDiff('a\nb', 'c\nd');
    expect(d.was.every((l) => l.changed) && d.now.every((l) => l.changed)).toBe(true);
  });

  it('over generated neighbours: keeps every line, and what it leaves unmarked is a longest common subsequence', () => {
    const next = rng(20);
    const alphabet = ['{', '}', '  "a": 1,', '  "b": 2,', '  "c": "x"', '', '  "next": []'];
    const pick = () => alphabet[Math.floor(next() * alphabet.length)];
    for (let round = 0; round < 400; round++) {
      const x = Array.from({ length: Math.floor(next() * 9) }, pick);
      // A neighbour of x: lines removed, added and changed.
      const y = x.flatMap((l) => {
        const r = next();
        if (r < 0.15) return [];
        if (r < 0.3) return [l, pick()];
        if (r < 0.4) return [pick()];
        return [l];
      });
      if (next() < 0.2) y.unshift(pick());
      const d = lineDiff(x.join('\n'), y.join('\n'));
      const ctx = JSON.stringify({ x, y });
      expect(texts(d.was), ctx).toEqual(x.join('\n').split('\n'));
      expect(texts(d.now), ctx).toEqual(y.join('\n').split('\n'));
      expect(kept(d.was), ctx).toEqual(kept(d.now));
      expect(kept(d.was).length, ctx).toBe(lcsLength(x.join('\n').split('\n'), y.join('\n').split('\n')));
    }
  });
});
