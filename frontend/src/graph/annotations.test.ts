// The editor keeps notes and groups within the bounds Go's validate holds
// the file to (texts in bytes of UTF-8), whatever is typed or pasted.
import { describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import { addNote, cutBytes, MAX_GROUP_TITLE, MAX_NOTE_TEXT, setGroupTitle, setNoteText, addGroup } from './annotations';

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
