// What changed in a step between the content last reviewed ("was") and now,
// line by line, for the approval dialog's was/now blocks. Both texts are the
// display form Go sends (escaped, indented JSON); this only marks lines.

export interface DiffLine {
  text: string;
  /** the line is not in the other text at this place: removed (was) or added (now) */
  changed: boolean;
}

export interface LineDiff {
  was: DiffLine[];
  now: DiffLine[];
}

/** Beyond this many cells the comparison is by position (a huge step stays fast). */
const MAX_CELLS = 4_000_000;

/**
 * lineDiff marks the lines of a and b outside a longest common subsequence
 * of their lines: the unmarked lines of each, in order, are the same.
 */
export function lineDiff(a: string, b: string): LineDiff {
  const x = a.split('\n');
  const y = b.split('\n');
  // Lines equal at both ends are kept as they are; only the middle is compared.
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xm = x.slice(head, x.length - tail);
  const ym = y.slice(head, y.length - tail);
  const [kx, ky] = xm.length * ym.length > MAX_CELLS ? byPosition(xm, ym) : lcs(xm, ym);
  const mark = (lines: string[], mid: boolean[]) =>
    lines.map((text, i) => ({ text, changed: i >= head && i < lines.length - tail ? !mid[i - head] : false }));
  return { was: mark(x, kx), now: mark(y, ky) };
}

/** lcs says, per line of x and of y, whether it is in one longest common subsequence. */
function lcs(x: string[], y: string[]): [boolean[], boolean[]] {
  const n = x.length;
  const m = y.length;
  // len[i][j]: the LCS length of x[i:] and y[j:], row by row in one array.
  const len = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[at(i, j)] = x[i] === y[j] ? len[at(i + 1, j + 1)] + 1 : Math.max(len[at(i + 1, j)], len[at(i, j + 1)]);
    }
  }
  const kx = new Array<boolean>(n).fill(false);
  const ky = new Array<boolean>(m).fill(false);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      kx[i++] = true;
      ky[j++] = true;
    } else if (len[at(i + 1, j)] >= len[at(i, j + 1)]) i++;
    else j++;
  }
  return [kx, ky];
}

/** byPosition keeps the lines equal at the same place. */
function byPosition(x: string[], y: string[]): [boolean[], boolean[]] {
  return [x.map((l, i) => l === y[i]), y.map((l, i) => l === x[i])];
}
