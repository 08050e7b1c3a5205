import { fireEvent, render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { describe, expect, it } from 'vitest';
import { useFocusTrap } from './focusTrap';

function Dialog() {
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  return (
    <>
      <button type="button">behind</button>
      <div ref={box} role="dialog">
        <button type="button">first</button>
        <input aria-label="middle" />
        <button type="button" disabled>
          off
        </button>
        <button type="button">last</button>
      </div>
    </>
  );
}

describe('useFocusTrap', () => {
  it('wraps Tab and Shift+Tab inside the dialog and brings focus back into it', () => {
    render(<Dialog />);
    const first = screen.getByText('first');
    const last = screen.getByText('last');
    last.focus();
    fireEvent.keyDown(last, { key: 'Tab' });
    expect(document.activeElement).toBe(first);
    fireEvent.keyDown(first, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
    screen.getByText('behind').focus();
    fireEvent.keyDown(document.activeElement!, { key: 'Tab' });
    expect(document.activeElement).toBe(first);
    // In the middle, Tab is left to the browser.
    const mid = screen.getByLabelText('middle');
    mid.focus();
    fireEvent.keyDown(mid, { key: 'Tab' });
    expect(document.activeElement).toBe(mid);
  });
});
