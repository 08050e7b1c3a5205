// Node ids and keys, as backend/workflow makes them: ids are UUIDs, keys are
// identifiers ([a-z_][a-z0-9_]*, at most 64 characters) unique in the workflow.

export const KEY_RE = /^[a-z_][a-z0-9_]*$/;
export const MAX_KEY = 64;

/** RESERVED_KEYS are words the condition language reads as operators or
 * literals; mirrors workflow.ReservedKeys (a Go test compares the lists). */
export const RESERVED_KEYS: readonly string[] = ['true', 'false', 'nil', 'not', 'in', 'and', 'or', 'matches', 'contains', 'let', 'if', 'else'];

/** REFERENCE_ROOTS are what templates read besides node keys ({{secrets.NAME}});
 * mirrors workflow.ReferenceRoots (a Go test compares the lists). */
export const REFERENCE_ROOTS: readonly string[] = ['secrets', 'inputs'];

/** newId returns a random UUID (v4). crypto.randomUUID needs a secure
 * context, which a custom URL scheme may not be, so fall back to
 * getRandomValues. */
export function newId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') {
    try {
      return c.randomUUID();
    } catch {
      // not a secure context
    }
  }
  const b = new Uint8Array(16);
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** keyProblem says why k cannot be a node key ('' when it can). */
export function keyProblem(k: string, taken?: Set<string>): string {
  if (!k) return 'A key is required.';
  if (k.length > MAX_KEY) return `At most ${MAX_KEY} characters.`;
  if (!KEY_RE.test(k)) return 'Use lowercase letters, digits and underscores, starting with a letter or underscore.';
  if (RESERVED_KEYS.includes(k)) return `“${k}” is a word of the condition language; conditions could not refer to it. Try “${k}_step”.`;
  if (REFERENCE_ROOTS.includes(k)) return `“${k}” is reserved: templates read {{${k}.NAME}} as ${k}, not as a step. Try “${k}_step”.`;
  if (taken?.has(k)) return `Another node already has the key “${k}”.`;
  return '';
}

/** keyFromName mirrors workflow.KeyFromName: "Check file" → "check_file". */
export function keyFromName(name: string): string {
  let out = '';
  let lastUnderscore = false;
  for (const r of name.toLowerCase()) {
    if ((r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')) {
      out += r;
      lastUnderscore = false;
    } else if (!lastUnderscore && out.length > 0) {
      out += '_';
      lastUnderscore = true;
    }
    if (out.length >= 48) break;
  }
  out = out.replace(/_+$/, '');
  if (!out) return 'node';
  if (out[0] >= '0' && out[0] <= '9') out = `n_${out}`;
  if (RESERVED_KEYS.includes(out) || REFERENCE_ROOTS.includes(out)) out += '_step'; // "If" → if_step
  return out;
}

/** uniqueKey mirrors workflow.UniqueKey: base, or base_2, base_3… not in taken. */
export function uniqueKey(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  // A key that already ends in _N counts on from there: copy_2 → copy_3.
  const m = base.match(/^(.*)_(\d+)$/);
  const stem = m ? m[1] : base;
  for (let i = m ? +m[2] + 1 : 2; ; i++) {
    const k = `${stem}_${i}`;
    if (!taken.has(k)) return k;
  }
}

/** humanize turns a tool name into a node name: "run_command" → "Run command". */
export function humanize(s: string): string {
  const last = s.split('.').pop() ?? s;
  const words = last.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').trim().toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : s;
}
