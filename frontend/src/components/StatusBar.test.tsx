import { fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useStore } from '../store';
import { StatusBar } from './StatusBar';

describe('StatusBar', () => {
  beforeEach(() => useStore.setState({ status: null, openWarnings: [], settingsWarnings: [], preferencesOpen: false, modelMissing: false }));

  it('shows settings that fell back to defaults, with a way to fix them', () => {
    useStore.setState({ settingsWarnings: ['llm.model: 5 is not a string; using nothing (in /x/settings.json)'] });
    render(<StatusBar />);
    const banner = screen.getByTestId('settings-banner');
    expect(banner).toHaveTextContent('llm.model: 5 is not a string');
    fireEvent.click(screen.getByRole('button', { name: 'Open Preferences' }));
    expect(useStore.getState().preferencesOpen).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('settings-banner')).toBeNull();
  });

  it('says when no model is configured, and leads to the setup on the Assistant tab', () => {
    useStore.setState({ modelMissing: true, sidebarTab: 'inspector' });
    render(<StatusBar />);
    expect(screen.getByTestId('no-model-banner')).toHaveTextContent('No model is configured');
    fireEvent.click(screen.getByRole('button', { name: 'Set up a model' }));
    expect(useStore.getState().sidebarTab).toBe('assistant');
  });
});
