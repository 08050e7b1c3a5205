import { fireEvent, render, screen } from '@testing-library/react';
import { useRef, useState } from 'react';
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

function Opener({ keepMounted }: { keepMounted?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        open
      </button>
      {keepMounted ? <StaysMounted open={open} onClose={() => setOpen(false)} /> : open && <Closable onClose={() => setOpen(false)} />}
    </>
  );
}

function Closable({ onClose }: { onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  return (
    <div ref={box} role="dialog">
      <input aria-label="field" autoFocus />
      <button type="button" onClick={onClose}>
        close
      </button>
    </div>
  );
}

function StaysMounted({ open, onClose }: { open: boolean; onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box, open);
  if (!open) return null;
  return (
    <div ref={box} role="dialog">
      <input aria-label="field" autoFocus />
      <button type="button" onClick={onClose}>
        close
      </button>
    </div>
  );
}

describe('useFocusTrap on close', () => {
  for (const keepMounted of [false, true]) {
    it(`gives focus back to the dialog's opener, not the page body${keepMounted ? ' (a dialog that stays mounted)' : ''}`, () => {
      render(<Opener keepMounted={keepMounted} />);
      const opener = screen.getByText('open');
      opener.focus();
      fireEvent.click(opener);
      expect(document.activeElement).toBe(screen.getByLabelText('field'));
      const close = screen.getByText('close');
      close.focus();
      fireEvent.click(close);
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(document.activeElement).toBe(opener);
    });
  }
});
