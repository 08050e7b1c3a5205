import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Field } from './inspector/fields';
import { Prose, proseParts } from './Prose';

describe('Prose', () => {
  it('draws each pair of backticks as code and shows no backtick of a pair', () => {
    const { container } = render(
      <p>
        <Prose text="the done_when condition `a.x >= 2` is false; run `weft validate`" />
      </p>,
    );
    expect([...container.querySelectorAll('code')].map((c) => c.textContent)).toEqual(['a.x >= 2', 'weft validate']);
    expect(container.textContent).toBe('the done_when condition a.x >= 2 is false; run weft validate');
  });

  it('keeps every character of the text, whatever the backticks', () => {
    // Every text of up to 6 characters from "`", "a" and " ": the plain
    // and code runs together are the text less the backticks of each pair,
    // and an unpaired backtick stays.
    const alphabet = ['`', 'a', ' '];
    const texts: string[] = [''];
    for (let n = 0; n < 6; n++) for (const t of texts.filter((x) => x.length === n)) for (const c of alphabet) texts.push(t + c);
    for (const t of texts) {
      const parts = proseParts(t);
      expect(parts.length % 2, t).toBe(1);
      const ticks = t.split('`').length - 1;
      expect(parts.join('').length, t).toBe(t.length - (ticks - (ticks % 2)));
      expect(parts.filter((_, i) => i % 2).some((p) => p.includes('`')), t).toBe(false);
    }
  });

  it('renders a Field hint from a tool author with code, not backticks', () => {
    const { container } = render(
      <Field label="Path" hint="Use `~` for your home folder">
        <input />
      </Field>,
    );
    expect(container.querySelector('.field-hint code')?.textContent).toBe('~');
    expect(container.querySelector('.field-hint')?.textContent).not.toContain('`');
  });
});
