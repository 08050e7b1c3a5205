import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const serveUnit = vi.fn();
const installServeUnit = vi.fn();
vi.mock('../api', () => ({ api: { serveUnit: (p: string) => serveUnit(p), installServeUnit: (p: string, s: string) => installServeUnit(p, s) }, errorMessage: String }));

import { ServeDialog } from './ServeDialog';

const unit = '# /home/u/.config/systemd/user/weft-serve-abc.service\n[Unit]\nDescription=Weft triggers\n\n[Service]\nExecStart=:"/usr/bin/weft" "serve" "/w"\n';

beforeEach(() => {
  serveUnit.mockReset();
  installServeUnit.mockReset();
});

// The unit is shown first, in full, and Install sends back exactly what
// was shown; a folder that cannot be served says why and installs nothing.
describe('ServeDialog', () => {
  it('shows the unit, then installs exactly what it showed', async () => {
    serveUnit.mockResolvedValue({ entry: unit, name: 'weft-serve-abc.service' });
    installServeUnit.mockResolvedValue(undefined);
    render(<ServeDialog path="/w/hook.json" onClose={vi.fn()} />);
    const pre = await screen.findByTestId('serve-unit');
    expect(pre.textContent).toBe(unit);
    expect(serveUnit).toHaveBeenCalledWith('/w/hook.json');
    fireEvent.click(screen.getByTestId('serve-install'));
    await screen.findByTestId('serve-done');
    expect(installServeUnit).toHaveBeenCalledWith('/w/hook.json', unit);
  });

  it('says why a folder cannot be served, with nothing to install', async () => {
    serveUnit.mockResolvedValue({ entry: '', refused: 'weft serve did not start: hook.json: 1 things wait for review', name: 'x' });
    render(<ServeDialog path="/w/hook.json" onClose={vi.fn()} />);
    expect((await screen.findByTestId('serve-refused')).textContent).toContain('wait for review');
    expect(screen.getByTestId<HTMLButtonElement>('serve-install').disabled).toBe(true);
    await waitFor(() => expect(installServeUnit).not.toHaveBeenCalled());
  });
});
