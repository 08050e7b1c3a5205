// Text written by Go or by a tool's author, as a person reads it: Go's
// messages name commands and expressions in `backticks` (right in a
// terminal), and MCP servers describe their tools in Markdown. A pair of
// backticks is drawn as code, never shown; an unpaired one stays as it is.
// Nothing else is interpreted: the text stays text.
import type { ReactNode } from 'react';

/** proseParts splits text into plain runs and `code` runs (odd indexes). */
export function proseParts(text: string): string[] {
  const parts: string[] = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf('`');
    const close = open < 0 ? -1 : rest.indexOf('`', open + 1);
    if (close < 0) break;
    parts.push(rest.slice(0, open), rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
  }
  parts.push(rest);
  return parts;
}

export function Prose({ text }: { text: string }): ReactNode {
  const parts = proseParts(text);
  if (parts.length === 1) return text;
  return parts.map((p, i) => (i % 2 ? <code key={i}>{p}</code> : p));
}

/** hintNode is a Field hint: a string as Prose, anything else as it is. */
export function hintNode(hint: ReactNode): ReactNode {
  return typeof hint === 'string' ? <Prose text={hint} /> : hint;
}
