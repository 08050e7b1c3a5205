// The editor keeps notes and groups within the bounds Go's validate holds
// the file to (texts in bytes of UTF-8), whatever is typed or pasted.
import { describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import { addNote, cutBytes, MAX_GROUP_TITLE, MAX_NOTE_TEXT, setGroupTitle, setNoteText, addGroup, frameFor, regroupMoved, type Box } from './annotations';

const utf8 = (s: string) => new TextEncoder().encode(s).length;

describe('bounds', () => {
  it('cuts by UTF-8 bytes at a character boundary, for one- to four-byte characters', () => {
    for (const ch of ['a', 'é', '€', '😀']) {
      for (const max of [0, 1, 2, 3, 4, 5, 10, 99]) {
        for (const n of [0, 1, max, max + 1, 3 * max]) {
          const s = ch.repeat(n);
          const cut = cutBytes(s, max);
          expect(utf8(cut)).toBeLessThanOrEqual(max);
          expect(s.startsWith(cut)).toBe(true);
          // Nothing more of the text would fit.
          if (cut !== s) expect(utf8(cut + ch)).toBeGreaterThan(max);
        }
      }
    }
  });

  it('a note and a group title typed past their bounds stay within them', () => {
    const { doc, id } = addNote(fixtureWorkflow(), { x: 0, y: 0 });
    const w = setNoteText(doc, id, 'é'.repeat(MAX_NOTE_TEXT));
    expect(utf8(w.notes![0].text)).toBe(MAX_NOTE_TEXT);
    const g = addGroup(w, ['n1'])!;
    const t = setGroupTitle(g.doc, g.id, '€'.repeat(MAX_GROUP_TITLE));
    expect(utf8(t.groups![0].title)).toBeLessThanOrEqual(MAX_GROUP_TITLE);
    expect(utf8(t.groups![0].title)).toBeGreaterThan(MAX_GROUP_TITLE - 3);
  });
});

describe('membership by position (frameFor)', () => {
  // A small seeded generator: the same boxes every run, many shapes.
  let seed = 7;
  const rnd = (lo: number, hi: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return lo + Math.floor((seed / 2 ** 31) * (hi - lo));
  };
  const frame = (id: string, b: Box) => ({ id, position: { x: b.x, y: b.y }, size: { width: b.width, height: b.height } });
  const randomBox = (): Box => ({ x: rnd(-2000, 2000), y: rnd(-2000, 2000), width: rnd(20, 800), height: rnd(20, 800) });

  it('a box wholly inside, or on the edge, is in; one half out, or larger, is not', () => {
    for (let i = 0; i < 500; i++) {
      const f = randomBox();
      const g = [frame('g', f)];
      const w = rnd(1, f.width + 1);
      const h = rnd(1, f.height + 1);
      // Inside, anywhere, touching the edges included.
      const x = f.x + rnd(0, f.width - w + 1);
      const y = f.y + rnd(0, f.height - h + 1);
      expect(frameFor({ x, y, width: w, height: h }, g)).toBe('g');
      expect(frameFor(f, g)).toBe('g'); // the frame itself: on all four edges
      expect(frameFor({ x: f.x, y: f.y, width: w, height: h }, g)).toBe('g'); // top-left corner
      expect(frameFor({ x: f.x + f.width - w, y: f.y + f.height - h, width: w, height: h }, g)).toBe('g'); // bottom-right
      // Half out past each side, or one pixel past it.
      for (const d of [Math.ceil(w / 2), 1]) {
        expect(frameFor({ x: f.x - d, y, width: w, height: h }, g)).toBeNull();
        expect(frameFor({ x: f.x + f.width - w + d, y, width: w, height: h }, g)).toBeNull();
      }
      for (const d of [Math.ceil(h / 2), 1]) {
        expect(frameFor({ x, y: f.y - d, width: w, height: h }, g)).toBeNull();
        expect(frameFor({ x, y: f.y + f.height - h + d, width: w, height: h }, g)).toBeNull();
      }
      expect(frameFor({ ...f, width: f.width + 1 }, g)).toBeNull();
      expect(frameFor({ x, y, width: w, height: h }, [])).toBeNull();
    }
  });

  it('of nested or overlapping frames holding the box, the smallest wins, in any order', () => {
    for (let i = 0; i < 500; i++) {
      const box = { x: rnd(-1000, 1000), y: rnd(-1000, 1000), width: rnd(20, 300), height: rnd(20, 300) };
      // Frames around the box, each grown by its own margins (so they overlap or nest).
      const around = (id: string) => {
        const l = rnd(0, 400);
        const t = rnd(0, 400);
        return frame(id, { x: box.x - l, y: box.y - t, width: box.width + l + rnd(0, 400), height: box.height + t + rnd(0, 400) });
      };
      const holding = [around('a'), around('b'), around('c')];
      const elsewhere = frame('far', { x: box.x + box.width + 1, y: box.y, width: 20, height: 20 }); // small, beside it
      const area = (g: (typeof holding)[number]) => g.size.width * g.size.height;
      const least = Math.min(...holding.map(area));
      const all = [...holding, elsewhere];
      const got = frameFor(box, all)!;
      expect(area(holding.find((g) => g.id === got)!)).toBe(least);
      expect(area(holding.find((g) => g.id === frameFor(box, [...all].reverse()))!)).toBe(least);
    }
  });

  it('a moved node joins the frame it lies in and leaves the others; nodes not moved keep theirs', () => {
    const w0 = fixtureWorkflow();
    const big = { id: 'big', title: 'Big', position: { x: -100, y: -100 }, size: { width: 2000, height: 1000 }, nodes: ['n1', 'n2'] };
    const small = { id: 'small', title: 'Small', position: { x: 250, y: -50 }, size: { width: 400, height: 200 }, nodes: [] as string[] };
    const w = { ...w0, groups: [big, small] };
    const size = () => ({ width: 200, height: 80 });
    // n2 at (300, 0) lies in both: it goes to the smaller one only; n1 stays put.
    const r = regroupMoved(w, ['n2'], size);
    expect(r.groups!.map((g) => g.nodes)).toEqual([['n1'], ['n2']]);
    // Dragged out of every frame: member of none.
    const out = { ...r, nodes: r.nodes.map((n) => (n.id === 'n2' ? { ...n, position: { x: 5000, y: 0 } } : n)) };
    expect(regroupMoved(out, ['n2'], size).groups!.map((g) => g.nodes)).toEqual([['n1'], []]);
    // Nothing changes: the same document.
    expect(regroupMoved(r, ['n2', 'n1'], size)).toBe(r);
  });
});
