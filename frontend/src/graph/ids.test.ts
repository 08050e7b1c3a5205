import { describe, expect, it } from 'vitest';
import { keyFromName, keyProblem, RESERVED_KEYS, uniqueKey } from './ids';

describe('node keys', () => {
  it('never derives a reserved word of the condition language', () => {
    expect(keyFromName('If')).toBe('if_step');
    expect(keyFromName('In')).toBe('in_step');
    expect(keyFromName('Not')).toBe('not_step');
    expect(keyFromName('Check file')).toBe('check_file');
    for (const w of RESERVED_KEYS) expect(RESERVED_KEYS).not.toContain(keyFromName(w));
    expect(uniqueKey(keyFromName('If'), new Set(['if_step']))).toBe('if_step_2');
  });
  it('explains a reserved key when renaming', () => {
    expect(keyProblem('if')).toMatch(/word of the condition language/);
    expect(keyProblem('secrets')).toMatch(/reserved/);
    expect(keyFromName('Secrets')).toBe('secrets_step');
    expect(keyProblem('if_step')).toBe('');
  });
});
