import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Markdown } from './Markdown';

describe('Markdown', () => {
  it('renders the usual Markdown', () => {
    const { container } = render(<Markdown text={'Two steps:\n\n1. **Download** the `archive`\n2. Unzip it\n\n```sh\nunzip a.zip\n```'} />);
    expect(container.querySelector('strong')?.textContent).toBe('Download');
    expect(container.querySelector('code')?.textContent).toBe('archive');
    expect(container.querySelectorAll('ol li')).toHaveLength(2);
    expect(container.querySelector('pre code')?.textContent).toContain('unzip a.zip');
  });

  it('never renders HTML, images or followable links from the reply', () => {
    const { container } = render(
      <Markdown text={'<img src=x onerror="alert(1)"><script>alert(2)</script> ![pic](http://evil/x.png) [docs](javascript:alert(3)) [site](https://example.com)'} />,
    );
    expect(container.querySelector('img, script, a, iframe')).toBeNull();
    expect(container.innerHTML).not.toMatch(/onerror|<script/);
    expect(container.textContent).toContain('site (https://example.com)');
  });
});
