import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const examples = vi.fn();
vi.mock('../api', () => ({ api: { examples: () => examples() }, errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)) }));

import { ExamplesDialog } from './ExamplesDialog';

const LIST = [
  { file: 'backup_folder.json', name: 'Back up a folder', goal: 'Pack a folder into a dated archive' },
  { file: 'watch_page.json', name: 'Watch a web page', goal: 'Say whether a page changed' },
];

/** Host: an opener button and the dialog, as the toolbar has them. */
function Host({ openExample }: { openExample: (f: string) => Promise<boolean | undefined> }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} data-testid="opener">
        Examples
      </button>
      {open && <ExamplesDialog actions={{ openExample }} onClose={() => setOpen(false)} />}
    </>
  );
}

function openGallery() {
  const openExample = vi.fn(async () => true);
  render(<Host openExample={openExample} />);
  const opener = screen.getByTestId('opener');
  opener.focus();
  fireEvent.click(opener);
  return { openExample, opener };
}

beforeEach(() => {
  examples.mockReset();
});

describe('ExamplesDialog', () => {
  it('lists each example by name and goal, and focuses the first', async () => {
    examples.mockResolvedValue(LIST);
    openGallery();
    const dialog = screen.getByRole('dialog', { name: /Start from an example/ });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    const first = await screen.findByTestId('example-backup_folder.json');
    expect(first.textContent).toContain('Back up a folder');
    expect(first.textContent).toContain('Pack a folder into a dated archive');
    expect(screen.getByTestId('example-watch_page.json').textContent).toContain('Say whether a page changed');
    await waitFor(() => expect(document.activeElement).toBe(first));
  });

  it('opens the one picked, closes and gives focus back to the opener', async () => {
    examples.mockResolvedValue(LIST);
    const { openExample, opener } = openGallery();
    fireEvent.click(await screen.findByTestId('example-watch_page.json'));
    expect(openExample).toHaveBeenCalledWith('watch_page.json');
    expect(screen.queryByTestId('examples-dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('closes on Escape with nothing opened, focus back at the opener', async () => {
    examples.mockResolvedValue(LIST);
    const { openExample, opener } = openGallery();
    await screen.findByTestId('example-backup_folder.json');
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('examples-dialog')).toBeNull();
    expect(openExample).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(opener);
  });

  it('keeps Tab inside the dialog', async () => {
    examples.mockResolvedValue(LIST);
    openGallery();
    const last = await screen.findByTestId('example-watch_page.json');
    act(() => last.focus());
    fireEvent.keyDown(window, { key: 'Tab' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    fireEvent.keyDown(window, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
  });

  it('says why when the examples cannot be listed', async () => {
    examples.mockRejectedValue(new Error('examples: no example'));
    openGallery();
    expect((await screen.findByTestId('examples-error')).textContent).toContain('examples: no example');
  });
});
